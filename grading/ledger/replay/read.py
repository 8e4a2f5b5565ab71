"""The ledger read as columns, and folded on the compiled kernel (S5.4).

Whole-ledger operations read the ledger in two streams sorted by sequence number, through
server-side cursors (``values_list(...).iterator()``: tuples, never one ORM object per row):

* the operations: sequence, process or withdraw, version, requested host, the version's
  scoring, movement, weighting and date, whether the club marked it graded, whether it has
  Swiss matches, and, only for a version the compiled kernel does not grade itself (Swiss,
  teams, individuals, club-marked non-graded), its JSON payload;
* the pairs of every processed version (``PairResult``, written at upload): the members' keys,
  boards, score, direction mean, direction and non-rateable mark, in the file's order.

The members' database keys are the kernel's integer ids (``RecordsReplay.register``), so a
pair's players go to C without a lookup. Pairs sessions, the national bulk, are handed to C as
columns (``ColumnsReplay.process_columns``); every other version is decoded and graded by
``grade_session`` on standings read from the C state (so every scoring type is folded; the
count is reported). Why the pair table and not a new columnar copy: ``PairResult`` already
holds every figure C needs, written once at upload, so the read needs no new storage and no
second copy to keep in step.
"""

from __future__ import annotations

import math
import time
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import Case, Exists, F, JSONField, OuterRef, Q, Value, When

from grading.engine import codec
from grading.engine.ngs import ProcessOp, WithdrawOp
from grading.engine.ngs.cfold import DIRECTION_CODES, INLINE_SCORING, RecordsReplay
from grading.engine.types import Movement, Scoring, SessionResult
from grading.ledger.replay.phases import PhaseTimes
from grading.ledger.replay.readahead import ReadAhead
from grading.models import LedgerEntry, Match, PairResult
from members.models import Member

__all__ = ["FoldStats", "fold_ledger", "member_numbers"]

CHUNK_ROWS = 20_000
_NAN = math.nan
Progress = Callable[[int, int], None]


@dataclass
class FoldStats(PhaseTimes):
    """What a columnar fold read and did (``seconds``: the phases of the operation around it,
    where it times them: ``replay --check``)."""

    entries: int = 0
    pairs: int = 0
    by_columns: int = 0  # versions graded by C from the pair columns
    by_payload: int = 0  # versions decoded from their payload (other scoring types)
    read_seconds: float = 0.0  # time spent waiting for the database's rows


def member_numbers() -> list[str]:
    """Membership numbers indexed by the members' database keys (the kernel's ids); a key no
    member has gets a placeholder no membership number can equal."""
    rows = list(Member.objects.values_list("pk", "national_number").iterator(CHUNK_ROWS))
    top = max((pk for pk, _ in rows), default=-1)
    numbers = [f"\0{pk}" for pk in range(top + 1)]
    for pk, number in rows:
        numbers[pk] = number
    return numbers


def _operations() -> Iterator[tuple]:
    inline = Q(version__scoring__in=[s.value for s in INLINE_SCORING]) & Q(has_matches=False)
    rows = (
        LedgerEntry.objects.annotate(
            has_matches=Exists(Match.objects.filter(version_id=OuterRef("version_id"))),
        )
        .annotate(
            payload=Case(
                When(inline & Q(version__payload__graded_flag=True), then=Value(None)),
                default=F("version__payload"),
                output_field=JSONField(),
            )
        )
        .order_by("seq")
        .values_list(
            "seq",
            "operation",
            "version_id",
            "host_pair",
            "version__scoring",
            "version__movement",
            "version__weighting",
            "version__session__date",
            "payload",
        )
    )
    return rows.iterator(CHUNK_ROWS)


def _pairs() -> Iterator[tuple]:
    rows = (
        PairResult.objects.filter(version__ledger_entries__operation=LedgerEntry.Operation.PROCESS)
        .order_by("version__ledger_entries__seq", "pk")
        .values_list(
            "version__ledger_entries__seq",
            "pair_id",
            "player1_id",
            "player2_id",
            "boards",
            "score",
            "direction_mean",
            "direction",
            "host",
        )
    )
    return rows.iterator(CHUNK_ROWS)


