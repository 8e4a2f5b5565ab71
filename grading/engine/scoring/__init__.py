"""Scoring engine (SPEC S2): match points, Neuberg, adjusted, split and weighted scores,
Butler, cross-IMPs and aggregate. Pure Python, exact arithmetic where it matters.

Sign convention: every score on a :class:`TravellerLine` is in NS points (NS sign). Results are
returned from each side's own point of view (an EW pair that beats the field has a positive
Butler score and many match points).
"""

from __future__ import annotations

import enum
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product

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
    "matchpoints_by_frequency",
    "neuberg",
    "neuberg_exact",
    "ns_outcome",
    "parse_adjusted_score",
    "score_board",
    "score_session",
    "small_group_percentages",
]

Weighting = tuple[tuple[Fraction, int], ...]


@dataclass(frozen=True)
class TravellerLine:
    """One table's result on one board (S1). Scores are in NS points (NS sign).

    A plain result sets ``ns_score``. An artificial adjusted score sets ``ns_adjusted`` /
    ``ew_adjusted`` to a code read by :func:`parse_adjusted_score` (``A60``, ``AVE-``, or a
    combined ``A6040`` meaning NS 60 %, EW 40 %; S2.4). A code on one side only gives the other
    side the complement (``A60`` alone: EW 40 %) unless that side has its own score. A split
    score (S2.6) sets ``ew_score`` to the EW side's own score, still in NS sign (seed 004 Table H:
    NS -400, EW "-690" from EW's seat, so ``ew_score=690``). A weighted score (Law 12C1c) sets
    ``ns_weighted`` (and ``ew_weighted`` when the sides differ) to ``((weight, ns_points), ...)``
    with weights summing to 1. ``group`` separates the comparison groups of a fouled board
    (S2.3): lines with different groups are never compared with each other.
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
    group: str = ""


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


# --------------------------------------------------------------------------------------------
# Adjusted-score codes (S2.4)

_PERCENT_CODE = re.compile(r"A(\d\d)(?:[/-]?(\d\d))?")
_AVERAGE_CODE = re.compile(r"(?:AVE|AVG|AV)([+=-]?)")
_AVERAGE_PERCENT = {"+": 60, "": 50, "=": 50, "-": 40}


def parse_adjusted_score(code: str) -> tuple[int, int | None]:
    """Read an artificial adjusted score code (S2.4).

    Returns ``(percent, None)`` for a one-side code (``A60``, ``A50``, ``A40``, ``AVE+``,
    ``AVE``, ``AVE-``; also ``AV``/``AVG`` spellings) and ``(ns_percent, ew_percent)`` for a
    combined code written NS first (``A6040``, ``A5050``, ``A60/40``). Case and surrounding
    spaces are ignored. Raises ``ValueError`` for anything else.
    """
    text = code.strip().upper()
    average = _AVERAGE_CODE.fullmatch(text)
    if average:
        return _AVERAGE_PERCENT[average.group(1)], None
    percent = _PERCENT_CODE.fullmatch(text)
    if percent:
        second = percent.group(2)
        return int(percent.group(1)), int(second) if second is not None else None
    raise ValueError(f"not an artificial adjusted score: {code!r}")


def is_adjusted_score(code: str) -> bool:
    """True when ``code`` is an artificial adjusted score :func:`parse_adjusted_score` reads."""
    try:
        parse_adjusted_score(code)
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------------------------
# One side of one traveller line


@dataclass(frozen=True)
class SideOutcome:
    """What one side of a line scored: an artificial percentage, or points with weights.

    A plain score is one component of weight 1; a weighted score several (S2.6). Points are in
    NS sign.
    """

    percent: int | None = None
    components: Weighting = ()

    @property
    def is_artificial(self) -> bool:
        return self.percent is not None


def _exact_weight(weight: Fraction | int | float | str) -> Fraction:
    # Floats such as 0.1 are meant as the decimal a person typed, not the binary value.
    return Fraction(str(weight)) if isinstance(weight, float) else Fraction(weight)


def _weighted_outcome(weighted: Iterable[tuple[Fraction, int]]) -> SideOutcome:
    components = tuple((_exact_weight(weight), int(points)) for weight, points in weighted)
    if any(weight <= 0 for weight, _ in components):
        raise ValueError(f"weights must be positive: {components}")
    if sum(weight for weight, _ in components) != 1:
        raise ValueError(f"weights must sum to 1: {components}")
    return SideOutcome(components=components)


def _side_outcome(
    side: int,
    own: tuple[Weighting, str | None, int | None],
    other: tuple[Weighting, str | None, int | None],
    where: str,
) -> SideOutcome:
    """One side's outcome: its own entry if it has one, else what the other side's implies."""
    own_weighted, own_adjusted, own_score = own
    given = sum((bool(own_weighted), own_adjusted is not None, own_score is not None))
    if given > 1:
        raise ValueError(f"{where}: a side has more than one of score, adjusted, weighted")
    if own_weighted:
        return _weighted_outcome(own_weighted)
    if own_adjusted is not None:
        first, second = parse_adjusted_score(own_adjusted)
        return SideOutcome(percent=(first, second)[side] if second is not None else first)
    if own_score is not None:
        return SideOutcome(components=((Fraction(1), int(own_score)),))
    other_weighted, other_adjusted, other_score = other
    if other_weighted:
        return _weighted_outcome(other_weighted)
    if other_adjusted is not None:
        first, second = parse_adjusted_score(other_adjusted)
        return SideOutcome(percent=(first, second)[side] if second is not None else 100 - first)
    if other_score is not None:
        return SideOutcome(components=((Fraction(1), int(other_score)),))
    raise ValueError(f"{where}: the line has no score")


def _where(line: TravellerLine) -> str:
    return f"board {line.board}, NS {line.ns_pair} v EW {line.ew_pair}"


def ns_outcome(line: TravellerLine) -> SideOutcome:
    """The NS side's outcome on a line (S2.4, S2.6)."""
    return _side_outcome(
        0,
        (line.ns_weighted, line.ns_adjusted, line.ns_score),
        (line.ew_weighted, line.ew_adjusted, line.ew_score),
        _where(line),
    )


