"""IMPs, Butler datums and cross-IMPs (S2.1, S2.5)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

# --------------------------------------------------------------------------------------------
# IMPs (S2.1)

IMP_BAND_UPPER_LIMITS = (
    10,
    40,
    80,
    120,
    160,
    210,
    260,
    310,
    360,
    420,
    490,
    590,
    740,
    890,
    1090,
    1290,
    1490,
    1740,
    1990,
    2240,
    2490,
    2990,
    3490,
    3990,
)


def imps(points: int | Fraction | float) -> int:
    """IMPs for a points difference, signed (Law 78B, S2.1).

    A difference belongs to the first band whose printed upper limit it does not exceed, so
    differences that are not multiples of 10 move up as soon as they pass a band's upper limit
    (15 -> 1, 45 -> 2, as S2.1's examples).
    """
    magnitude = -points if points < 0 else points
    value = len([limit for limit in IMP_BAND_UPPER_LIMITS if magnitude > limit])
    return value if points >= 0 else -value


def artificial_imps(percent: int | Fraction) -> Fraction:
    """IMPs for an artificial adjusted score: 3 IMPs per 10 % from 50 % (Law 86, S2.4)."""
    return Fraction(3) * (Fraction(percent) - 50) / 10


# --------------------------------------------------------------------------------------------
# Butler and cross-IMPs (S2.5)


def _round_to_ten_half_up(value: Fraction) -> int:
    """Nearest multiple of 10, a 5 rounding toward +infinity (445 -> 450, -445 -> -440)."""
    return math.floor(value / 10 + Fraction(1, 2)) * 10


# How a Butler datum ending in 5 is rounded: S2.5's "up" (toward +infinity), or "away" from
# zero (-445 -> -450), which some scoring programs use (docs/decisions.md).
DATUM_HALVES = ("up", "away")


def _round_datum(value: Fraction, halves: str) -> int:
    if halves == "away" and value < 0:
        return -_round_to_ten_half_up(-value)
    if halves not in DATUM_HALVES:
        raise ValueError(f"halves must be one of {DATUM_HALVES}, got {halves!r}")
    return _round_to_ten_half_up(value)


def _trimmed(ns_scores: Sequence[int | Fraction], drop: int) -> list[int | Fraction]:
    """The scores without the ``drop`` highest and lowest; never drops every score."""
    if drop < 0:
        raise ValueError(f"drop must not be negative, got {drop}")
    ordered = sorted(ns_scores)
    keep = min(drop, (len(ordered) - 1) // 2)
    return ordered[keep : len(ordered) - keep]


def butler_datum(ns_scores: Sequence[int | Fraction], drop: int = 0, halves: str = "up") -> int:
    """The Butler datum: mean NS score rounded to 10, a 5 up (S2.5, seed 004 Table F).

    ``drop`` highest and lowest scores are left out first (a club setting); on a board with too
    few scores to drop that many, as many are dropped as leave at least one score. ``halves``
    "away" rounds a negative mean ending in 5 away from zero instead (see DATUM_HALVES).
    """
    if not ns_scores:
        raise ValueError("a Butler datum needs at least one score")
    kept = _trimmed(ns_scores, drop)
    return _round_datum(Fraction(sum(kept)) / len(kept), halves)


def butler_imps(ns_scores: Sequence[int | Fraction], drop: int = 0) -> list[int]:
    """NS Butler IMPs ``IMP(score - datum)`` in input order (S2.5); EW get the negatives."""
    datum = butler_datum(ns_scores, drop)
    return [imps(score - datum) for score in ns_scores]


def cross_imps_exact(ns_scores: Sequence[int | Fraction], average: bool = False) -> list[Fraction]:
    """NS cross-IMPs, exact: each score against every other one (S2.5, seed 004 Table G).

    ``average`` divides the total by the ``n - 1`` comparisons (a lone score gets 0).
    """
    totals = [
        Fraction(sum(imps(score - other) for j, other in enumerate(ns_scores) if j != i))
        for i, score in enumerate(ns_scores)
    ]
    if not average:
        return totals
    comparisons = len(ns_scores) - 1
    return [total / comparisons if comparisons else Fraction(0) for total in totals]


def cross_imps(ns_scores: Sequence[int | Fraction], average: bool = False) -> list[float]:
    """NS cross-IMPs as floats: totals (Table G) or averaged per comparison (S2.5)."""
    return [float(value) for value in cross_imps_exact(ns_scores, average)]
