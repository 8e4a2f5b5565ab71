"""Forecasts (FR 5, S3.5) and handicaps (S8, FR 7) from NGS grades."""

from __future__ import annotations

import math

from grading.engine.ngs_params import NGS_DEFAULT, NGSParams

__all__ = ["forecast", "forecast_table", "pair_handicap", "team_handicap", "match_handicap"]

FORECAST_THRESHOLDS = (37.0, 43.0, 49.0, 55.0, 61.0)


def forecast(par_pct: float, threshold: float, sd: float = 6.34) -> float:
    """Probability of scoring above ``threshold`` percent when the session score is
    Normal(par, sd) (FR 5, S3.5)."""
    if sd <= 0:
        raise ValueError("the standard deviation must be positive")
    z = (threshold - par_pct) / sd
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def forecast_table(
    par_pct: float, thresholds: tuple[float, ...] = FORECAST_THRESHOLDS, sd: float = 6.34
) -> list[tuple[float, float]]:
    """``(threshold, chance of scoring above it)`` for each threshold (FR 5's table)."""
    return [(t, forecast(par_pct, t, sd)) for t in thresholds]


def pair_handicap(ga: float, gb: float) -> float:
    """Percentage points added to a pair's score: ``50 - (Ga + Gb)/2`` (S8)."""
    return 50.0 - (ga + gb) / 2


def team_handicap(team_average: float, boards: int, params: NGSParams = NGS_DEFAULT) -> float:
    """IMPs added to a team's score over ``boards`` boards: ``0.3086 B (50 - average)`` (S8,
    FR 7; the factor is ``2 / F_cross``)."""
    return params.team_handicap_factor * boards * (50.0 - team_average)


def match_handicap(
    stronger: float, weaker: float, boards: int, params: NGSParams = NGS_DEFAULT
) -> float:
    """IMPs the weaker team starts with in a match of ``boards`` boards (S8, FR 7)."""
    return params.team_handicap_factor * boards * (stronger - weaker)
