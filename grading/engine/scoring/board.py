"""Scoring one board (S2): the method, each line's result and the scored traveller."""

from __future__ import annotations

import enum
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from grading.engine.scoring.groups import (
    AGGREGATE_POINTS_PER_PERCENT,
    GroupScores,
    aggregate_group,
    butler_group,
    cross_imp_group,
    mp_group,
)
from grading.engine.scoring.lines import (
    SideOutcome,
    TravellerLine,
    ew_outcome,
    line_where,
    ns_outcome,
)

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
            raise ValueError(f"{line_where(line)}: a pair cannot play itself")
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
) -> GroupScores:
    if method is Method.MP:
        return mp_group(outcomes, sign, expected, small_group_max)
    if method is Method.BUTLER:
        return butler_group(outcomes, sign, drop, halves)
    if method is Method.CROSS_IMP:
        return cross_imp_group(outcomes, sign)
    return aggregate_group(outcomes, sign, points_per_percent)


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
    ns_scores: dict[int, tuple[Fraction, GroupScores]] = {}
    ew_scores: dict[int, tuple[Fraction, GroupScores]] = {}
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
