"""The pairs of the sessions queued for the compiled kernel, as flat columns (one entry per
pair; ``pab`` holds the two players' integer ids, -1 for a visitor): what ``ngs_kernel.c``
reads. Filled from ``SessionResult`` objects here; the same columns can be filled straight from
the database's columnar copy of each version (``grading.ledger.replay.read``)."""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable
from itertools import chain
from operator import attrgetter

from grading.engine.ngs.clib import load_marshal
from grading.engine.types import Direction, Movement, SessionResult

_NAN = math.nan
_NAN_BLOCK = array("d", [math.nan] * 64)
_ZEROS = array("b", bytes(64))
_TWO_WINNER = Movement.TWO_WINNER
_NS = Direction.NS
_players = attrgetter("players")
_number = attrgetter("number")
_score = attrgetter("score")
_boards = attrgetter("boards")
_direction = attrgetter("direction")
_rateable = attrgetter("rateable")
_chain = chain.from_iterable

_RES = array("i", [0, 0])  # the pair reader's (known pairs, known players)
_RES_ADDR = _RES.buffer_info()[0]

# flags per pair: direction (0 none, 1 NS, 2 EW) in the low bits, 4 = the host pair
HOST_FLAG = 4


class PairColumns:
    """Per-pair columns: ids (two per pair), boards, score, direction mean, flags.

    The pair reader (``add_session_c``) grows the arrays a block at a time and writes into
    them in place: the columns then hold ``len(self)`` pairs and unused room after them, which
    C never reads (it reads each operation's pairs only). ``settle()`` drops the room; every
    Python writer calls it first, and so must any code that extends the arrays itself."""

    __slots__ = ("pab", "boards", "score", "dmean", "flags", "_n", "_addrs")

    def __init__(self) -> None:
        self.pab: array[int] = array("i")
        self.boards: array[int] = array("i")
        self.score: array[float] = array("d")
        self.dmean: array[float] = array("d")
        self.flags: array[int] = array("b")
        self._n = -1  # pairs held while the arrays have room after them, else -1
        self._addrs: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    def __len__(self) -> int:
        return self._n if self._n >= 0 else len(self.boards)

    def settle(self) -> None:
        """Drop the room after the pairs (the arrays then hold exactly ``len(self)`` pairs)."""
        n = self._n
        if n < 0:
            return
        for buf in (self.score, self.boards, self.flags, self.dmean):
            del buf[n:]
        del self.pab[2 * n :]
        self._n = -1

    def truncate(self, p0: int) -> None:
        """Drop the pairs from ``p0`` on (a session that turned out not to be graded)."""
        self.settle()
        for buf in (self.score, self.boards, self.flags, self.dmean):
            del buf[p0:]
        del self.pab[2 * p0 :]

    def _room(self, need: int) -> None:
        """At least ``need`` pairs of room in every array (the pair reader's mode)."""
        if self._n < 0:
            self._n = len(self.boards)
        have = len(self.boards)
        if need <= have and self._addrs[0]:
            return
        more = max(need - have, 2048)
        zeros = bytes(8 * more)
        self.pab.frombytes(zeros)
        self.boards.frombytes(zeros[: 4 * more])
        self.score.frombytes(zeros)
        self.dmean.frombytes(zeros)
        self.flags.frombytes(zeros[:more])
        self._addrs = (
            self.pab.buffer_info()[0],
            self.boards.buffer_info()[0],
            self.score.buffer_info()[0],
            self.dmean.buffer_info()[0],
            self.flags.buffer_info()[0],
        )

    def add_session_c(
        self,
        session: SessionResult,
        host: str | None,
        ids: dict[str | None, int],
        aggregate: bool,
    ) -> tuple[int, int] | None:
        """``add_session`` and ``add_means`` in one call to the compiled pair reader
        (``csrc/ngs_marshal.c``): the same columns, the same (known pairs, known players).
        None, with nothing added, when the reader is not built or hands the session back (a
        member without an id yet, an unexpected value): use ``add_session`` then."""
        reader = load_marshal()
        if reader is None:
            return None
        pairs = session.pairs
        n = len(pairs)
        p0 = len(self)
        if self._n < 0 and len(self.dmean) != p0:
            return None  # pairs without their means yet: only the Python writers go on
        self._room(p0 + n)
        pab, boards, score, dmean, flags = self._addrs
        got = reader(
            pairs,
            ids,
            host,
            session.movement is _TWO_WINNER,
            aggregate,
            _NS,
            pab + 8 * p0,
            boards + 4 * p0,
            score + 8 * p0,
            dmean + 8 * p0,
            flags + p0,
            _RES_ADDR,
        )
        if got != n:
            return None  # what it wrote is room after the pairs
        self._n = p0 + n
        res = _RES
        return res[0], res[1]

    def add_means(self, session: SessionResult, aggregate: bool) -> None:
        """The direction means of the session's pairs (aggregate scoring; NaN otherwise)."""
        self.settle()
        pairs = session.pairs
        n = len(pairs)
        if aggregate:
            self.dmean.extend(
                array("d", [_NAN if p.direction_mean is None else p.direction_mean for p in pairs])
            )
        else:
            self.dmean.extend(_NAN_BLOCK[:n] if n <= 64 else array("d", [_NAN] * n))

    def add_session(
        self,
        session: SessionResult,
        host: str | None,
        ids: dict[str | None, int],
        new_id: Callable[[str], int],
    ) -> tuple[int, int]:
        """Appends the session's pairs; returns (known pairs, known players). The per-pair
        work runs in C-level iterators (``map``, ``attrgetter``, ``array``) where it can."""
        self.settle()
        pairs = session.pairs
        n = len(pairs)
        people = list(_chain(map(_players, pairs)))
        try:
            idl = array("i", map(ids.__getitem__, map(_number, people)))
        except KeyError:  # members seen for the first time
            got = []
            for person in people:
                i = ids.get(person.number)
                got.append(new_id(person.number) if i is None else i)
            idl = array("i", got)
        unknown = idl.count(-1)
        if unknown:
            players = 2 * n - unknown
            known = sum(1 for j in range(0, 2 * n, 2) if idl[j] >= 0 and idl[j + 1] >= 0)
        else:
            players, known = 2 * n, n
        try:
            scores = array("d", map(_score, pairs))
        except TypeError:
            scores = array("d", [_NAN if p.score is None else p.score for p in pairs])
        try:
            boards = array("i", map(_boards, pairs))
        except TypeError:
            boards = array("i", [p.boards or 0 for p in pairs])
        start = len(self.flags)
        self.pab.extend(idl)
        self.score.extend(scores)
        self.boards.extend(boards)
        if session.movement is _TWO_WINNER:
            self.flags.extend(
                array(
                    "b", [0 if d is None else 1 if d is _NS else 2 for d in map(_direction, pairs)]
                )
            )
        else:
            self.flags.extend(_ZEROS[:n] if n <= 64 else array("b", bytes(n)))
        if host is None and not all(map(_rateable, people)):
            for pair in pairs:
                if not pair.rateable:
                    host = pair.pair_id
                    break
        if host is not None:
            flags = self.flags
            for i, pair in enumerate(pairs, start):
                if pair.pair_id == host:
                    flags[i] |= 4
                    if not pair.known:  # a host pair counts as known (S14.3), its
                        known += 1  # players without a number do not (S9.1)
        return known, players
