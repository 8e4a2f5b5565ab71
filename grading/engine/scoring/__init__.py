"""Scoring engine (SPEC S2): match points, Neuberg, adjusted, split and weighted scores,
Butler, cross-IMPs and aggregate. Pure Python, exact arithmetic where it matters.

Sign convention: every score on a :class:`TravellerLine` is in NS points (NS sign). Results are
returned from each side's own point of view (an EW pair that beats the field has a positive
Butler score and many match points).

The modules: ``lines`` (a traveller line, adjusted codes, each side's outcome), ``imps`` (IMPs,
Butler, cross-IMPs), ``matchpoints`` (match points, Neuberg), ``groups`` (one comparison group,
weighted scores included), ``board`` (one traveller), ``session`` (pair totals), ``methods``
(a session scoring's board method, and one board scored as its session scores it).
"""

from __future__ import annotations

from grading.engine.scoring.board import (
    BoardResult,
    LineResult,
    Method,
    score_board,
)
from grading.engine.scoring.groups import (
    AGGREGATE_POINTS_PER_PERCENT,
)
from grading.engine.scoring.imps import (
    IMP_BAND_UPPER_LIMITS,
    artificial_imps,
    butler_datum,
    butler_imps,
    cross_imps,
    cross_imps_exact,
    imps,
)
from grading.engine.scoring.lines import (
    SideOutcome,
    TravellerLine,
    ew_outcome,
    is_adjusted_score,
    ns_outcome,
    parse_adjusted_score,
)
from grading.engine.scoring.matchpoints import (
    ew_matchpoints,
    matchpoints,
    matchpoints_by_frequency,
    neuberg,
    neuberg_exact,
    small_group_percentages,
)
from grading.engine.scoring.methods import method_of, score_traveller
from grading.engine.scoring.session import (
    PairSessionResult,
    group_by_board,
    mp_percentages_real_top,
    score_session,
)

__all__ = [
    "mp_percentages_real_top",
    "AGGREGATE_POINTS_PER_PERCENT",
    "BoardResult",
    "IMP_BAND_UPPER_LIMITS",
    "LineResult",
    "Method",
    "PairSessionResult",
    "SideOutcome",
    "TravellerLine",
    "artificial_imps",
    "butler_datum",
    "butler_imps",
    "cross_imps",
    "cross_imps_exact",
    "ew_matchpoints",
    "ew_outcome",
    "group_by_board",
    "imps",
    "is_adjusted_score",
    "matchpoints",
    "method_of",
    "matchpoints_by_frequency",
    "neuberg",
    "neuberg_exact",
    "ns_outcome",
    "parse_adjusted_score",
    "score_board",
    "score_session",
    "score_traveller",
    "small_group_percentages",
]
