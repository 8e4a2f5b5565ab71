"""PPI over a whole log with the session-level fold compiled (SPEC S10): ``csrc/ppi_fold.c``
loaded with ctypes, the twin of :class:`~grading.engine.ppi.bulk.PPIBulkFold` (bit-equal
figures; tests/engine/test_ppi_cbulk.py).

:class:`CPPIFold` numbers members with dense integer ids (the ``numbers`` it is given first, in
that order, then each new number as it comes) and keeps their state in C. Sessions without
travellers are queued as rows in a :class:`RowBlock` (columns: member ids, score, boards,
direction, host flag) and folded many at a time by one C call; a session with travellers is
rated board by board here, by the engine's own functions, with the members' state read from C,
and its changes are handed back to C (the queue is folded first, so the order holds).

The library is optional: :func:`cbulk_available` says whether it can be loaded,
:func:`build_cbulk` compiles it with the system C compiler into a file named after the
source's hash (``python -m grading.engine.ppi.cbulk --build``); without it callers use
``PPIBulkFold``.
"""

from __future__ import annotations

import ctypes
import datetime as dt
import math
import sys
from array import array
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from grading.engine.cbuild import (
    SUFFIX,
    addr,
    c_compiler,
    compile_library,
    library_open,
    source_digest,
    zeros,
)
from grading.engine.ngs.session import host_pair_among, host_pair_of
from grading.engine.ppi.bulk import PairRow, PPIBulkFold, pair_rows
from grading.engine.ppi.fold import board_by_board, why_not_rated
from grading.engine.ppi.formulas import event_delta
from grading.engine.ppi.state import PPIPlayer, month_index
from grading.engine.types import Direction, Movement, SessionResult

__all__ = [
    "CBulkUnavailable",
    "CPPIFold",
    "PointColumns",
    "RowBlock",
    "build_cbulk",
    "cbulk_available",
    "library_path",
    "ppi_bulk_fold",
]

HERE = Path(__file__).resolve().parent / "csrc"
SOURCE = HERE / "ppi_fold.c"
ABI = 2
CHUNK = 4096  # sessions per C call
_BAD_INPUT = -2  # (ppi_fold.c's BAD_INPUT)

DIRECTION_CODES: dict[Direction | None, int] = {None: 0, Direction.NS: 1, Direction.EW: 2}

P = ctypes.c_void_p
I32, I64, F64 = ctypes.c_int32, ctypes.c_int64, ctypes.c_double


class CBulkUnavailable(RuntimeError):
    """The compiled PPI fold cannot be used (not built, no compiler)."""


# ------------------------------------------------------------------ build and load

_lib: Any = None
_load_failed = False


def library_path() -> Path:
    """Where the library built from the current ``ppi_fold.c`` lives: the name carries a hash
    of the source, so an edited source is never served by a stale library."""
    return HERE / f"libppi_fold-{source_digest(SOURCE)}{SUFFIX}"


def build_cbulk(*, quiet: bool = True) -> Path | None:
    """Compile ``ppi_fold.c`` with the system C compiler into :func:`library_path`; None on
    failure (no compiler, compile error). Written atomically; older builds are removed.
    ``-ffp-contract=off``: no fused multiply-add, the same rounding as Python's."""
    global _lib, _load_failed
    compiler = c_compiler()
    if compiler is None or not SOURCE.exists():
        return None
    target = library_path()
    cmd = [compiler, "-O2", "-std=c99", "-ffp-contract=off", "-shared", "-fPIC", str(SOURCE), "-lm"]
    if compile_library(cmd, target, f"libppi_fold-*{SUFFIX}", "ppi_fold", quiet) is None:
        return None
    _lib, _load_failed = None, False
    return target


def load_library() -> Any:
    """The loaded library, or None when it is not built (tried once per process)."""
    global _lib, _load_failed
    if _lib is not None or _load_failed:
        return _lib
    lib = library_open(library_path(), "pf_abi", ABI)
    if lib is None:
        _load_failed = True
        return None
    for name, restype, argtypes in (
        ("pf_new", P, []),
        ("pf_free", None, [P]),
        ("pf_apply", I64, [P, I32, *[P] * 6, I64, *[P] * 6]),
        ("pf_member", I32, [P, I32, I32, P, P, P]),
        ("pf_record", I32, [P, I64, I32, I32, I32, P, P, P]),
        ("pf_rated", I32, [P]),
        ("pf_points", I64, [P]),
        ("pf_points_take", None, [P, *[P] * 5]),
        ("pf_months", I64, [P]),
        ("pf_dump", I32, [P, *[P] * 7]),
    ):
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    _lib = lib
    return lib


