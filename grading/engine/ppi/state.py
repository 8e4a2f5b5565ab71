"""PPI's state (SPEC S10): a member's PPI, boards and month table, the standing a card shows,
and what one event changed. Frozen dataclasses; nothing is mutated."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field

from grading.engine.ppi.formulas import (
    ACTIVE_BOARDS,
    NEW_PPI,
    SHOWN_AFTER,
    W_MONTHS,
    Suit,
    ppi_suit,
)


def month_index(day: dt.date) -> int:
    """A calendar month as one integer (``year * 12 + month - 1``)."""
    return day.year * 12 + day.month - 1


@dataclass(frozen=True)
class PPIPoint:
    """One value of a player's PPI history: after event ``seq`` (dated ``date``), ``boards``
    counted in that event, ``total_boards`` since the start."""

    seq: int
    date: dt.date
    ppi: float
    boards: int
    total_boards: int


@dataclass(frozen=True)
class PPIPlayer:
    """One member's PPI state (S10).

    ``boards`` is ``k`` before the next event; ``months`` holds qualifying boards per calendar
    month (:func:`month_index`, boards), sorted, for ``w`` and the active test; ``history`` is
    every value written, in processing order.
    """

    number: str
    ppi: float = NEW_PPI
    boards: int = 0
    months: tuple[tuple[int, int], ...] = ()
    history: tuple[PPIPoint, ...] = ()

    def boards_in_months(self, first: int, last: int) -> int:
        """Qualifying boards in calendar months ``first..last`` (month indexes, inclusive)."""
        return sum(count for month, count in self.months if first <= month <= last)

    def w_for(self, day: dt.date) -> int:
        """``w`` for an event on ``day``: boards in the 3 calendar months before ``day``'s month
        (recomputed at each month start, so constant within a month)."""
        current = month_index(day)
        return self.boards_in_months(current - W_MONTHS, current - 1)

    def recent_boards(self, as_of: dt.date) -> int:
        """Boards in the last 3 calendar months as of ``as_of``: its month and the 2 before."""
        current = month_index(as_of)
        return self.boards_in_months(current - W_MONTHS + 1, current)

    @property
    def shown(self) -> bool:
        """A PPI is shown after 50 qualifying boards (seed 002)."""
        return self.boards >= SHOWN_AFTER

    def active(self, as_of: dt.date) -> bool:
        """At least 50 qualifying boards in the last 3 calendar months (seed 002)."""
        return self.recent_boards(as_of) >= ACTIVE_BOARDS


@dataclass(frozen=True)
class PPIState:
    """Every member's PPI state after ``seq`` events. Never mutated: each step makes a new
    state (the players' mapping is a fresh dict sharing the unchanged players)."""

    players: Mapping[str, PPIPlayer] = field(default_factory=dict)
    seq: int = 0

    def player(self, number: str) -> PPIPlayer:
        """A member's state; a member never seen is a newcomer at 50 with no boards."""
        return self.players.get(number) or PPIPlayer(number)


@dataclass(frozen=True)
class PPIStanding:
    """What a grade card or list shows of a member's PPI as of a date (S10)."""

    number: str
    ppi: float
    boards: int
    recent_boards: int
    shown: bool
    active: bool
    suit: Suit


def ppi_standing(state: PPIState, number: str, as_of: dt.date) -> PPIStanding:
    """A member's PPI, boards, shown/active flags and suit as of ``as_of``."""
    player = state.player(number)
    return PPIStanding(
        number=number,
        ppi=player.ppi,
        boards=player.boards,
        recent_boards=player.recent_boards(as_of),
        shown=player.shown,
        active=player.active(as_of),
        suit=ppi_suit(player.ppi),
    )


def ppi_list(state: PPIState, as_of: dt.date, *, active_only: bool = False) -> list[PPIStanding]:
    """Members whose PPI is shown, best first (ties by number). Privacy (S7) is the caller's."""
    standings = [
        ppi_standing(state, number, as_of)
        for number, player in state.players.items()
        if player.shown
    ]
    if active_only:
        standings = [s for s in standings if s.active]
    return sorted(standings, key=lambda s: (-s.ppi, s.number))


class PPIReason:
    """Why a session changes no PPI, or how a pair's boards were counted."""

    NOT_GRADED = "session not graded"
    NOT_MP = "not match-pointed: no PPI"
    NO_BOARDS = "no qualifying boards"
    BOARD_BY_BOARD = "board by board"
    SESSION_LEVEL = "session level"


@dataclass(frozen=True)
class PPIChange:
    """One member's change in an event: ``before`` -> ``after`` over ``boards`` qualifying
    boards; ``k`` and ``w`` at the start of the event; ``mode`` says how it was computed."""

    number: str
    before: float
    after: float
    boards: int
    k: int
    w: int
    mode: str

    @property
    def change(self) -> float:
        return self.after - self.before


@dataclass(frozen=True)
class PPIEventResult:
    """What one event did: ``reason`` is "" when it was rated; ``changes`` by member number."""

    seq: int
    date: dt.date
    reason: str
    changes: tuple[PPIChange, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class PPIStep:
    """The state after one event and what the event changed (for the Django layer to store)."""

    state: PPIState
    result: PPIEventResult
