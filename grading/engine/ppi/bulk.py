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
from collections.abc import Iterable, Iterator, Mapping, Sequence

from grading.engine.ngs.session import host_pair_among, host_pair_of
from grading.engine.ppi.fold import board_by_board, why_not_rated
from grading.engine.ppi.formulas import (
    DEFAULT_BOARDS,
    NEW_PPI,
    W_MONTHS,
    event_delta,
    ppi_weight,
)
from grading.engine.ppi.state import PPIPlayer, PPIPoint, month_index
from grading.engine.types import Direction, Movement, SessionResult

__all__ = ["PPIBulkFold", "PairRow", "pair_rows"]

# One pair of a session as :meth:`PPIBulkFold.apply_rows` takes it: pair id, the two members'
# numbers (None: unknown), score (None: none), boards (None: not reported), direction (None:
# none given) and whether the pair is rateable (a pair marked non-rateable may be the host).
PairRow = tuple[str, str | None, str | None, float | None, int | None, Direction | None, bool]

# H[x] = sum of 1/i for 30 <= i < x (x <= 301): the boards where m = k (S10).
_HARMONIC = [0.0] * 302
for _i in range(31, 302):
    _HARMONIC[_i] = _HARMONIC[_i - 1] + 1.0 / (_i - 1)


def _m_from_w(w: int) -> float:
    """``m`` beyond 300 boards, from the boards of the previous months, before halving."""
    return ppi_weight(301, w, 50.0)


def _inverse_m_sum(k: int, n: int, w: int) -> float:
    """The sum of ``1/m`` over ``n`` boards from ``k`` (``ppi_weight`` before halving)."""
    if k > 300:  # (the usual case: every board's m from w)
        return n / _m_from_w(w)
    total = 0.0
    low = min(n, max(0, 30 - k))  # k < 30: m = 30
    if low:
        total += low / 30.0
    first, last = max(k, 30), min(k + n - 1, 300)  # 30 <= k <= 300: m = k
    if last >= first:
        total += _HARMONIC[last + 1] - _HARMONIC[first]
    high = k + n - max(k, 301)  # k > 300: m from w
    if high > 0:
        total += high / _m_from_w(w)
    return total


assert W_MONTHS == 3  # (``_Member.w`` adds up the three months by hand)


class _Member:
    """One member's tables, changed in place: PPI, boards, boards per month, last event
    ``(seq, date)`` and history (``keep_history``)."""

    __slots__ = ("ppi", "boards", "months", "last", "history")

    def __init__(self) -> None:
        self.ppi = NEW_PPI
        self.boards = 0
        self.months: dict[int, int] = {}
        self.last: tuple[int, dt.date] | None = None
        self.history: list[tuple[int, dt.date, float, int, int]] = []

    def w(self, month: int) -> int:
        """Boards in the previous W_MONTHS months (integers: any order adds up alike)."""
        get = self.months.get
        return get(month - 3, 0) + get(month - 2, 0) + get(month - 1, 0)