def cbulk_available() -> bool:
    """Whether the compiled PPI fold is built and loadable."""
    return load_library() is not None


# ------------------------------------------------------------------ the rows


class RowBlock:
    """Pairs' rows as the C fold reads them, one column each: the members' ids (-1: unknown),
    score (NaN: none), boards (-1: not reported), direction (:data:`DIRECTION_CODES`) and the
    host flag (1: the session's host pair, not rated; set by :meth:`CPPIFold.add_session`), with
    the pair ids (to find a host among them). A rebuild makes one per chunk of versions, straight
    from the database's columns; each session is a span of it. The C fold refuses an id below
    -1, a direction code it does not know and a span out of the block (:meth:`CPPIFold.flush`
    raises ValueError)."""

    TYPECODES = ("i", "i", "d", "i", "b")  # (the C fold's int32, double and int8 columns)

    __slots__ = ("a", "b", "score", "boards", "direction", "host", "pair_ids")

    def __init__(
        self,
        a: array[int] | None = None,
        b: array[int] | None = None,
        score: array[float] | None = None,
        boards: array[int] | None = None,
        direction: array[int] | None = None,
        pair_ids: Sequence[str] = (),
    ) -> None:
        self.a = a if a is not None else array("i")
        self.b = b if b is not None else array("i")
        self.score = score if score is not None else array("d")
        self.boards = boards if boards is not None else array("i")
        self.direction = direction if direction is not None else array("b")
        self.pair_ids = list(pair_ids)
        self.host = zeros("b", len(self.a))
        columns = (self.a, self.b, self.score, self.boards, self.direction)
        if tuple(column.typecode for column in columns) != self.TYPECODES:
            raise ValueError(f"a row block's columns are arrays of types {self.TYPECODES}")
        if any(len(column) != len(self.a) for column in (*columns, self.pair_ids)):
            raise ValueError("the columns of a row block differ in length")

    def __len__(self) -> int:
        return len(self.a)

    def extend(self, rows: Sequence[PairRow], id_of) -> None:
        """``rows`` (:data:`PairRow`) added, their numbers as ids by ``id_of``. A reported count
        below 0 is stored as 0: both rate no boards (``n <= 0``), -1 means not reported."""
        for pair_id, a, b, score, boards, direction, _ in rows:
            self.a.append(-1 if a is None else id_of(a))
            self.b.append(-1 if b is None else id_of(b))
            self.score.append(math.nan if score is None else float(score))
            self.boards.append(-1 if boards is None else max(boards, 0))
            self.direction.append(DIRECTION_CODES[direction])
            self.host.append(0)
            self.pair_ids.append(pair_id)


class PointColumns(NamedTuple):
    """Each event's points as columns (``PPIBulkFold.points_take``'s tuples): member id, seq,
    PPI after, boards counted, total boards."""

    member: array[int]
    seq: array[int]
    ppi: array[float]
    boards: array[int]
    total: array[int]


# ------------------------------------------------------------------ the fold


