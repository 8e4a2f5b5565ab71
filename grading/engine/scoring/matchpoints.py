"""Match points, Neuberg and small-group percentages (S2.2, S2.3)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from fractions import Fraction

# --------------------------------------------------------------------------------------------
# Match points and Neuberg (S2.2, S2.3)


def _units_against(score: int | Fraction, other: int | Fraction) -> int:
    """Law 78A: 2 units for a score beaten, 1 for a tie, 0 for a score lost to."""
    if score > other:
        return 2
    return 1 if score == other else 0


def matchpoints(ns_scores: Sequence[int | Fraction]) -> list[int]:
    """NS match points (2 units per score beaten, 1 per tie) in input order (S2.2).

    The readable reference: every score compared with every other one.
    """
    return [
        sum(_units_against(score, other) for j, other in enumerate(ns_scores) if j != i)
        for i, score in enumerate(ns_scores)
    ]


def matchpoints_by_frequency(ns_scores: Sequence[int | Fraction]) -> list[int]:
    """NS match points by the frequency-table method of seed 004 Table D (S2.2).

    From the worst score up: the worst gets ``frequency - 1``; each next score gets the previous
    score's match points plus both frequencies. Equal to :func:`matchpoints`, in n log n.
    """
    frequency = Counter(ns_scores)
    units_for: dict[int | Fraction, int] = {}
    previous_units = previous_frequency = None
    for score in sorted(frequency):
        if previous_units is None or previous_frequency is None:
            units = frequency[score] - 1
        else:
            units = previous_units + previous_frequency + frequency[score]
        units_for[score] = units
        previous_units, previous_frequency = units, frequency[score]
    return [units_for[score] for score in ns_scores]


def ew_matchpoints(ns_scores: Sequence[int | Fraction]) -> list[int]:
    """EW match points on a board without adjustments: ``2(n-1) - NS`` (S2.2)."""
    top = 2 * (len(ns_scores) - 1)
    return [top - units for units in matchpoints_by_frequency(ns_scores)]


def neuberg_exact(mp: int | Fraction, n: int, expected: int) -> Fraction:
    """Neuberg's formula ``(N/n)(mp + 1) - 1``, exact (S2.3, seed 004 Table E)."""
    if n < 1 or expected < 1:
        raise ValueError(f"Neuberg needs at least one score and one expected score, got {n}")
    return Fraction(expected, n) * (Fraction(mp) + 1) - 1


def neuberg(mp: int | Fraction | float, n: int, expected: int) -> float:
    """Neuberg's formula ``MP = (N/n)(mp + 1) - 1`` as a float (S2.3)."""
    return float(neuberg_exact(Fraction(mp), n, expected))


SMALL_GROUP_PLACE_PERCENTAGES: Mapping[int, tuple[int, ...]] = {
    1: (60,),
    2: (65, 55),
    3: (70, 60, 50),
}


def small_group_percentages(scores: Sequence[int | Fraction]) -> list[Fraction]:
    """Artificial percentages for a group of 1-3 scores, best first by place (S2.3).

    ``scores`` are in the side's own sign (higher is better). Tied scores share the average of
    the places they span (2 tied: 60 % each).
    """
    places = SMALL_GROUP_PLACE_PERCENTAGES.get(len(scores))
    if places is None:
        raise ValueError(f"small groups have 1 to 3 scores, got {len(scores)}")
    result = []
    for score in scores:
        first = sum(1 for other in scores if other > score)
        span = sum(1 for other in scores if other == score)
        result.append(Fraction(sum(places[first : first + span]), span))
    return result
