"""PPI over a whole log at once (SPEC S10): the fold a rebuild uses, equal to :func:`ppi_apply`
event by event (to 1e-9; tests/engine/test_ppi_bulk.py) and much faster.

:func:`ppi_apply` is written for one step on a frozen state: each event copies the players'
mapping and each player's month table and history. Over a decade of a national union that
is quadratic (a profile of 16,000 sessions: 160 s, most of it sorting month tables and adding
up ``w``). :class:`PPIBulkFold` keeps one mutable table per member instead and, for a session
without travellers (every board of a pair at the session percentage), adds the event's ``n``
per-board changes in closed form: the par is the same on every board and only ``m`` varies,
so the change is ``(p - par)`` times the sum of ``1/m`` over the boards, read from a table
of harmonic sums. Sessions with travellers are rated board by board by the engine's own
functions. Same inputs, same figures; each event is one session (the database's fold).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping

from grading.engine.ngs.session import host_pair_of
from grading.engine.ppi.fold import board_by_board, why_not_rated
from grading.engine.ppi.formulas import DEFAULT_BOARDS, NEW_PPI, W_MONTHS, event_delta
from grading.engine.ppi.state import PPIPlayer, PPIPoint, month_index
from grading.engine.types import Direction, Movement, SessionResult

__all__ = ["PPIBulkFold"]

# H[x] = sum of 1/i for 30 <= i < x (x <= 301): the boards where m = k (S10).
_HARMONIC = [0.0] * 302
for _i in range(31, 302):
    _HARMONIC[_i] = _HARMONIC[_i - 1] + 1.0 / (_i - 1)


def _inverse_m_sum(k: int, n: int, w: int) -> float:
    """The sum of ``1/m`` over ``n`` boards from ``k`` (``ppi_weight`` before halving)."""
    total = 0.0
    low = min(n, max(0, 30 - k))  # k < 30: m = 30
    if low:
        total += low / 30.0
    first, last = max(k, 30), min(k + n - 1, 300)  # 30 <= k <= 300: m = k
    if last >= first:
        total += _HARMONIC[last + 1] - _HARMONIC[first]
    high = k + n - max(k, 301)  # k > 300: m from w
    if high > 0:
        m = 300.0 if w < 150 else (2.0 * w if w <= 300 else 600.0)
        total += high / m
    return total


assert W_MONTHS == 3  # (``PPIBulkFold._w`` adds up the three months by hand)


class PPIBulkFold:
    """Every member's PPI, boards, month table and history, folded event by event in place.

    :meth:`apply` takes one session as one event numbered ``seq`` (processing order);
    :meth:`players` gives the engine's frozen players, as :func:`ppi_replay` would.

    ``keep_history=False`` (a rebuild that writes the history as it goes, issue 31): no
    member's history is kept; each event's points wait in :attr:`points` as ``(number, seq,
    ppi, boards, total boards)`` until :meth:`points_take`, and :attr:`last` holds each
    member's last event ``(seq, date)``. A nation's history is millions of points."""

    def __init__(self, *, keep_history: bool = True) -> None:
        self.ppi: dict[str, float] = {}
        self.boards: dict[str, int] = {}
        self.months: dict[str, dict[int, int]] = {}
        self.history: dict[str, list[tuple[int, dt.date, float, int, int]]] = {}
        self.last: dict[str, tuple[int, dt.date]] = {}
        self.points: list[tuple[str, int, float, int, int]] = []
        self.keep_history = keep_history

    def _w(self, number: str, month: int) -> int:
        months = self.months.get(number)
        if not months:
            return 0
        get = months.get  # the previous W_MONTHS months (integers: any order adds up alike)
        return get(month - 3, 0) + get(month - 2, 0) + get(month - 1, 0)

    def points_take(self) -> list[tuple[str, int, float, int, int]]:
        """The points of the events applied since the last call (``keep_history=False``)."""
        points, self.points = self.points, []
        return points

    def apply(self, seq: int, session: SessionResult, host_pair: str | None = None) -> int:
        """Process one session as event ``seq`` (S10). Returns the members it changed."""
        if why_not_rated(session):
            return 0
        host, _ = host_pair_of(session, host_pair)
        ppi = self.ppi
        start = {
            p.number: ppi.get(p.number, NEW_PPI)
            for entry in session.pairs
            for p in entry.players
            if p.number is not None
        }
        month = month_index(session.date)
        changes: list[tuple[str, float, int]] = []  # (number, delta, boards)
        if session.travellers:
            entries = {entry.pair_id: entry for entry in session.pairs}
            for number, played in board_by_board(session, entries, host, start).items():
                if played:
                    w = self._w(number, month)
                    delta, counted = event_delta(
                        start[number], self.boards.get(number, 0), w, played
                    )
                    changes.append((number, delta, counted))
        else:
            for number, (b, opp, p, n) in _session_level(session, host, start).items():
                if n <= 0:
                    continue
                a = start[number]
                k = self.boards.get(number, 0)
                inverse = _inverse_m_sum(k, n, self._w(number, month))
                if a < 46:
                    inverse *= 2.0  # m halved (S10)
                changes.append((number, (p - ((a + b - opp - opp) / 2 + 50)) * inverse, n))
        date = session.date
        boards, table, last = self.boards, self.months, self.last
        event = (seq, date)
        for number, delta, n in sorted(changes):
            after = start[number] + delta
            k = boards.get(number, 0) + n
            ppi[number] = after
            boards[number] = k
            months = table.get(number)
            if months is None:
                months = table[number] = {}
            months[month] = months.get(month, 0) + n
            last[number] = event
            if self.keep_history:
                self.history.setdefault(number, []).append((seq, date, after, n, k))
            else:
                self.points.append((number, seq, after, n, k))
        return len(changes)

    def players(self) -> dict[str, PPIPlayer]:
        """The engine's players: what :func:`ppi_replay` of the same events holds."""
        if not self.keep_history:
            raise ValueError("the fold kept no history (keep_history=False)")
        return {
            number: PPIPlayer(
                number,
                self.ppi[number],
                self.boards[number],
                tuple(sorted(self.months[number].items())),
                tuple(PPIPoint(*point) for point in history),
            )
            for number, history in self.history.items()
        }


