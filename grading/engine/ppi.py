"""Bridge Club Live's Past Performance Indicator (SPEC S10, seed 002): a pure engine.

Standard library only: no Django, no clock, no settings. Three layers:

* the seed's formulas: :func:`ppi_weight` (``m``), :func:`ppi_update` (one board),
  :func:`ppi_par` (the percentage that leaves a PPI unchanged), :func:`ppi_suit`;
* one player's updates over an event: :func:`ppi_boards` (board by board) and
  :func:`ppi_session_level` (``n`` boards at the session percentage);
* the fold: :func:`ppi_apply` / :func:`ppi_apply_event` take a :class:`PPIState` and a session
  (or the sessions of one event) and return a :class:`PPIStep` (the new state and what
  changed); :func:`ppi_replay` folds sessions from empty in the order given (processing
  order). Nothing is mutated; every result is a frozen dataclass.

See ``docs/schemes.md`` for the design and ``docs/.decisions-schemes.md`` for the decisions.
"""

from __future__ import annotations

import datetime as dt
import enum
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from grading.engine.ngs.session import host_pair_of
from grading.engine.scoring import Method, TravellerLine, group_by_board, score_board
from grading.engine.types import Direction, Movement, PairEntry, Scoring, SessionResult

__all__ = [
    "ACTIVE_BOARDS",
    "DEFAULT_BOARDS",
    "NEW_PPI",
    "SHOWN_AFTER",
    "BoardTerm",
    "PPIChange",
    "PPIEventResult",
    "PPIPlayer",
    "PPIPoint",
    "PPIReason",
    "PPIStanding",
    "PPIState",
    "PPIStep",
    "Suit",
    "month_index",
    "ppi_apply",
    "ppi_apply_event",
    "ppi_boards",
    "ppi_list",
    "ppi_par",
    "ppi_replay",
    "ppi_session_level",
    "ppi_standing",
    "ppi_suit",
    "ppi_update",
    "ppi_weight",
    "why_not_rated",
]

NEW_PPI = 50.0  # newcomers start at 50 % (seed 002)
SHOWN_AFTER = 50  # a PPI is shown after 50 qualifying boards
ACTIVE_BOARDS = 50  # active: at least 50 boards in the last 3 calendar months
DEFAULT_BOARDS = 24  # boards a pair played when the file does not say (S3.7)
W_MONTHS = 3  # w: qualifying boards in the previous 3 calendar months


# --------------------------------------------------------------------------------------------
# The seed's formulas


def ppi_weight(k: int, w: int, a: float) -> float:
    """The weighting factor ``m`` of S10 (seed 002, "The Formula").

    ``k``: qualifying boards the player played before this board since the start; ``w``:
    qualifying boards in the previous 3 calendar months; ``a``: the player's PPI. ``m`` is 30
    for ``k < 30``, ``k`` for ``30 <= k <= 300``; above 300 it is 300 for ``w < 150``, ``2w``
    for ``150 <= w <= 300`` and 600 for ``w > 300``; halved when ``a < 46``.
    """
    if k < 30:
        m = 30.0
    elif k <= 300:
        m = float(k)
    elif w < 150:
        m = 300.0
    elif w <= 300:
        m = 2.0 * w
    else:
        m = 600.0
    return m / 2 if a < 46 else m


def ppi_par(a: float, b: float, c: float, d: float) -> float:
    """The board percentage that leaves ``a`` unchanged: ``(a + b - c - d)/2 + 50`` (S10)."""
    return (a + b - c - d) / 2 + 50


def ppi_update(a: float, b: float, c: float, d: float, p: float, m: float) -> float:
    """One board's update ``A = a + (p - ((a + b - c - d)/2 + 50)) / m`` (S10, seed 002).

    ``a`` the player's PPI, ``b`` partner's, ``c`` and ``d`` the opponents', ``p`` the player's
    percentage on the board (0-100), ``m`` from :func:`ppi_weight`.
    """
    return a + (p - ppi_par(a, b, c, d)) / m


class Suit(str, enum.Enum):
    """The suit symbol of a PPI (seed 002, "Suit symbol")."""

    SPADES = "S"  # over 55 %
    HEARTS = "H"  # 51 % to 55 %
    DIAMONDS = "D"  # 46 % to 51 %
    CLUBS = "C"  # below 46 %


def ppi_suit(ppi: float) -> Suit:
    """The suit of an (unrounded) PPI: Spades > 55, Hearts 51-55, Diamonds 46-51, Clubs < 46.

    Boundaries (S10): 55 exactly is Hearts ("over 55" for Spades); 51 exactly is Hearts (seed
    002: a PPI shown 51.0 but below 51 is still a Diamond); 46 exactly is Diamonds (the same
    threshold as the halving of ``m``, "below 46" for Clubs).
    """
    if ppi > 55:
        return Suit.SPADES
    if ppi >= 51:
        return Suit.HEARTS
    if ppi >= 46:
        return Suit.DIAMONDS
    return Suit.CLUBS


# --------------------------------------------------------------------------------------------
# One player over one event


