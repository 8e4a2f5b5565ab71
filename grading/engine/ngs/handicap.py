"""Forecasts (FR 5, S3.5) and handicaps (S8, FR 7) from NGS grades.

Handicaps are published to the cent (S8, S14.11), so they are computed exactly: each grade is
read as the decimal it prints as (the grade as shown, 53.33, is 53.33, not the binary number
just below it) and the result is the float nearest the exact value. Binary arithmetic would put
an exact half cent (50 - 53.33 = -3.33, half of it -1.665) just short of it, and the published
figure a cent out (docs/decisions.md, "Club pages": rounded half away from zero).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction

from grading.engine.ngs.params import NGS_DEFAULT, NGSParams

__all__ = [
    "forecast",
    "forecast_table",
    "mean_grade",
    "pair_handicap",
    "team_handicap",
    "match_handicap",
]

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


def _exact(value: float) -> Fraction:
    """A figure as the decimal it prints as (``repr``: the shortest that reads back)."""
    return Fraction(repr(float(value)))


def _team_factor(params: NGSParams) -> Fraction:
    """FR 7's 0.3086 is ``2 / F_cross`` (25/81 with 6.48), kept exact."""
    return 2 / _exact(params.f_cross)


def mean_grade(grades: Iterable[float]) -> float:
    """The average of a pair's or a team's grades as shown (S8), exactly."""
    values = [_exact(g) for g in grades]
    if not values:
        raise ValueError("no grade to average")
    return float(sum(values) / len(values))


def pair_handicap(ga: float, gb: float) -> float:
    """Percentage points added to a pair's score: ``50 - (Ga + Gb)/2`` (S8)."""
    return float(50 - (_exact(ga) + _exact(gb)) / 2)


def team_handicap(team_average: float, boards: int, params: NGSParams = NGS_DEFAULT) -> float:
    """IMPs added to a team's score over ``boards`` boards: ``0.3086 B (50 - average)`` (S8,
    FR 7; the factor is ``2 / F_cross``)."""
    return float(_team_factor(params) * boards * (50 - _exact(team_average)))


def match_handicap(
    stronger: float, weaker: float, boards: int, params: NGSParams = NGS_DEFAULT
) -> float:
    """IMPs the weaker team starts with in a match of ``boards`` boards (S8, FR 7)."""
    return float(_team_factor(params) * boards * (_exact(stronger) - _exact(weaker)))