class CPPIFold:
    """Every member's PPI, boards, month table and last event, folded in C (S10).

    ``numbers``: the members' numbers, whose ids are their positions (a caller numbering them
    in sorted order gets each event's points in ``PPIBulkFold``'s order). No history is kept:
    each event's points wait in C until :meth:`points_take` (``keep_history=False``)."""

    def __init__(self, numbers: Iterable[str] = (), *, chunk: int = CHUNK) -> None:
        lib = load_library()
        if lib is None:
            raise CBulkUnavailable(
                "the PPI fold is not built (python -m grading.engine.ppi.cbulk --build)"
            )
        self._lib = lib
        self._fold = lib.pf_new()
        if not self._fold:
            raise MemoryError("pf_new")
        self.numbers: list[str] = list(numbers)
        self.ids = {number: i for i, number in enumerate(self.numbers)}
        if len(self.ids) != len(self.numbers):
            raise ValueError("a number given twice")
        self.chunk = chunk
        self._days: dict[dt.date, tuple[int, int]] = {}
        self._own = RowBlock()  # the rows given as tuples (apply_rows)
        self._block = self._own
        self._queue_clear()

    def __del__(self) -> None:
        fold, self._fold = getattr(self, "_fold", None), None
        if fold:
            self._lib.pf_free(fold)

    def id_of(self, number: str) -> int:
        """A member's id; a number not seen yet gets the next one."""
        found = self.ids.get(number)
        if found is None:
            found = self.ids[number] = len(self.numbers)
            self.numbers.append(number)
        return found

    def __len__(self) -> int:
        """The members rated."""
        self.flush()
        return self._lib.pf_rated(self._fold)

    # -------------------------------------------------------------- sessions

    def use_block(self, block: RowBlock) -> None:
        """Sessions added from now on are spans of ``block`` (the queue is folded first)."""
        self.flush()
        self._block = block

    def add_session(
        self,
        seq: int,
        date: dt.date,
        two_winner: bool,
        first: int,
        count: int,
        host_pair: str | None = None,
        marked: Sequence[str] = (),
    ) -> None:
        """Queue the rated session (graded, match-pointed, without travellers) whose pairs are
        the rows ``first .. first+count`` of the current block, as event ``seq``: what
        ``PPIBulkFold.apply_rows`` does with them. ``marked``: the pairs the file marks
        non-rateable, in its order; with ``host_pair`` they decide the host (S3.9, S14.4)."""
        if host_pair is not None or marked:
            pair_ids = self._block.pair_ids[first : first + count]
            host = host_pair_among(pair_ids, marked, host_pair)[0]
            for i in range(count) if host is not None else ():
                if pair_ids[i] == host:  # (every row of that id, as PPIBulkFold skips them)
                    self._block.host[first + i] = 1
        days = self._days.get(date)
        if days is None:
            days = self._days[date] = (date.toordinal(), month_index(date))
        q = self._queue
        q[0].append(seq)
        q[1].append(days[0])
        q[2].append(days[1])
        q[3].append(two_winner)
        q[4].append(first)
        q[5].append(count)
        if len(q[0]) >= self.chunk:
            self.flush()

    def apply_rows(
        self,
        seq: int,
        date: dt.date,
        two_winner: bool,
        rows: Sequence[PairRow],
        host_pair: str | None = None,
    ) -> None:
        """``PPIBulkFold.apply_rows``: the session's pairs as :data:`PairRow` (queued). Amid a
        caller's block, folded at once, and that block taken up again."""
        outer = self._block
        if outer is not self._own:
            self.use_block(self._own)
        first = len(self._own)
        self._own.extend(rows, self.id_of)
        marked = [row[0] for row in rows if not row[6]]
        self.add_session(seq, date, two_winner, first, len(rows), host_pair, marked)
        if outer is not self._own:
            self.use_block(outer)

    def apply(self, seq: int, session: SessionResult, host_pair: str | None = None) -> None:
        """``PPIBulkFold.apply``: one session as event ``seq``; with travellers board by board
        (S10), here, on the members' state read from C."""
        if why_not_rated(session):
            return
        if not session.travellers:
            two_winner = session.movement is Movement.TWO_WINNER
            self.apply_rows(seq, session.date, two_winner, pair_rows(session), host_pair)
            return
        self.flush()
        host, _ = host_pair_of(session, host_pair)
        month = month_index(session.date)
        start: dict[str, tuple[float, int, int]] = {}  # number -> (ppi, k, w) before the event
        for entry in session.pairs:
            for player in entry.players:
                if player.number is not None and player.number not in start:
                    start[player.number] = self._member(self.id_of(player.number), month)
        ppi = {number: figures[0] for number, figures in start.items()}
        entries = {entry.pair_id: entry for entry in session.pairs}
        ids, deltas, counted = array("i"), array("d"), array("i")
        for number, played in board_by_board(session, entries, host, ppi).items():
            if played:
                a, k, w = start[number]
                delta, n = event_delta(a, k, w, played)
                ids.append(self.ids[number])
                deltas.append(delta)
                counted.append(n)
        day = session.date.toordinal()
        done = self._lib.pf_record(
            self._fold, seq, day, month, len(ids), addr(ids), addr(deltas), addr(counted)
        )
        if done < 0:
            raise MemoryError("pf_record")

    def _member(self, member: int, month: int) -> tuple[float, int, int]:
        """A member's PPI, boards and ``w`` for an event in ``month``."""
        ppi, boards, w = F64(), I64(), I64()
        refs = (ctypes.byref(ppi), ctypes.byref(boards), ctypes.byref(w))
        self._lib.pf_member(self._fold, member, month, *refs)
        return ppi.value, boards.value, w.value

    def _queue_clear(self) -> None:
        # per session: seq, day, month, two-winner flag, first row, row count
        self._queue = (array("q"), array("i"), array("i"), array("b"), array("q"), array("i"))

    def flush(self) -> None:
        """Fold the queued sessions (one C call)."""
        q, block = self._queue, self._block
        if not q[0]:
            return
        columns: tuple[array[Any], ...] = (
            block.a,
            block.b,
            block.score,
            block.boards,
            block.direction,
            block.host,
        )
        done = self._lib.pf_apply(
            self._fold, len(q[0]), *map(addr, q), len(block), *map(addr, columns)
        )
        if done == _BAD_INPUT:
            raise ValueError("a row out of its block, a member id below -1 or a bad direction")
        if done < 0:
            raise MemoryError("pf_apply")
        self._queue_clear()
        if block is self._own:  # (its rows are folded: not kept)
            self._own = self._block = RowBlock()

    # -------------------------------------------------------------- results

    def points_take(self) -> PointColumns:
        """The points of the events applied since the last call, in the order of the events and
        within an event of the members' ids."""
        self.flush()
        n = self._lib.pf_points(self._fold)
        points = PointColumns(
            zeros("i", n), zeros("q", n), zeros("d", n), zeros("i", n), zeros("i", n)
        )
        if n:
            self._lib.pf_points_take(self._fold, *(addr(c) for c in points))
        return points

    def rated(self) -> Iterator[tuple[str, PPIPlayer, tuple[int, dt.date]]]:
        """``PPIBulkFold.rated``: each rated member in number order, the engine's player
        (without history) and the member's last event ``(seq, date)``."""
        self.flush()
        n = self._lib.pf_rated(self._fold)
        ids, ppis, boards = zeros("i", n), zeros("d", n), zeros("q", n)
        seqs, days, n_months = zeros("q", n), zeros("i", n), zeros("i", n)
        months = zeros("i", 2 * self._lib.pf_months(self._fold))
        columns = (ids, ppis, boards, seqs, days, n_months, months)
        self._lib.pf_dump(self._fold, *(addr(c) for c in columns))
        at, members = 0, []
        for i in range(n):
            end = at + 2 * n_months[i]
            table = tuple(zip(months[at:end:2], months[at + 1 : end : 2], strict=True))
            members.append((self.numbers[ids[i]], ppis[i], boards[i], table, seqs[i], days[i]))
            at = end
        dates: dict[int, dt.date] = {}
        for number, ppi, k, table, seq, day in sorted(members):
            date = dates.get(day)
            if date is None:
                date = dates[day] = dt.date.fromordinal(day)
            yield number, PPIPlayer(number, ppi, k, table), (seq, date)


def ppi_bulk_fold(numbers: Iterable[str] = ()) -> CPPIFold | PPIBulkFold:
    """The compiled fold when its library is built, else ``PPIBulkFold(keep_history=False)``:
    the same figures (S10), the points as :class:`PointColumns` or as tuples."""
    if not cbulk_available():
        return PPIBulkFold(keep_history=False)
    return CPPIFold(numbers)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--build"]:
        built = build_cbulk(quiet=False)
        if built is None or not cbulk_available():
            print("ppi_fold: not built; PPIBulkFold (Python) will be used", file=sys.stderr)
            return 1
        print(f"ppi_fold: built {built}")
        return 0
    if args == ["--check"]:
        print("available" if cbulk_available() else "not available")
        return 0 if cbulk_available() else 1
    print("usage: python -m grading.engine.ppi.cbulk --build | --check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
