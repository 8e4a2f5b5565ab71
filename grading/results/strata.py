"""Strata on a session's results page (S16, seed 000 on stratifying Swiss events): the club's
grade limits for the event (or for all its events), and each stratum's ranking.

Each pair is placed by its average grade at the start of the session (S3.2: the grades the
session was graded with, ``SessionGrade.grade_before``). Which grade may place a member is
``grading.privacy.stratum_grade``'s decision: a private or provisional grade is replaced by the
club's estimate for that member (S8, FAQ 36), else the pair is in the strongest stratum only.
An unknown player (and a member partnering one, S3.8) stands at the S3.8 figure
``h_u = s_u + SoF_group``, as in every SOpp of the session (``unknown_pair_figures``), worked
out from the figures the strata may use (a withheld grade's estimate in its place): ``SoF_group``
averages the known players' grades, so a withheld grade in it would be read back by moving a
limit. Where a known player has no figure the strata may use, the unknown pairs are in the
strongest stratum only. The page shows which pairs are in each stratum, never their averages."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.core.cache import cache

from clubs.models import Club, ClubEstimate, ClubStrata
from grading.engine import codec
from grading.engine.ngs.session import unknown_pair_figures
from grading.engine.types import SessionResult
from grading.models import PairResult, SessionGrade, SessionVersion
from grading.params import active_params
from grading.privacy import stratum_grade
from grading.results.rules import pair_average, places, strata_of
from members.models import Member

FIGURES_KEPT = 7 * 24 * 3600  # seconds, as the session's travellers


@dataclass
class StratumLine:
    pair_id: str
    place: str  # in the stratum
    overall: str  # in the whole field
    names: str
    score: str


@dataclass
class Stratum:
    limit: float
    groups: list[tuple[str, list[StratumLine]]] = field(default_factory=list)

    @property
    def title(self) -> str:
        return f"Pairs averaging below {self.limit:.2f}"


def strata_limits(*, club: Club, event_id: int | None) -> list[float]:
    """The event's limits, else the club's limits for all its events, else none."""
    rows = {
        row.event_id: row.limits
        for row in ClubStrata.objects.filter(club=club).filter(
            event_id__in=[event_id] if event_id else []
        )
        | ClubStrata.objects.filter(club=club, event__isnull=True)
    }
    chosen = rows.get(event_id) if event_id in rows else rows.get(None)
    return [float(v) for v in (chosen or [])]


def pair_strata(
    *,
    version: SessionVersion,
    pairs: Sequence[PairResult],
    limits: Sequence[float],
) -> dict[str, list[float]]:
    """For each pair id, the limits whose stratum holds it (an empty list: the strongest
    stratum only). ``pairs`` with ``player1``/``player2`` and their current grades loaded."""
    if not limits:
        return {}
    club = version.session.event.club
    starts = dict(
        SessionGrade.objects.filter(version=version).values_list("member_id", "grade_before")
    )
    members = [m for p in pairs for m in (p.player1, p.player2) if m is not None]
    estimates = dict(
        ClubEstimate.objects.filter(club=club, member__in=members).values_list("member_id", "grade")
    )
    usable = {
        m.pk: stratum_grade(m, starts[m.pk], estimate=estimates.get(m.pk))
        for m in members
        if m.pk in starts
    }
    unknown = {}
    if any(not p.known for p in pairs):
        known = [m for p in pairs if p.known for m in (p.player1, p.player2) if m is not None]
        unknown = _unknown_figures(version, known, usable)
    placed: dict[str, list[float]] = {}
    for pair in pairs:
        if not pair.known:
            figure = unknown.get(pair.pair_id)
            figures = [figure, figure]
        else:
            figures = [usable.get(m.pk) if m else None for m in (pair.player1, pair.player2)]
        placed[pair.pair_id] = strata_of(pair_average(figures), limits)
    return placed


def _unknown_figures(
    version: SessionVersion, known: Sequence[Member], usable: dict[int, float | None]
) -> dict[str, float]:
    """The S3.8 figure of each unknown pair, from the known players' figures the strata may
    use; none when one of them has no such figure. Kept per version and figures: the file is
    decoded only when they change (it took most of a 40-table page's time)."""
    by_number = {m.national_number: usable.get(m.pk) for m in known}
    if any(figure is None for figure in by_number.values()):
        return {}
    params = active_params()
    digest = hashlib.blake2b(repr(sorted(by_number.items())).encode(), digest_size=12)
    return cache.get_or_set(
        f"results:unknown-figures:1:{version.pk}:{params.name}:{digest.hexdigest()}",
        lambda: unknown_pair_figures(codec.load(SessionResult, version.payload), by_number, params),
        timeout=FIGURES_KEPT,
    )


def strata_rankings(
    *,
    limits: Sequence[float],
    placed: dict[str, list[float]],
    groups: Sequence[tuple[str, Sequence]],
) -> list[Stratum]:
    """Each stratum's ranking, group by group (``groups``: the page's ranking groups, each a
    title and its lines with ``pair_id``, ``place``, ``names``, ``score`` and ``value``)."""
    strata = []
    for limit in limits:
        stratum = Stratum(limit)
        for title, lines in groups:
            inside = [line for line in lines if limit in placed.get(line.pair_id, [])]
            if not inside:
                continue
            ranked = {r.key: r.place for r in places([(ln.pair_id, ln.value) for ln in inside])}
            stratum.groups.append(
                (
                    title,
                    [
                        StratumLine(ln.pair_id, ranked[ln.pair_id], ln.place, ln.names, ln.score)
                        for ln in inside
                    ],
                )
            )
        strata.append(stratum)
    return strata