class PPIBulkFold:
    """Every member's PPI, boards, month table and history, folded event by event in place.

    :meth:`apply` takes one session as one event numbered ``seq`` (processing order);
    :meth:`apply_rows` one without travellers given as its pairs' rows; :meth:`players` gives
    the engine's frozen players, as :func:`ppi_replay` would, and :meth:`rated` each rated
    member's figures now.

    ``keep_history=False`` (a rebuild that writes the history as it goes, issue 31): no
    member's history is kept; each event's points wait in :attr:`points` as ``(number, seq,
    ppi, boards, total boards)`` until :meth:`points_take`. A nation's history is millions of
    points."""

    def __init__(self, *, keep_history: bool = True) -> None:
        self._members: dict[str, _Member] = {}  # the members an event has changed
        self.points: list[tuple[str, int, float, int, int]] = []
        self.keep_history = keep_history

    def __len__(self) -> int:
        """The members rated."""
        return len(self._members)

    def points_take(self) -> list[tuple[str, int, float, int, int]]:
        """The points of the events applied since the last call (``keep_history=False``)."""
        points, self.points = self.points, []
        return points

    def apply(self, seq: int, session: SessionResult, host_pair: str | None = None) -> int:
        """Process one session as event ``seq`` (S10). Returns the members it changed."""
        if why_not_rated(session):
            return 0
        if not session.travellers:
            two_winner = session.movement is Movement.TWO_WINNER
            return self.apply_rows(seq, session.date, two_winner, pair_rows(session), host_pair)
        host, _ = host_pair_of(session, host_pair)
        start = self._start((e.players[0].number, e.players[1].number) for e in session.pairs)
        month = month_index(session.date)
        changes: list[tuple[str, float, int]] = []  # (number, delta, boards)
        entries = {entry.pair_id: entry for entry in session.pairs}
        for number, played in board_by_board(session, entries, host, start).items():
            if played:
                k, w = self._k_w(number, month)
                delta, counted = event_delta(start[number], k, w, played)
                changes.append((number, delta, counted))
        return self._record(seq, session.date, month, start, changes)

    def apply_rows(
        self,
        seq: int,
        date: dt.date,
        two_winner: bool,
        rows: Sequence[PairRow],
        host_pair: str | None = None,
    ) -> int:
        """Process one rated session without travellers (graded, match-pointed) given as its
        pairs' rows (:data:`PairRow`, the file's order) as event ``seq``: what :meth:`apply`
        does with the session, without an object per pair (a rebuild reads millions of
        pairs as columns). Returns the members it changed."""
        host = _host_of(rows, host_pair)
        start = self._start((row[1], row[2]) for row in rows)
        month = month_index(date)
        changes: list[tuple[str, float, int]] = []  # (number, delta, boards)
        for number, (b, opp, p, n) in _session_level(rows, two_winner, host, start).items():
            if n <= 0:
                continue
            a = start[number]
            k, w = self._k_w(number, month)
            inverse = _inverse_m_sum(k, n, w)
            if a < 46:
                inverse *= 2.0  # m halved (S10)
            changes.append((number, (p - ((a + b - opp - opp) / 2 + 50)) * inverse, n))
        return self._record(seq, date, month, start, changes)

    def _k_w(self, number: str, month: int) -> tuple[int, int]:
        """The member's boards so far and boards in the previous W_MONTHS months."""
        member = self._members.get(number)
        return (0, 0) if member is None else (member.boards, member.w(month))

    def _start(self, pairs: Iterable[tuple[str | None, str | None]]) -> dict[str, float]:
        """The event's members' PPI before it (the pairs' two numbers, None: unknown)."""
        get = self._members.get
        start: dict[str, float] = {}
        for a, b in pairs:
            for number in (a, b):
                if number is not None and number not in start:
                    member = get(number)
                    start[number] = NEW_PPI if member is None else member.ppi
        return start

    def _record(
        self,
        seq: int,
        date: dt.date,
        month: int,
        start: dict[str, float],
        changes: list[tuple[str, float, int]],
    ) -> int:
        """The event's changes applied, in the members' order."""
        members = self._members
        event = (seq, date)
        keep, points = self.keep_history, self.points
        for number, delta, n in sorted(changes):
            after = start[number] + delta
            member = members.get(number)
            if member is None:
                member = members[number] = _Member()
            member.ppi = after
            k = member.boards = member.boards + n
            months = member.months
            months[month] = months.get(month, 0) + n
            member.last = event
            if keep:
                member.history.append((seq, date, after, n, k))
            else:
                points.append((number, seq, after, n, k))
        return len(changes)

    def rated(self) -> Iterator[tuple[str, PPIPlayer, tuple[int, dt.date]]]:
        """Each rated member in number order: the engine's player (without history) and the
        member's last event ``(seq, date)``."""
        for number in sorted(self._members):
            member = self._members[number]
            months = tuple(sorted(member.months.items()))
            assert member.last is not None  # (a member is kept once an event changed them)
            yield number, PPIPlayer(number, member.ppi, member.boards, months), member.last

    def players(self) -> dict[str, PPIPlayer]:
        """The engine's players: what :func:`ppi_replay` of the same events holds."""
        if not self.keep_history:
            raise ValueError("the fold kept no history (keep_history=False)")
        return {
            number: PPIPlayer(
                number,
                member.ppi,
                member.boards,
                tuple(sorted(member.months.items())),
                tuple(PPIPoint(*point) for point in member.history),
            )
            for number, member in self._members.items()
        }


def pair_rows(session: SessionResult) -> list[PairRow]:
    """A session's pairs as :data:`PairRow`, in its order."""
    return [
        (
            entry.pair_id,
            entry.players[0].number,
            entry.players[1].number,
            entry.score,
            entry.boards,
            entry.direction,
            entry.rateable,
        )
        for entry in session.pairs
    ]


def _host_of(rows: Sequence[PairRow], requested: str | None) -> str | None:
    """The host pair as ``host_pair_of`` decides it (S3.9, S14.4)."""
    marked = [row[0] for row in rows if not row[6]]
    return host_pair_among((row[0] for row in rows), marked, requested)[0]


_FACING = {Direction.NS: Direction.EW, Direction.EW: Direction.NS}


def _session_level(
    rows: Sequence[PairRow], two_winner: bool, host: str | None, ppi: Mapping[str, float]
) -> dict[str, tuple[float, float, float, int]]:
    """``ppi.fold._session_level`` in one pass over the pairs: per rated member, partner's
    PPI, the opponents' average PPI, the session percentage and the boards counted."""
    # Per direction (None: no direction): pairs, known pairs, and the known pairs' PPI sums.
    count: dict[Direction | None, int] = {}
    known: dict[Direction | None, int] = {}
    total: dict[Direction | None, float] = {}
    for _, a, b, _, _, d, _ in rows:
        count[d] = count.get(d, 0) + 1
        if a is not None and b is not None:
            known[d] = known.get(d, 0) + 1
            total[d] = total.get(d, 0.0) + (ppi[a] + ppi[b])
    terms: dict[str, tuple[float, float, float, int]] = {}
    everyone, others_known, all_total = len(rows) - 1, sum(known.values()) - 1, sum(total.values())
    for pair_id, a, b, score, boards, d, _ in rows:
        if a is None or b is None or pair_id == host or score is None:
            continue
        if two_winner and d is not None:
            facing = _FACING[d]
            opponents, n_known = count.get(facing, 0), known.get(facing, 0)
            opp_sum = total.get(facing, 0.0)
        else:
            opponents, n_known = everyone, others_known
            opp_sum = all_total - (ppi[a] + ppi[b])
        if n_known <= 0:
            continue
        n = boards if boards is not None else DEFAULT_BOARDS
        n = math.floor(n * n_known / opponents + 0.5)
        opp = opp_sum / (2 * n_known)
        p = float(score)
        terms[a] = (ppi[b], opp, p, n)
        terms[b] = (ppi[a], opp, p, n)
    return terms