def ew_outcome(line: TravellerLine) -> SideOutcome:
    """The EW side's outcome on a line (S2.4, S2.6); points still in NS sign."""
    return _side_outcome(
        1,
        (line.ew_weighted, line.ew_adjusted, line.ew_score),
        (line.ns_weighted, line.ns_adjusted, line.ns_score),
        _where(line),
    )


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
class _GroupScores:
    values: list[Fraction]
    datum: int | None = None
    mean: Fraction | None = None


def _mp_group(
    outcomes: Sequence[SideOutcome], sign: int, expected: int, small_group_max: int
) -> _GroupScores:
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
    return _GroupScores(values)


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


def _butler_group(
    outcomes: Sequence[SideOutcome], sign: int, drop: int, halves: str = "up"
) -> _GroupScores:
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
    return _GroupScores(values, datum=datum_shown)


def _cross_imp_group(outcomes: Sequence[SideOutcome], sign: int) -> _GroupScores:
    """Cross-IMPs averaged per comparison in one comparison group (S2.5)."""
    real = [i for i, outcome in enumerate(outcomes) if not outcome.is_artificial]
    totals = _expected_cross_imps([_own_sign(outcomes[i], sign) for i in real])
    comparisons = len(real) - 1
    values = [
        artificial_imps(o.percent) if o.percent is not None else Fraction(0) for o in outcomes
    ]
    for i, total in zip(real, totals, strict=True):
        values[i] = total / comparisons if comparisons else Fraction(0)
    return _GroupScores(values)


AGGREGATE_POINTS_PER_PERCENT = Fraction(41, 5)  # the NGS's 8.2 points per board per % (S3.3)


def _aggregate_group(
    outcomes: Sequence[SideOutcome], sign: int, points_per_percent: Fraction
) -> _GroupScores:
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
    return _GroupScores(values, mean=mean)


# --------------------------------------------------------------------------------------------
# Scoring a board