@dataclass(frozen=True)
class BoardTerm:
    """What one qualifying board brings to a player's update: partner's and opponents' PPIs
    at the start of the event, and the player's percentage on the board."""

    b: float
    c: float
    d: float
    p: float


def _event_delta(a: float, k: int, w: int, boards: Iterable[BoardTerm]) -> tuple[float, int]:
    """The sum of one event's per-board changes and the boards counted (S10).

    Every board uses the PPIs from the start of the event (``a`` included, also for the
    halving of ``m``); ``k`` grows by one per board.
    """
    delta = 0.0
    counted = 0
    for term in boards:
        m = ppi_weight(k + counted, w, a)
        delta += (term.p - ppi_par(a, term.b, term.c, term.d)) / m
        counted += 1
    return delta, counted


def ppi_boards(a: float, k: int, w: int, boards: Sequence[BoardTerm]) -> float:
    """A player's PPI after an event scored board by board (S10).

    ``a``, ``k``, ``w``: the player's PPI, boards since the start and boards in the previous 3
    calendar months, at the start of the event; ``boards`` in the order played.
    """
    delta, _ = _event_delta(a, k, w, boards)
    return a + delta


def ppi_session_level(a: float, k: int, w: int, n: int, p: float, b: float, opp: float) -> float:
    """A player's PPI after ``n`` boards at the session percentage ``p`` against opponents of
    average PPI ``opp``, with partner ``b`` (S10, sessions without travellers)."""
    return ppi_boards(a, k, w, [BoardTerm(b, opp, opp, p)] * n)


# --------------------------------------------------------------------------------------------
# State


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


# --------------------------------------------------------------------------------------------
# Outputs of one step


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


# --------------------------------------------------------------------------------------------
# Reading a session


def why_not_rated(session: SessionResult) -> str:
    """Why a session changes no PPI, or "" (S10: match-pointed pairs events only)."""
    if not session.graded_flag:
        return session.not_graded_reason or PPIReason.NOT_GRADED
    if session.scoring is not Scoring.MP:
        return PPIReason.NOT_MP
    return ""


@dataclass
class _Tally:
    """One member's accumulation over an event (mutable, private to one step)."""

    runs: list[tuple[int, list[BoardTerm]]] = field(default_factory=list)  # (w, boards)
    months: dict[int, int] = field(default_factory=dict)
    mode: str = ""


def _players_of(entry: PairEntry) -> tuple[str, str] | None:
    """The two members of a pair, or None when either is unknown."""
    a, b = entry.players
    if a.number is None or b.number is None:
        return None
    return a.number, b.number


def _board_percentages(
    travellers: Sequence[TravellerLine],
) -> list[tuple[int, TravellerLine, float, float]]:
    """Each line's NS and EW percentages, boards in ascending number (S2.2, S2.3).

    Every board is factored to the largest traveller of the session, as ``score_session``
    does, so the board percentages average to the session percentage.
    """
    boards = group_by_board(travellers)
    expected = max((len(lines) for lines in boards.values()), default=0)
    rows = []
    for number in sorted(boards):
        result = score_board(boards[number], Method.MP, expected)
        for line, scored in zip(boards[number], result.lines, strict=True):
            ns, ew = scored.ns_percent, scored.ew_percent
            if ns is None or ew is None:  # a lone line: nothing to compare with
                continue
            rows.append((number, line, float(ns), float(ew)))
    return rows


def _board_by_board(
    session: SessionResult,
    entries: Mapping[str, PairEntry],
    host: str | None,
    ppi: Mapping[str, float],
) -> dict[str, list[BoardTerm]]:
    """Each rated member's boards in one session with travellers (S10)."""
    terms: dict[str, list[BoardTerm]] = defaultdict(list)
    for _, line, ns_percent, ew_percent in _board_percentages(session.travellers):
        ns_entry, ew_entry = entries.get(line.ns_pair), entries.get(line.ew_pair)
        if ns_entry is None or ew_entry is None:
            continue  # a pair the file does not name: players unknown
        ns, ew = _players_of(ns_entry), _players_of(ew_entry)
        if ns is None or ew is None:
            continue  # an unknown player at the table: the board counts for no one at it
        sides = (
            (ns_entry, ns, ew, ns_percent),
            (ew_entry, ew, ns, ew_percent),
        )
        for entry, own, opponents, percent in sides:
            if entry.pair_id == host:
                continue
            c, d = (ppi[number] for number in opponents)
            for me, partner in ((own[0], own[1]), (own[1], own[0])):
                terms[me].append(BoardTerm(ppi[partner], c, d, percent))
    return terms


def _opponent_pairs(entry: PairEntry, session: SessionResult) -> list[PairEntry]:
    """Who a pair played against, without travellers: the pairs of the other direction in a
    two-winner movement, every other pair otherwise."""
    others = [other for other in session.pairs if other.pair_id != entry.pair_id]
    if session.movement is Movement.TWO_WINNER and entry.direction is not None:
        facing = Direction.EW if entry.direction is Direction.NS else Direction.NS
        return [other for other in others if other.direction is facing]
    return others


