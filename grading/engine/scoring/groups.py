"""Scoring one comparison group (one direction of one group of lines), weighted scores
included (S2.2-S2.6): match points, Butler, cross-IMPs, aggregate."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product

from grading.engine.scoring.imps import artificial_imps, butler_datum, imps
from grading.engine.scoring.lines import SideOutcome
from grading.engine.scoring.matchpoints import neuberg_exact, small_group_percentages

# --------------------------------------------------------------------------------------------
# Scoring one comparison group (one direction of one group of lines)

Distribution = list[tuple[Fraction, Fraction]]  # (weight, points in the side's own sign)


def _own_sign(outcome: SideOutcome, sign: int) -> Distribution:
    return [(weight, Fraction(sign * points)) for weight, points in outcome.components]


def _total_weights(distributions: Iterable[Distribution]) -> dict[Fraction, Fraction]:
    mass: dict[Fraction, Fraction] = defaultdict(Fraction)
    for distribution in distributions:
        for weight, points in distribution:
            mass[points] += weight
    return mass


def _expected_units(distributions: Sequence[Distribution]) -> list[Fraction]:
    """Each entry's expected match points against the others (weighted frequency table).

    Weighted scores are independent draws, so the expectation is the weighted sum of pairwise
    comparisons: seed 004 Tables I and K, computed without enumerating the frequency tables.
    """
    mass = _total_weights(distributions)
    below: dict[Fraction, Fraction] = {}
    running = Fraction(0)
    for points in sorted(mass):
        below[points] = running
        running += mass[points]

    def units_of(distribution: Distribution) -> Fraction:
        own = _total_weights([distribution])
        units = Fraction(0)
        for weight, points in distribution:
            own_below = sum((w for p, w in own.items() if p < points), Fraction(0))
            beaten = below[points] - own_below
            tied = mass[points] - own[points]
            units += weight * (2 * beaten + tied)
        return units

    return _once_per_distinct(distributions, units_of)


def _expected_cross_imps(distributions: Sequence[Distribution]) -> list[Fraction]:
    """Each entry's expected cross-IMP total against the others (S2.5, S2.6)."""
    mass = _total_weights(distributions)

    def total_of(distribution: Distribution) -> Fraction:
        own = _total_weights([distribution])
        total = Fraction(0)
        for weight, points in distribution:
            against_all = sum(w * imps(points - p) for p, w in mass.items())
            against_self = sum(w * imps(points - p) for p, w in own.items())
            total += weight * (against_all - against_self)
        return total

    return _once_per_distinct(distributions, total_of)


def _once_per_distinct(
    distributions: Sequence[Distribution], compute: Callable[[Distribution], Fraction]
) -> list[Fraction]:
    """``compute`` for each entry, once per distinct distribution (big fields repeat scores)."""
    cache: dict[tuple[tuple[Fraction, Fraction], ...], Fraction] = {}
    result = []
    for distribution in distributions:
        key = tuple(distribution)
        if key not in cache:
            cache[key] = compute(distribution)
        result.append(cache[key])
    return result


@dataclass(frozen=True)
class GroupScores:
    values: list[Fraction]
    datum: int | None = None
    mean: Fraction | None = None


def mp_group(
    outcomes: Sequence[SideOutcome], sign: int, expected: int, small_group_max: int
) -> GroupScores:
    """Match points in one comparison group, factored to ``expected`` scores (S2.2-S2.4)."""
    top = Fraction(2 * (expected - 1))
    real = [i for i, outcome in enumerate(outcomes) if not outcome.is_artificial]
    units = _expected_units([_own_sign(outcomes[i], sign) for i in real])
    n = len(real)
    if 0 < n < expected and n <= small_group_max:
        percentages = _small_group_expected([_own_sign(outcomes[i], sign) for i in real])
        factored = [pct * top / 100 for pct in percentages]
    elif 0 < n < expected:
        factored = [neuberg_exact(u, n, expected) for u in units]
    else:
        factored = units
    values = [Fraction(0)] * len(outcomes)
    for i, value in zip(real, factored, strict=True):
        values[i] = value
    for i, outcome in enumerate(outcomes):
        if outcome.percent is not None:
            values[i] = Fraction(outcome.percent, 100) * top
    return GroupScores(values)


