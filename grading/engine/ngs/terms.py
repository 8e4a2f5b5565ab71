"""NGS score terms and par (S3.3, S3.5): a pair's result in match-point percentage units above
average, and the result that gives zero excess, for every scoring type."""

from __future__ import annotations

from grading.engine.ngs.params import NGS_DEFAULT, NGSParams
from grading.engine.types import (
    PAIRS_SCORING,
    PERCENT_SCORING,
    SWISS_PAIRS_SCORING,
    TEAMS_SCORING,
    Scoring,
    SessionResult,
)

__all__ = [
    "CROSS_IMPS",
    "IMPS_NAMED",
    "PAIRS_SCORING",
    "PERCENT_SCORING",
    "SWISS_PAIRS_SCORING",
    "TEAMS_SCORING",
    "imp_factor",
    "imps_named",
    "par",
    "score_term",
]


# S14.23: the kind of IMPs a Swiss pairs file names, kept in ``SessionResult.extra`` under
# IMPS_NAMED by the readers; CROSS_IMPS takes F_cross, anything else (Butler, plain "IMPs")
# the Swiss IMP factor.
IMPS_NAMED = "imps"
CROSS_IMPS = "cross"


def imps_named(session: SessionResult) -> str:
    """The kind of IMPs the session's file names (S14.23): ``CROSS_IMPS`` or ""."""
    return dict(session.extra).get(IMPS_NAMED, "")


def score_term(
    scoring: Scoring,
    score: float,
    boards: int,
    params: NGSParams = NGS_DEFAULT,
    direction_mean: float | None = None,
    *,
    imps: str = "",
) -> float:
    """A pair's session result in match-point percentage units above average (S3.3).
    ``imps``: the kind of IMPs the file names (:func:`imps_named`, S14.23)."""
    if scoring in PERCENT_SCORING:
        return score - 50.0
    if scoring is Scoring.AGGREGATE:
        if direction_mean is None:
            raise ValueError("aggregate scoring needs the direction mean")
        return (score - direction_mean) / (params.f_aggregate * boards)
    return imp_factor(scoring, params, imps) * score / boards


def imp_factor(scoring: Scoring, params: NGSParams, imps: str = "") -> float:
    """The factor that turns a session's IMPs per board into percentage units (S3.3): Swiss
    pairs by the kind of IMPs the file names (S14.23), cross-IMPs and teams F_cross."""
    if scoring is Scoring.BUTLER:
        return params.f_butler
    if scoring is Scoring.SWISS_PAIRS_IMP:
        return params.f_cross if imps == CROSS_IMPS else params.f_swiss_imp
    if scoring is Scoring.CROSS_IMP or scoring in TEAMS_SCORING:
        return params.f_cross
    raise ValueError(f"{scoring.value} is not scored in IMPs")


def par(
    scoring: Scoring,
    ga: float,
    gb: float,
    sopp: float,
    boards: int,
    direction_mean: float | None = None,
    params: NGSParams = NGS_DEFAULT,
    *,
    imps: str = "",
) -> float:
    """The result that gives zero excess, in the session's own units (S3.5)."""
    edge = (ga + gb) / 2 - sopp
    if scoring in PERCENT_SCORING:
        return 50.0 + edge
    if scoring is Scoring.AGGREGATE:
        if direction_mean is None:
            raise ValueError("aggregate par needs the direction mean")
        return direction_mean + params.f_aggregate * boards * edge
    return boards * edge / imp_factor(scoring, params, imps)