def _session_level(
    session: SessionResult, host: str | None, ppi: Mapping[str, float]
) -> dict[str, list[BoardTerm]]:
    """Each rated member's boards in one session without travellers (S10).

    A pair's ``n`` boards (24 when not reported, S3.7) are applied at its session percentage
    against the average PPI of its known opponents; boards against pairs with an unknown
    player count for no one, so ``n`` is scaled by the share of known opponent pairs.
    """
    terms: dict[str, list[BoardTerm]] = {}
    for entry in session.pairs:
        own = _players_of(entry)
        if own is None or entry.pair_id == host or entry.score is None:
            continue
        opponents = _opponent_pairs(entry, session)
        known = [pair for pair in (_players_of(o) for o in opponents) if pair is not None]
        if not known:
            continue
        n = entry.boards if entry.boards is not None else DEFAULT_BOARDS
        n = math.floor(n * len(known) / len(opponents) + 0.5)
        opp = sum(ppi[x] + ppi[y] for x, y in known) / (2 * len(known))
        for me, partner in ((own[0], own[1]), (own[1], own[0])):
            terms[me] = [BoardTerm(ppi[partner], opp, opp, float(entry.score))] * n
    return terms


# --------------------------------------------------------------------------------------------
# The fold


def ppi_apply(state: PPIState, session: SessionResult, *, host_pair: str | None = None) -> PPIStep:
    """Process one session as one event (S10): see :func:`ppi_apply_event`."""
    hosts = {0: host_pair} if host_pair is not None else None
    return ppi_apply_event(state, [session], host_pairs=hosts)


def ppi_apply_event(
    state: PPIState,
    sessions: Sequence[SessionResult],
    *,
    host_pairs: Mapping[int, str] | None = None,
) -> PPIStep:
    """Process the sessions of one event, in the order given, and write the new PPIs (S10).

    Every board uses the four players' PPIs from the start of the event; each member's ``k``
    grows board by board (sessions in order, boards in ascending number); ``w`` is the
    member's boards in the 3 calendar months before the session's month. Sessions with
    travellers are rated board by board, others at session level. Sessions that are not
    match-pointed (or not graded) are skipped; a non-rateable (host) pair (S14.4, or
    ``host_pairs[i]`` for session ``i``) is not rated but counts as opponents.
    """
    seq = state.seq + 1
    rated = [(i, s) for i, s in enumerate(sessions) if not why_not_rated(s)]
    date = max((s.date for s in sessions), default=dt.date.min)
    if not rated:
        reason = why_not_rated(sessions[0]) if sessions else PPIReason.NO_BOARDS
        return PPIStep(PPIState(state.players, seq), PPIEventResult(seq, date, reason))
    start = {
        number: state.player(number).ppi
        for _, session in rated
        for entry in session.pairs
        for player in entry.players
        if (number := player.number) is not None
    }
    tallies: dict[str, _Tally] = defaultdict(_Tally)
    warnings: list[str] = []
    for i, session in rated:
        requested = host_pairs.get(i) if host_pairs else None
        host, ignored = host_pair_of(session, requested)
        warnings.extend(ignored)
        entries = {entry.pair_id: entry for entry in session.pairs}
        if session.travellers:
            terms = _board_by_board(session, entries, host, start)
            mode = PPIReason.BOARD_BY_BOARD
        else:
            terms = _session_level(session, host, start)
            mode = PPIReason.SESSION_LEVEL
        for number, played in terms.items():
            if not played:
                continue
            tally = tallies[number]
            w = state.player(number).w_for(session.date)
            tally.runs.append((w, played))
            month = month_index(session.date)
            tally.months[month] = tally.months.get(month, 0) + len(played)
            tally.mode = mode if tally.mode in ("", mode) else "mixed"
    players = dict(state.players)
    changes = []
    for number in sorted(tallies):
        tally = tallies[number]
        player = state.player(number)
        k = player.boards
        delta = 0.0
        for w, run in tally.runs:  # w may differ between sessions in different months
            part, counted = _event_delta(player.ppi, k, w, run)
            delta += part
            k += counted
        after = player.ppi + delta
        boards = k - player.boards
        months = dict(player.months)
        for month, count in tally.months.items():
            months[month] = months.get(month, 0) + count
        point = PPIPoint(seq, date, after, boards, k)
        players[number] = PPIPlayer(
            number, after, k, tuple(sorted(months.items())), player.history + (point,)
        )
        first_w = tally.runs[0][0]
        changes.append(
            PPIChange(number, player.ppi, after, boards, player.boards, first_w, tally.mode)
        )
    reason = "" if changes else PPIReason.NO_BOARDS
    result = PPIEventResult(seq, date, reason, tuple(changes), tuple(warnings))
    return PPIStep(PPIState(players, seq), result)


def ppi_replay(sessions: Iterable[SessionResult], state: PPIState | None = None) -> PPIState:
    """Fold sessions, each as one event, in the order given (processing order), from empty
    or from ``state``. Deterministic: the same sessions in the same order give the same state.
    Corrections and withdrawals are a replay of the live versions."""
    current = state if state is not None else PPIState()
    for session in sessions:
        current = ppi_apply(current, session).state
    return current