def _small_group_expected(distributions: Sequence[Distribution]) -> list[Fraction]:
    """S2.3's place percentages, weighted over the weighted scores' components (S2.6). Places
    are not linear in the comparisons (as Neuberg's factoring is), so each combination of
    components is placed on its own: a group has at most 3 scores, so they are few."""
    result = [Fraction(0)] * len(distributions)
    for combination in product(*distributions):
        probability = math.prod((weight for weight, _ in combination), start=Fraction(1))
        placed = small_group_percentages([points for _, points in combination])
        for i, percentage in enumerate(placed):
            result[i] += probability * percentage
    return result


MAX_WEIGHTED_COMBINATIONS = 100_000  # Butler enumerates them; real boards have one or two


def butler_group(
    outcomes: Sequence[SideOutcome], sign: int, drop: int, halves: str = "up"
) -> GroupScores:
    """Butler IMPs in one comparison group (S2.5); weighted scores weight the IMPs (S2.6).

    The datum depends on which component of each weighted score is taken, so every combination
    is scored with its own datum and weighted by its probability.
    """
    real = [i for i, outcome in enumerate(outcomes) if not outcome.is_artificial]
    if math.prod(len(outcomes[i].components) for i in real) > MAX_WEIGHTED_COMBINATIONS:
        raise ValueError("too many weighted scores on one board to score at Butler")
    values = [
        artificial_imps(o.percent) if o.percent is not None else Fraction(0) for o in outcomes
    ]
    # A group of artificial scores only has no datum: each gets its 3 IMPs per 10 % (S2.4).
    for combination in product(*(outcomes[i].components for i in real)) if real else ():
        probability = math.prod((weight for weight, _ in combination), start=Fraction(1))
        points = [ns_points for _, ns_points in combination]
        datum = butler_datum(points, drop, halves)
        for i, ns_points in zip(real, points, strict=True):
            values[i] += probability * sign * imps(ns_points - datum)
    unweighted = all(len(outcomes[i].components) == 1 for i in real)
    datum_shown = None
    if real and unweighted:
        datum_shown = butler_datum([outcomes[i].components[0][1] for i in real], drop, halves)
    return GroupScores(values, datum=datum_shown)


def cross_imp_group(outcomes: Sequence[SideOutcome], sign: int) -> GroupScores:
    """Cross-IMPs averaged per comparison in one comparison group (S2.5)."""
    real = [i for i, outcome in enumerate(outcomes) if not outcome.is_artificial]
    totals = _expected_cross_imps([_own_sign(outcomes[i], sign) for i in real])
    comparisons = len(real) - 1
    values = [
        artificial_imps(o.percent) if o.percent is not None else Fraction(0) for o in outcomes
    ]
    for i, total in zip(real, totals, strict=True):
        values[i] = total / comparisons if comparisons else Fraction(0)
    return GroupScores(values)


AGGREGATE_POINTS_PER_PERCENT = Fraction(41, 5)  # the NGS's 8.2 points per board per % (S3.3)


def aggregate_group(
    outcomes: Sequence[SideOutcome], sign: int, points_per_percent: Fraction
) -> GroupScores:
    """Total points in one comparison group, with the group's mean (S2.5 aggregate).

    An artificial score gets the mean of the real scores plus ``points_per_percent`` for every
    percent above 50 (so A60 is worth what the NGS counts as 10 % above average).
    """
    expected_points = [
        sum((weight * points for weight, points in _own_sign(o, sign)), Fraction(0))
        for o in outcomes
    ]
    real = [
        points for o, points in zip(outcomes, expected_points, strict=True) if not o.is_artificial
    ]
    mean = sum(real, Fraction(0)) / len(real) if real else Fraction(0)
    values = [
        mean + points_per_percent * (o.percent - 50) if o.percent is not None else points
        for o, points in zip(outcomes, expected_points, strict=True)
    ]
    return GroupScores(values, mean=mean)