class Method(enum.StrEnum):
    """How a board is scored; the values are the CSV ``scoring`` codes (S12.1)."""

    MP = "MP"  # match points, 2 units per score beaten
    BUTLER = "BUTLER"  # IMPs against the datum
    CROSS_IMP = "CROSS_IMP"  # IMPs against every other score, averaged per comparison
    AGGREGATE = "AGGREGATE"  # total points


@dataclass(frozen=True)
class LineResult:
    """One line's NS and EW results in the method's units, each from its own side (S2).

    MP: match-point units on a top of ``top``; BUTLER: IMPs against ``ns_datum``/``ew_datum``;
    CROSS_IMP: IMPs averaged per comparison; AGGREGATE: points, with the mean of the side's
    comparison group in ``ns_mean``/``ew_mean``.
    """

    board: int
    ns_pair: str
    ew_pair: str
    ns: Fraction
    ew: Fraction
    ns_artificial: bool = False
    ew_artificial: bool = False
    top: Fraction | None = None
    ns_datum: int | None = None
    ew_datum: int | None = None
    ns_mean: Fraction | None = None
    ew_mean: Fraction | None = None

    @property
    def ns_percent(self) -> Fraction | None:
        """NS match-point percentage (MP with a non-zero top), else None."""
        return self.ns * 100 / self.top if self.top else None

    @property
    def ew_percent(self) -> Fraction | None:
        """EW match-point percentage (MP with a non-zero top), else None."""
        return self.ew * 100 / self.top if self.top else None


@dataclass(frozen=True)
class BoardResult:
    """A scored traveller: the lines in input order (S2)."""

    board: int
    method: Method
    expected: int
    top: Fraction | None
    lines: tuple[LineResult, ...]


def _validate_traveller(lines: Sequence[TravellerLine]) -> None:
    if not lines:
        raise ValueError("a traveller needs at least one line")
    boards = {line.board for line in lines}
    if len(boards) > 1:
        raise ValueError(f"a traveller holds one board, got boards {sorted(boards)}")
    seen: set[str] = set()
    for line in lines:
        if line.ns_pair == line.ew_pair:
            raise ValueError(f"{_where(line)}: a pair cannot play itself")
        for pair in (line.ns_pair, line.ew_pair):
            if pair in seen:
                raise ValueError(f"board {line.board}: pair {pair} appears twice")
            seen.add(pair)


def _score_group(
    outcomes: Sequence[SideOutcome],
    sign: int,
    method: Method,
    expected: int,
    drop: int,
    small_group_max: int,
    points_per_percent: Fraction,
    halves: str = "up",
) -> _GroupScores:
    if method is Method.MP:
        return _mp_group(outcomes, sign, expected, small_group_max)
    if method is Method.BUTLER:
        return _butler_group(outcomes, sign, drop, halves)
    if method is Method.CROSS_IMP:
        return _cross_imp_group(outcomes, sign)
    return _aggregate_group(outcomes, sign, points_per_percent)