def _session_level(
    session: SessionResult, host: str | None, ppi: Mapping[str, float]
) -> dict[str, tuple[float, float, float, int]]:
    """``ppi.fold._session_level`` in one pass over the pairs: per rated member, partner's
    PPI, the opponents' average PPI, the session percentage and the boards counted."""
    pairs = session.pairs
    two_winner = session.movement is Movement.TWO_WINNER
    # Per direction (None: no direction): pairs, known pairs, and the known pairs' PPI sums.
    count: dict[Direction | None, int] = {}
    known: dict[Direction | None, int] = {}
    total: dict[Direction | None, float] = {}
    members: list[tuple[str, str] | None] = []
    for entry in pairs:
        a, b = entry.players
        d = entry.direction
        count[d] = count.get(d, 0) + 1
        if a.number is None or b.number is None:
            members.append(None)
            continue
        members.append((a.number, b.number))
        known[d] = known.get(d, 0) + 1
        total[d] = total.get(d, 0.0) + (ppi[a.number] + ppi[b.number])
    terms: dict[str, tuple[float, float, float, int]] = {}
    for entry, own in zip(pairs, members, strict=True):
        if own is None or entry.pair_id == host or entry.score is None:
            continue
        if two_winner and entry.direction is not None:
            facing = Direction.EW if entry.direction is Direction.NS else Direction.NS
            opponents, n_known = count.get(facing, 0), known.get(facing, 0)
            opp_sum = total.get(facing, 0.0)
        else:
            opponents = len(pairs) - 1
            n_known = sum(known.values()) - 1
            opp_sum = sum(total.values()) - (ppi[own[0]] + ppi[own[1]])
        if n_known <= 0:
            continue
        n = entry.boards if entry.boards is not None else DEFAULT_BOARDS
        n = math.floor(n * n_known / opponents + 0.5)
        opp = opp_sum / (2 * n_known)
        p = float(entry.score)
        for me, partner in ((own[0], own[1]), (own[1], own[0])):
            terms[me] = (ppi[partner], opp, p, n)
    return terms
