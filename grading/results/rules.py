"""The results page's rules (S16), over plain figures: the places of a ranking as a scorer
writes them (ties share a place, "3="), the groups a session is ranked in (its sections and, in
a two-winner movement, its directions), and which strata a pair's average puts it in.

A stratum is the pairs whose average grade at the start of the session is *below* its limit
(seed 000, "stratify the event by having one or more stratifications of pairs whose average
grade is below a level"): a pair exactly on a limit is not in that stratum. A pair that cannot
be placed (a withheld grade without an estimate) is in the strongest stratum only, the whole
field."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from grading.engine.ngs.decay import shown
from grading.engine.ngs.handicap import mean_grade
from grading.engine.types import Movement

MAX_LIMITS = 3


@dataclass(frozen=True)
class Ranked:
    """One pair's place in a ranking: ``place`` as printed ("1", "3="), ``order`` to sort."""

    key: str
    place: str
    order: int


def places(scores: Sequence[tuple[str, float | None]]) -> list[Ranked]:
    """Rank ``(key, score)`` from the highest score; equal scores share a place ("2="), a pair
    without a score comes last without a place. The file's order breaks nothing: equal pairs
    keep the order given."""
    with_score = [(k, s) for k, s in scores if s is not None]
    ordered = sorted(enumerate(with_score), key=lambda item: (-round(item[1][1], 6), item[0]))
    ranked: list[Ranked] = []
    values = [round(s, 6) for _, (_, s) in ordered]
    for position, (_, (key, score)) in enumerate(ordered):
        first = values.index(round(score, 6)) + 1
        tied = values.count(round(score, 6)) > 1
        ranked.append(Ranked(key, f"{first}=" if tied else str(first), position))
    for key, score in scores:
        if score is None:
            ranked.append(Ranked(key, "", len(ranked)))
    return ranked


def ranking_group(*, section: str, direction: str, movement: str) -> tuple[str, str]:
    """The group a pair is ranked in: its section, and its direction in a two-winner
    movement (Mitchell: North-South and East-West each have a winner, S3.2)."""
    two_winner = movement == Movement.TWO_WINNER.value
    return section, direction if two_winner else ""


class Placed(Protocol):
    section: str
    direction: str


P = TypeVar("P", bound=Placed)


def ranking_groups(pairs: Sequence[P], movement: str) -> dict[tuple[str, str], list[P]]:
    """The session's pairs by the group each is ranked in (``ranking_group``), in the order
    given; a session of a single section leaves its section unnamed."""
    sectioned = len({p.section for p in pairs}) > 1
    grouped: dict[tuple[str, str], list[P]] = {}
    for p in pairs:
        section = p.section if sectioned else ""
        key = ranking_group(section=section, direction=p.direction, movement=movement)
        grouped.setdefault(key, []).append(p)
    return grouped


def group_title(section: str, direction: str) -> str:
    words = {"NS": "North-South", "EW": "East-West"}
    parts = [f"Section {section}" if section else "", words.get(direction, direction)]
    return " · ".join(p for p in parts if p)


def limits_clean(values: Sequence[float | None]) -> list[float]:
    """The limits as stored: distinct, at most three, highest first (the strongest stratum
    below the whole field), to the cent as grades are shown (S14.11)."""
    seen = sorted({shown(float(v)) for v in values if v is not None}, reverse=True)
    if len(seen) > MAX_LIMITS:
        raise ValueError(f"at most {MAX_LIMITS} grade limits")
    return seen


def pair_average(figures: Sequence[float | None]) -> float | None:
    """The pair's average for the strata: the mean of its players' figures as shown (S14.11,
    the same exact average a handicap table prints, ``handicap.mean_grade``), or None when one
    player cannot be placed."""
    if not figures or any(f is None for f in figures):
        return None
    return mean_grade([shown(f) for f in figures if f is not None])


def strata_of(average: float | None, limits: Sequence[float]) -> list[float]:
    """The limits whose stratum holds a pair of this average: those strictly above it. None
    (the pair cannot be placed) is in none of them: the strongest stratum, the whole field."""
    if average is None:
        return []
    return [limit for limit in limits if average < limit]
