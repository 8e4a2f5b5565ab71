"""The refold's own writes during its fold, on a thread of their own (issue 31). While the fold
runs, the refold's connection only fetched the ledger's rows: the pair figures (7.4 million
nationally) waited for the fold's end, then took the connection for about a minute while the
second core had little to do. Here a thread writes them, a chunk at a time as the fold gives
them, with each chunk's versions' states, on the refold's own connection and in its
transaction: an interrupted refold still rolls them back with everything else.

The thread shares the connection with the fold's reader (``readahead``): psycopg runs one
statement at a time, and the reader, some batches ahead, rarely has to wait for a chunk.
PostgreSQL only (``write.RefoldWriter``)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

from django.db import connection

__all__ = ["OwnWriter"]

_QUEUED = 3  # chunks waiting for the thread: what memory holds beyond the fold's own


class OwnWriter:
    """Jobs run in order, each ``job(cursor, *args)`` with a psycopg cursor of the refold's
    own connection; ``drain`` waits until every job handed over has run (raising the first
    error: the jobs after it are not run, the transaction being aborted); ``close`` stops
    the thread (``cancel``: the jobs left are let go)."""

    def __init__(self) -> None:
        connection.ensure_connection()
        self._pg = connection.connection
        self._jobs: queue.Queue = queue.Queue()
        self._room = threading.BoundedSemaphore(_QUEUED)
        self._idle = threading.Event()
        self._idle.set()
        self._pending = 0
        self._lock = threading.Lock()
        self._error: BaseException | None = None
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="refold-own", daemon=True)
        self._thread.start()

    def submit(self, job: Callable[..., object], *args) -> None:
        self._raise()
        self._room.acquire()
        with self._lock:
            self._pending += 1
            self._idle.clear()
        self._jobs.put((job, args))

    def drain(self) -> None:
        while not self._idle.wait(1.0):
            if not self._thread.is_alive():
                break
        self._raise()

    def close(self, *, cancel: bool = False) -> None:
        if self._thread.is_alive():
            self._stop = cancel
            self._jobs.put(None)
            self._thread.join()

    def _raise(self) -> None:
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        while (item := self._jobs.get()) is not None:
            job, args = item
            try:
                if self._error is None and not self._stop:
                    with self._pg.cursor() as cursor:
                        job(cursor, *args)
            except BaseException as exc:  # handed to the refold's thread
                self._error = exc
            finally:
                self._room.release()
                with self._lock:
                    self._pending -= 1
                    if not self._pending:
                        self._idle.set()
