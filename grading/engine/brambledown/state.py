"""Brambledown's state (SPEC S11): each member's grade, first performances, quarter IPRs,
tournaments and partners, and each pair's tournaments together. Frozen dataclasses."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from grading.engine.brambledown.quarter import Quarter


def pair_key(a: str, b: str) -> tuple[str, str]:
    """The order-free key of two members."""
    return (a, b) if a <= b else (b, a)


@dataclass(frozen=True)
class GradePoint:
    """One value of a member's grade history: ``grade`` from ``date`` on, set by ``reason``
    (``"new"``: after three performances; ``"regrade"``: at the end of ``quarter``)."""

    date: dt.date
    quarter: Quarter
    grade: int
    reason: str


@dataclass(frozen=True)
class BrambledownPlayer:
    """One member's state (S11).

    ``grade`` is None while the member is new (fewer than three performances, kept in
    ``first_iprs``); ``quarter_iprs`` are the IPRs earned with a grade in the open quarter;
    ``tournaments`` counts graded tournaments (sessions with an IPR); ``partners`` lists, per
    quarter, the partners of those tournaments.
    """

    number: str
    grade: int | None = None
    first_iprs: tuple[float, ...] = ()
    quarter_iprs: tuple[float, ...] = ()
    tournaments: int = 0
    quarters: tuple[tuple[Quarter, int], ...] = ()  # graded tournaments per quarter, sorted
    partners: tuple[tuple[Quarter, tuple[str, ...]], ...] = ()  # sorted by quarter
    history: tuple[GradePoint, ...] = ()

    @property
    def new(self) -> bool:
        return self.grade is None

    def tournaments_in(self, quarter: Quarter) -> int:
        return _count_in(self.quarters, quarter)

    def partners_in(self, quarters: Iterable[Quarter]) -> frozenset[str]:
        wanted = set(quarters)
        if not wanted:
            return frozenset()
        earliest = min(wanted)
        found: set[str] = set()
        for q, names in reversed(self.partners):  # sorted by quarter: the latest first
            if q < earliest:
                break
            if q in wanted:
                found.update(names)
        return frozenset(found)


@dataclass(frozen=True)
class PairRecord:
    """Two members' graded tournaments together, in total and per quarter."""

    players: tuple[str, str]
    tournaments: int = 0
    quarters: tuple[tuple[Quarter, int], ...] = ()

    def tournaments_in(self, quarter: Quarter) -> int:
        return _count_in(self.quarters, quarter)


def _count_in(counts: tuple[tuple[Quarter, int], ...], quarter: Quarter) -> int:
    """A quarter's count in a table sorted by quarter (as the fold keeps every table): the
    last entry is the quarter just closed, or a quarter before it (issue 18: every member and
    pair is asked at every regrade)."""
    if not counts:
        return 0
    last, n = counts[-1]
    if last is quarter or (last.year == quarter.year and last.q == quarter.q):
        return n
    if (last.year, last.q) < (quarter.year, quarter.q):
        return 0
    return sum(count for q, count in counts if q == quarter)


@dataclass(frozen=True)
class BrambledownState:
    """Every member's Brambledown state. ``quarter`` is the open quarter (sessions recorded,
    not yet regraded; None before the first session); ``regraded`` the last quarter closed."""

    players: Mapping[str, BrambledownPlayer] = field(default_factory=dict)
    pairs: Mapping[tuple[str, str], PairRecord] = field(default_factory=dict)
    quarter: Quarter | None = None
    regraded: Quarter | None = None

    def player(self, number: str) -> BrambledownPlayer:
        return self.players.get(number) or BrambledownPlayer(number)

    def grade(self, number: str) -> int | None:
        """A member's current grade; None while new."""
        return self.player(number).grade


def brambledown_initial(grades: Mapping[str, int]) -> BrambledownState:
    """A state whose members start with the given grades (e.g. a club's existing list, or
    :func:`initial_grade` of their NGS grades). Without it, every member starts new."""
    players = {n: BrambledownPlayer(n, grade=int(g)) for n, g in sorted(grades.items())}
    return BrambledownState(players=players)
