"""Forecasts (FR 5, S3.5) and handicaps (S8, FR 7) from NGS grades: the one home of the
handicap arithmetic. Pages, printouts, CSV, XLSX and the per-player files all call these.

Handicaps are published to the cent (S8, S14.11), so they are computed exactly: each grade is
read as the decimal it prints as (the grade as shown, 53.33, is 53.33, not the binary number
just below it) and the result is the float nearest the exact value. Binary arithmetic would put
an exact half cent (50 - 53.33 = -3.33, half of it -1.665) just short of it, and the published
figure a cent out (docs/decisions.md, "Club pages": rounded half away from zero).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

from grading.engine.ngs.decay import band, shown
from grading.engine.ngs.params import NGS_DEFAULT, NGSParams

__all__ = [
    "forecast",
    "forecast_table",
    "mean_grade",
    "pair_handicap",
    "team_handicap",
    "match_handicap",
    "cents",
    "whole",
    "player_handicap",
    "pair_figures",
    "band_step",
    "BAND_STEPS",
    "ebuscore_handicap",
    "scorebridge_handicap",
    "own_handicap",
]

FORECAST_THRESHOLDS = (37.0, 43.0, 49.0, 55.0, 61.0)  # S3.5, FR 5: the thresholds shown


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


# ------------------------------------------------------------------ figures as published (S8)

CENT = Decimal("0.01")


def _decimal(value: float | Decimal | Fraction) -> Decimal:
    if isinstance(value, Decimal):
        return value
    if isinstance(value, Fraction):
        return Decimal(value.numerator) / Decimal(value.denominator)
    return Decimal(repr(float(value)))


def cents(value: float | Decimal | Fraction) -> float:
    """To 2 decimals, halves away from zero (3.745 -> 3.75), as a scorer rounds by hand
    (docs/decisions.md "Club pages"). A float is read as the decimal it prints as, so it must
    be the float nearest the exact figure: the functions here compute exactly and return that
    float (binary ``(50 - 53.33) / 2`` is -1.66499..., a cent short of the published -1.67)."""
    return float(_decimal(value).quantize(CENT, rounding=ROUND_HALF_UP))


def whole(value: float | Decimal | Fraction) -> int:
    """To the whole unit, halves away from zero (FR 7's "= 37 IMPs")."""
    return int(_decimal(value).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def player_handicap(grade: float, share: int = 1) -> float:
    """A player's handicap in percentage points, ``(50 - G) / share`` from the grade as shown,
    exactly (S8: a pair's handicap is the average of its players' ``50 - G``; ``share=2`` is
    the player's half of it)."""
    return float((50 - _exact(grade)) / share)


def pair_figures(ga: float, gb: float) -> tuple[float, float]:
    """A pair's average grade and handicap as published, to the cent (S8): the average of the
    grades as shown rounded half away from zero, and 50 less that average, so that the two
    figures a scorer reads add up to 50 exactly. (Rounding ``50 - average`` on its own would
    not: 47.885 publishes as 47.89 and 2.115 as 2.12.)"""
    average = cents(mean_grade([ga, gb]))
    return average, float(50 - _exact(average))


# The EBUScore convention (issue 20): whole-number handicaps by NGS band, negative for the
# stronger bands (a negative handicap lowers the player's score).
BAND_STEPS: dict[str, int] = {
    "Ace": -6,
    "King": -5,
    "Queen": -4,
    "Jack": -3,
    "Ten": -2,
    "Nine": -1,
    "Eight": 0,
    "Seven": 1,
    "Six": 2,
    "Five": 3,
    "Four": 4,
    "Three": 5,
    "Two": 6,
}


def band_step(band_name: str) -> int:
    """The EBUScore handicap of a band: Ace (any suit) -6 ... Eight 0 ... Two +6."""
    return BAND_STEPS[band_name.split()[0]]


def ebuscore_handicap(grade: float) -> int:
    """EBUScore's per-player handicap: the band step of the grade as shown (S4 bands)."""
    return band_step(band(grade))


def scorebridge_handicap(grade: float) -> float:
    """ScoreBridge's and Pianola's per-player handicap: percentage points with the opposite
    sign to S8's (a positive handicap lowers the score), ``G - 50`` from the grade as shown."""
    return cents(_exact(shown(grade)) - 50)


def own_handicap(grade: float) -> float:
    """The product's per-player handicap: percentage points added to the score (S8),
    ``50 - G`` from the grade as shown."""
    return cents(50 - _exact(shown(grade)))
