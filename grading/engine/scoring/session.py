"""Scoring a session (S2, S3.3, S3.7): pair totals over the boards each pair played."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from grading.engine.scoring.board import Method, score_board
from grading.engine.scoring.groups import AGGREGATE_POINTS_PER_PERCENT
from grading.engine.scoring.lines import TravellerLine, ew_outcome, ns_outcome

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
