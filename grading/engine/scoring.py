"""Scoring engine (SPEC S2): match points, Neuberg, adjusted, split and weighted scores,
Butler, cross-IMPs and aggregate. Pure Python, exact arithmetic where it matters.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class TravellerLine:
    """One table's result on one board (S1). Scores are in NS points (NS sign).

    A plain result sets ``ns_score``. An artificial adjusted score sets ``ns_adjusted`` /
    ``ew_adjusted`` to ``A60``, ``A50`` or ``A40`` (S2.4). A split score (S2.6) sets
    ``ew_score`` to the EW side's own score when it differs from ``ns_score``. A weighted score
    (Law 12C1c) sets ``ns_weighted`` (and ``ew_weighted`` when the sides differ) to
    ``((weight, ns_points), ...)`` with weights summing to 1.
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
