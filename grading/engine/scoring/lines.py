"""A traveller line and what each side of it scored (S1, S2.4, S2.6): adjusted-score codes,
split and weighted scores. Scores on a line are in NS points (NS sign)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

Weighting = tuple[tuple[Fraction, int], ...]


@dataclass(frozen=True)
class TravellerLine:
    """One table's result on one board (S1). Scores are in NS points (NS sign).

    A plain result sets ``ns_score``. An artificial adjusted score sets ``ns_adjusted`` /
    ``ew_adjusted`` to a code read by :func:`parse_adjusted_score` (``A60``, ``AVE-``, or a
    combined ``A6040`` meaning NS 60 %, EW 40 %; S2.4). A code on one side only gives the other
    side the complement (``A60`` alone: EW 40 %) unless that side has its own score. A split
    score (S2.6) sets ``ew_score`` to the EW side's own score, still in NS sign (seed 004 Table H:
    NS -400, EW "-690" from EW's seat, so ``ew_score=690``). A weighted score (Law 12C1c) sets
    ``ns_weighted`` (and ``ew_weighted`` when the sides differ) to ``((weight, ns_points), ...)``
    with weights summing to 1. ``group`` separates the comparison groups of a fouled board
    (S2.3): lines with different groups are never compared with each other.
    """

    board: int
    ns_pair: str
    ew_pair: str
    ns_score: int | None = None
    ew_score: int | None = None
    ns_adjusted: str | None = None
    ew_adjusted: str | None = None
    ns_weighted: tuple[tuple[Fraction, int], ...] = ()
    ew_weighted: tuple[tuple[Fraction, int], ...] = ()
    contract: str = ""
    declarer: str = ""
    lead: str = ""
    tricks: int | None = None
    group: str = ""


# --------------------------------------------------------------------------------------------
# Adjusted-score codes (S2.4)

_PERCENT_CODE = re.compile(r"A(\d\d)(?:[/-]?(\d\d))?")
_AVERAGE_CODE = re.compile(r"(?:AVE|AVG|AV)([+=-]?)")
_AVERAGE_PERCENT = {"+": 60, "": 50, "=": 50, "-": 40}


def parse_adjusted_score(code: str) -> tuple[int, int | None]:
    """Read an artificial adjusted score code (S2.4).

    Returns ``(percent, None)`` for a one-side code (``A60``, ``A50``, ``A40``, ``AVE+``,
    ``AVE``, ``AVE-``; also ``AV``/``AVG`` spellings) and ``(ns_percent, ew_percent)`` for a
    combined code written NS first (``A6040``, ``A5050``, ``A60/40``). Case and surrounding
    spaces are ignored. Raises ``ValueError`` for anything else.
    """
    text = code.strip().upper()
    average = _AVERAGE_CODE.fullmatch(text)
    if average:
        return _AVERAGE_PERCENT[average.group(1)], None
    percent = _PERCENT_CODE.fullmatch(text)
    if percent:
        second = percent.group(2)
        return int(percent.group(1)), int(second) if second is not None else None
    raise ValueError(f"not an artificial adjusted score: {code!r}")


def is_adjusted_score(code: str) -> bool:
    """True when ``code`` is an artificial adjusted score :func:`parse_adjusted_score` reads."""
    try:
        parse_adjusted_score(code)
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------------------------
# One side of one traveller line


@dataclass(frozen=True)
class SideOutcome:
    """What one side of a line scored: an artificial percentage, or points with weights.

    A plain score is one component of weight 1; a weighted score several (S2.6). Points are in
    NS sign.
    """

    percent: int | None = None
    components: Weighting = ()

    @property
    def is_artificial(self) -> bool:
        return self.percent is not None


def _exact_weight(weight: Fraction | int | float | str) -> Fraction:
    # Floats such as 0.1 are meant as the decimal a person typed, not the binary value.
    return Fraction(str(weight)) if isinstance(weight, float) else Fraction(weight)


def _weighted_outcome(weighted: Iterable[tuple[Fraction, int]]) -> SideOutcome:
    components = tuple((_exact_weight(weight), int(points)) for weight, points in weighted)
    if any(weight <= 0 for weight, _ in components):
        raise ValueError(f"weights must be positive: {components}")
    if sum(weight for weight, _ in components) != 1:
        raise ValueError(f"weights must sum to 1: {components}")
    return SideOutcome(components=components)


def _side_outcome(
    side: int,
    own: tuple[Weighting, str | None, int | None],
    other: tuple[Weighting, str | None, int | None],
    where: str,
) -> SideOutcome:
    """One side's outcome: its own entry if it has one, else what the other side's implies."""
    own_weighted, own_adjusted, own_score = own
    given = sum((bool(own_weighted), own_adjusted is not None, own_score is not None))
    if given > 1:
        raise ValueError(f"{where}: a side has more than one of score, adjusted, weighted")
    if own_weighted:
        return _weighted_outcome(own_weighted)
    if own_adjusted is not None:
        first, second = parse_adjusted_score(own_adjusted)
        return SideOutcome(percent=(first, second)[side] if second is not None else first)
    if own_score is not None:
        return SideOutcome(components=((Fraction(1), int(own_score)),))
    other_weighted, other_adjusted, other_score = other
    if other_weighted:
        return _weighted_outcome(other_weighted)
    if other_adjusted is not None:
        first, second = parse_adjusted_score(other_adjusted)
        return SideOutcome(percent=(first, second)[side] if second is not None else 100 - first)
    if other_score is not None:
        return SideOutcome(components=((Fraction(1), int(other_score)),))
    raise ValueError(f"{where}: the line has no score")


def line_where(line: TravellerLine) -> str:
    return f"board {line.board}, NS {line.ns_pair} v EW {line.ew_pair}"


def ns_outcome(line: TravellerLine) -> SideOutcome:
    """The NS side's outcome on a line (S2.4, S2.6)."""
    return _side_outcome(
        0,
        (line.ns_weighted, line.ns_adjusted, line.ns_score),
        (line.ew_weighted, line.ew_adjusted, line.ew_score),
        line_where(line),
    )


def ew_outcome(line: TravellerLine) -> SideOutcome:
    """The EW side's outcome on a line (S2.4, S2.6); points still in NS sign."""
    return _side_outcome(
        1,
        (line.ew_weighted, line.ew_adjusted, line.ew_score),
        (line.ns_weighted, line.ns_adjusted, line.ns_score),
        line_where(line),
    )