class _Timed:
    """An iterator whose waiting time is added up (the database's share of a fold)."""

    def __init__(self, it: Iterator[tuple]) -> None:
        self.it = it
        self.seconds = 0.0

    def __iter__(self) -> _Timed:
        return self

    def __next__(self) -> tuple:
        t0 = time.perf_counter()
        try:
            return next(self.it)
        finally:
            self.seconds += time.perf_counter() - t0

    def close(self) -> None:
        """As ``ReadAhead.close``: a generator's cursors closed here, not by the collector."""
        close = getattr(self.it, "close", None)
        if close is not None:
            close()


def _entries() -> Iterator[tuple[tuple, list[tuple]]]:
    """Each ledger entry's operation row, in sequence order, with its pairs' rows (a
    processed version's, in the file's order; none for a withdrawal)."""
    ops, pairs = _operations(), _pairs()
    pending = next(pairs, None)
    for op in ops:
        rows: list[tuple] = []
        if op[1] != LedgerEntry.Operation.WITHDRAW:
            seq = op[0]
            while pending is not None and pending[0] <= seq:
                if pending[0] == seq:
                    rows.append(pending)
                pending = next(pairs, None)
        yield op, rows


def fold_ledger(
    fold: RecordsReplay,
    *,
    progress: Progress | None = None,
    every: int = 5000,
    ahead: bool = False,
) -> FoldStats:
    """Fold the whole ledger from empty into ``fold`` (members registered here), reading it
    as columns. Members are registered here unless the caller did. ``progress(done, total)``
    is called every ``every`` entries and at the end. ``ahead``: on PostgreSQL, the rows are
    read by a thread while the fold folds (``readahead``): the refold's fold, which leaves a
    core idle, not the check's, whose second connection keeps both busy (docs/benchmarks.md,
    session 27: 115 s against 106 s nationally)."""
    stats = FoldStats()
    total = LedgerEntry.objects.count()
    if not fold.numbers:
        fold.register(member_numbers())
    if ahead and connection.vendor == "postgresql":
        entries: ReadAhead | _Timed = ReadAhead(_entries())
    else:
        entries = _Timed(_entries())
    try:
        for op, rows in entries:
            _fold_entry(fold, op, rows, stats)
            if progress is not None and stats.entries % every == 0:
                progress(stats.entries, total)
    finally:
        entries.close()
    fold.flush()
    stats.read_seconds = entries.seconds
    if progress is not None:
        progress(stats.entries, total)
    return stats


def _fold_entry(fold: RecordsReplay, op: tuple, rows: list[tuple], stats: FoldStats) -> None:
    seq, operation, vid, host, scoring, movement, weighting, date, payload = op
    stats.entries += 1
    version = str(vid)
    if operation == LedgerEntry.Operation.WITHDRAW:
        fold.apply(WithdrawOp(seq, version))
        return
    stats.pairs += len(rows)
    if payload is None and _by_columns(
        fold, seq, version, host, scoring, movement, weighting, date, rows
    ):
        stats.by_columns += 1
        return
    if payload is None:  # (a version C could not take after all)
        payload = LedgerEntry.objects.get(seq=seq).version.payload
    session = codec.load(SessionResult, payload)
    fold.apply(ProcessOp(seq, version, session, host or None))
    stats.by_payload += 1


def _by_columns(
    fold: RecordsReplay,
    seq: int,
    version: str,
    host: str,
    scoring: str,
    movement: str,
    weighting: int,
    date: Any,
    rows: list[tuple],
) -> bool:
    n = len(rows)
    pab = array("i", bytes(8 * n))
    for j, row in enumerate(rows):
        pab[2 * j] = -1 if row[2] is None else row[2]
        pab[2 * j + 1] = -1 if row[3] is None else row[3]
    return fold.process_columns(
        seq,
        version,
        date=date.toordinal(),
        scoring=Scoring(scoring),
        movement=Movement(movement),
        weighting=weighting,
        pair_ids=[row[1] for row in rows],
        pab=pab,
        boards=array("i", [row[4] or 0 for row in rows]),
        score=array("d", [_NAN if row[5] is None else row[5] for row in rows]),
        dmean=array("d", [_NAN if row[6] is None else row[6] for row in rows]),
        direction=array("b", [DIRECTION_CODES.get(row[7], 0) for row in rows]),
        marked=array("b", [1 if row[8] else 0 for row in rows]),
        host_pair=host or None,
    )


def read_seconds() -> float:
    """The time to read the ledger's columns alone (operations and pairs, no fold): the floor
    the storage sets under every whole-ledger operation."""
    t0 = time.perf_counter()
    for _ in _operations():
        pass
    for _ in _pairs():
        pass
    member_numbers()
    return time.perf_counter() - t0
