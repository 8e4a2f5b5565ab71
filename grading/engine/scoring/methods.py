"""Which method scores a session's boards (S2, S3.3, S3.6), and one board scored as a session
scores it: the one place the results pages and the ingest cross-check take them from."""

from __future__ import annotations

from collections.abc import Sequence

from grading.engine.scoring.board import BoardResult, Method, score_board
from grading.engine.scoring.lines import TravellerLine

# Keyed by ``grading.engine.types.Scoring``'s values (that module imports this package, so the
# enum cannot be imported here). Teams are compared per pair on cross-IMPs (S3.6); Swiss pairs
# in match points are match-pointed board by board (S3.2).
_METHODS: dict[str, Method] = {
    "MP": Method.MP,
    "SWISS_PAIRS_MP": Method.MP,
    "BUTLER": Method.BUTLER,
    "CROSS_IMP": Method.CROSS_IMP,
    "AGGREGATE": Method.AGGREGATE,
    "MULTIPLE_TEAMS": Method.CROSS_IMP,
    "SWISS_TEAMS": Method.CROSS_IMP,
    "TEAM_LEAGUE": Method.CROSS_IMP,
}


def method_of(scoring: str) -> Method | None:
    """How each board of a session of this scoring (a ``Scoring`` or its value) is scored;
    None where the boards are not compared across the field (Swiss pairs in IMPs, the scorings
    that are not graded)."""
    return _METHODS.get(getattr(scoring, "value", scoring))


def score_traveller(
    lines: Sequence[TravellerLine],
    method: Method,
    most_lines: int,
    *,
    drop: int = 0,
    halves: str = "up",
) -> BoardResult:
    """One board as :func:`~grading.engine.scoring.score_session` scores it: at match points
    Neuberg-factored to ``most_lines``, the most any board of the session has (S2.3); by any
    other method over its own lines. ``drop`` and ``halves``: the Butler datum (S2.5)."""
    expected = most_lines if method is Method.MP else len(lines)
    return score_board(lines, method, expected, drop=drop, halves=halves)