def score_board(
    lines: Sequence[TravellerLine],
    method: Method | str,
    expected: int | None = None,
    *,
    drop: int = 0,
    small_group_max: int = 3,
    points_per_percent: Fraction = AGGREGATE_POINTS_PER_PERCENT,
    halves: str = "up",
) -> BoardResult:
    """Score one traveller (S2.2-S2.6).

    NS sides are compared with NS sides and EW sides with EW sides, within each ``group``;
    artificial scores stay out of the comparisons. ``expected`` is the number of scores the
    board should have had (default: the lines given); at match points each group is Neuberg-
    factored to it, or given S2.3's artificial percentages when it has 1 to
    ``small_group_max`` scores (0 turns that off). ``drop`` is the Butler trimming setting,
    ``halves`` the Butler datum's rounding of a 5 (``butler_datum``).
    """
    method = Method(method)
    _validate_traveller(lines)
    expected = len(lines) if expected is None else expected
    if expected < len(lines):
        raise ValueError(f"board {lines[0].board}: expected {expected} < {len(lines)} lines")
    ns_sides = [ns_outcome(line) for line in lines]
    ew_sides = [ew_outcome(line) for line in lines]
    groups: dict[str, list[int]] = defaultdict(list)
    for i, line in enumerate(lines):
        groups[line.group].append(i)
    ns_scores: dict[int, tuple[Fraction, _GroupScores]] = {}
    ew_scores: dict[int, tuple[Fraction, _GroupScores]] = {}
    for members in groups.values():
        for sides, sign, into in ((ns_sides, 1, ns_scores), (ew_sides, -1, ew_scores)):
            group = _score_group(
                [sides[i] for i in members],
                sign,
                method,
                expected,
                drop,
                small_group_max,
                Fraction(points_per_percent),
                halves,
            )
            for i, value in zip(members, group.values, strict=True):
                into[i] = (value, group)
    top = Fraction(2 * (expected - 1)) if method is Method.MP else None
    results = []
    for i, line in enumerate(lines):
        ns_value, ns_group = ns_scores[i]
        ew_value, ew_group = ew_scores[i]
        results.append(
            LineResult(
                board=line.board,
                ns_pair=line.ns_pair,
                ew_pair=line.ew_pair,
                ns=ns_value,
                ew=ew_value,
                ns_artificial=ns_sides[i].is_artificial,
                ew_artificial=ew_sides[i].is_artificial,
                top=top,
                ns_datum=ns_group.datum,
                ew_datum=ew_group.datum,
                ns_mean=ns_group.mean,
                ew_mean=ew_group.mean,
            )
        )
    return BoardResult(lines[0].board, method, expected, top, tuple(results))


# --------------------------------------------------------------------------------------------
# Scoring a session


@dataclass(frozen=True)
class PairSessionResult:
    """A pair's session in the method's units over the boards it played (S2, S3.3, S3.7).

    ``total``: MP units, Butler IMPs, the sum of per-board cross-IMP averages, or points.
    ``top``: MP only, the sum of the tops of the boards played. ``direction_mean``: aggregate
    only, the sum over boards played of the mean of the direction the pair sat. Artificial
    scores count as boards played.
    """

    pair: str
    method: Method
    boards_played: int
    total: Fraction
    top: Fraction | None = None
    direction_mean: Fraction | None = None
    directions: frozenset[str] = frozenset()

    @property
    def percentage_exact(self) -> Fraction | None:
        """MP only: ``total / top x 100``."""
        return self.total * 100 / self.top if self.top else None

    @property
    def percentage(self) -> float | None:
        """MP only: ``total / top x 100`` as a float."""
        exact = self.percentage_exact
        return float(exact) if exact is not None else None

    @property
    def per_board(self) -> Fraction:
        """The total divided by the boards played."""
        return self.total / self.boards_played


def group_by_board(lines: Iterable[TravellerLine]) -> dict[int, tuple[TravellerLine, ...]]:
    """A flat list of traveller lines as travellers, keyed by board number, in order seen."""
    boards: dict[int, list[TravellerLine]] = defaultdict(list)
    for line in lines:
        boards[line.board].append(line)
    return {board: tuple(board_lines) for board, board_lines in boards.items()}


def _travellers(
    boards: Iterable[Sequence[TravellerLine] | TravellerLine]
    | Mapping[int, Sequence[TravellerLine]],
) -> list[Sequence[TravellerLine]]:
    items = list(boards.values()) if isinstance(boards, Mapping) else list(boards)
    if items and all(isinstance(item, TravellerLine) for item in items):
        return list(
            group_by_board(item for item in items if isinstance(item, TravellerLine)).values()
        )
    travellers: list[Sequence[TravellerLine]] = []
    for item in items:
        if isinstance(item, TravellerLine):
            raise TypeError("give either travellers or a flat list of lines, not both")
        travellers.append(item)
    numbers = [traveller[0].board for traveller in travellers if traveller]
    if len(numbers) != len(set(numbers)):
        raise ValueError("a board appears in more than one traveller")
    return [traveller for traveller in travellers if traveller]


