"""Reading the ledger ahead of a whole-ledger fold (issue 31). A fold read its rows and folded
them in turn: while the server produced the next rows (about a third of a national fold's
time) the fold waited, and while it folded the server waited. Here a thread fetches the rows
while the fold folds them.

The thread uses the fold's own connection and cursors, in the fold's transaction, so it reads
exactly what the fold would have read, uncommitted writes included: the queries are started,
and their first rows fetched, on the calling thread, and only the cursors' later fetches happen
on the reader's (psycopg's connection is safe to share between threads: one statement at a
time; the fold's own statements in between, the versions' states, wait for a fetch to end).
PostgreSQL only (``read.fold_ledger``)."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from itertools import islice
from typing import Generic, TypeVar

__all__ = ["ReadAhead"]

T = TypeVar("T")
BATCH = 500  # rows handed over at a time
DEPTH = 8  # batches read ahead: what memory holds beyond the fold's own
_NOTHING = object()


class _End:
    """The rows ran out (``error``: the reading failed, raised to the fold)."""

    def __init__(self, error: BaseException | None = None) -> None:
        self.error = error


class ReadAhead(Generic[T]):
    """``rows`` read by a thread of their own, up to ``depth`` batches ahead of the consumer.
    ``seconds``: how long the consumer waited for rows. ``close`` (always, as with a file)
    stops the thread and closes ``rows``."""

    def __init__(self, rows: Iterator[T], *, batch: int = BATCH, depth: int = DEPTH) -> None:
        self.seconds = 0.0
        self._rows, self._size = rows, batch
        self._queue: queue.Queue[list[T] | _End] = queue.Queue(depth)
        self._stop = threading.Event()
        t0 = time.perf_counter()
        self._batch: Iterator[T] = iter(list(islice(rows, batch)))  # the queries start here
        self.seconds += time.perf_counter() - t0
        self._done = False
        self._thread = threading.Thread(target=self._read, name="ledger-read", daemon=True)
        self._thread.start()

    def __iter__(self) -> ReadAhead[T]:
        return self

    def __next__(self) -> T:
        while True:
            row = next(self._batch, _NOTHING)
            if row is not _NOTHING:
                return row  # type: ignore[return-value]
            if self._done:
                raise StopIteration
            t0 = time.perf_counter()
            item = self._queue.get()
            self.seconds += time.perf_counter() - t0
            if isinstance(item, _End):
                self._done = True
                if item.error is not None:
                    raise item.error
                raise StopIteration
            self._batch = iter(item)

    def close(self) -> None:
        self._stop.set()  # a thread waiting to hand a batch over sees it within 0.05 s
        self._thread.join()
        close = getattr(self._rows, "close", None)
        if close is not None:  # a generator: its cursors closed here, not by the collector
            close()

    def _read(self) -> None:
        batch: list[T] = []
        try:
            for row in self._rows:
                batch.append(row)
                if len(batch) == self._size:
                    self._put(batch)
                    batch = []
                    if self._stop.is_set():
                        return
            self._put(batch)
            self._put(_End())
        except BaseException as exc:  # the rows before it, then the error, to the consumer
            self._put(batch)
            self._put(_End(exc))

    def _put(self, item: list[T] | _End) -> None:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.05)
                return
            except queue.Full:
                continue