@dataclass
class _Tally:
    boards: int = 0
    total: Fraction = Fraction(0)
    top: Fraction = Fraction(0)
    mean: Fraction = Fraction(0)
    directions: set[str] = field(default_factory=set)

    def add(
        self, value: Fraction, top: Fraction | None, mean: Fraction | None, direction: str
    ) -> None:
        self.boards += 1
        self.total += value
        self.top += top or 0
        self.mean += mean or 0
        self.directions.add(direction)


def score_session(
    boards: Iterable[Sequence[TravellerLine] | TravellerLine]
    | Mapping[int, Sequence[TravellerLine]],
    method: Method | str,
    *,
    expected: int | Mapping[int, int] | None = None,
    drop: int = 0,
    small_group_max: int = 3,
    points_per_percent: Fraction = AGGREGATE_POINTS_PER_PERCENT,
    halves: str = "up",
) -> dict[str, PairSessionResult]:
    """Per-pair session results keyed by pair id (S2, S3.3, S3.7).

    ``boards`` is travellers (sequences of lines, or a mapping board -> lines) or one flat list
    of lines. A pair may sit NS on some boards and EW on others (one-winner movements); in
    two-winner movements the caller gives NS and EW pairs distinct ids. At match points every
    board is Neuberg-factored to ``expected`` scores: by default the most lines any board of the
    session has, so boards played fewer times weigh the same (S2.3); an int or a per-board
    mapping overrides it.
    """
    method = Method(method)
    travellers = _travellers(boards)
    most_lines = max((len(traveller) for traveller in travellers), default=0)
    tallies: dict[str, _Tally] = defaultdict(_Tally)
    for traveller in travellers:
        board = traveller[0].board
        if isinstance(expected, Mapping):
            board_expected = expected.get(board, most_lines)
        else:
            board_expected = most_lines if expected is None else expected
        if method is not Method.MP:
            board_expected = len(traveller)
        result = score_board(
            traveller,
            method,
            board_expected,
            drop=drop,
            small_group_max=small_group_max,
            points_per_percent=points_per_percent,
            halves=halves,
        )
        for line in result.lines:
            tallies[line.ns_pair].add(line.ns, line.top, line.ns_mean, "NS")
            tallies[line.ew_pair].add(line.ew, line.top, line.ew_mean, "EW")
    return {
        pair: PairSessionResult(
            pair=pair,
            method=method,
            boards_played=tally.boards,
            total=tally.total,
            top=tally.top if method is Method.MP else None,
            direction_mean=tally.mean if method is Method.AGGREGATE else None,
            directions=frozenset(tally.directions),
        )
        for pair, tally in tallies.items()
    }


def mp_percentages_real_top(
    boards: Iterable[Sequence[TravellerLine] | TravellerLine]
    | Mapping[int, Sequence[TravellerLine]],
) -> dict[str, Fraction]:
    """Match-point percentages as some scoring programs compute them (BriAn), NOT S2.3/S2.4:
    each board's top counts its real scores only (``2(n - 1)``, no Neuberg factoring), an
    artificial score gets its percentage of that top, and a pair's percentage is its match
    points over the sum of its boards' tops. Used only to recognise such files' totals
    (``grading.ingest.crosscheck``); grading uses the file's totals (docs/decisions.md)."""
    points: dict[str, Fraction] = defaultdict(Fraction)
    tops: dict[str, Fraction] = defaultdict(Fraction)
    for traveller in _travellers(boards):
        artificial = [
            line
            for line in traveller
            if ns_outcome(line).is_artificial or ew_outcome(line).is_artificial
        ]
        real = [line for line in traveller if line not in artificial]
        top = Fraction(2 * max(len(real) - 1, 0))
        if real:
            for result in score_board(real, Method.MP, small_group_max=0).lines:
                points[result.ns_pair] += result.ns
                points[result.ew_pair] += result.ew
        for line in artificial:
            for pair, side in ((line.ns_pair, ns_outcome(line)), (line.ew_pair, ew_outcome(line))):
                points[pair] += Fraction(side.percent or 0, 100) * top
        for line in traveller:
            tops[line.ns_pair] += top
            tops[line.ew_pair] += top
    return {pair: 100 * points[pair] / tops[pair] for pair in points if tops[pair]}
