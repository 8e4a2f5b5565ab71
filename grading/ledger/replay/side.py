"""The bulk refold's COPYs and the subject tables on a second database connection, beside the
fold and the refold's writes (issue 31). A refold's PostgreSQL work ran on one server process, one
statement after the other, while this process waited: taking in the fold's rows (14.7 million
session grades, 7.4 million pair figures, 21 million history entries nationally) and reading
the ledger, then writing the tables. On two cores the second takes in the rows while the
first reads the ledger: the rows go to tables of their own that a thread fills, on its own
connection, and commits (unlogged: nothing to recover after a crash, so nothing written to the
write-ahead log). The same thread then writes the subject tables, in a transaction of its own
(``subjectsmerge.subjects_job``), while the refold's transaction writes the grades.

What the refold's transaction reads from these tables is what this process put there. The
thread reads the stored tables as committed, which is what the refold's transaction reads of
them where it had written nothing before the refold (``rows_written``; every other writer
waits for the ledger lock the refold holds). Every grade the refold writes is written in its
own transaction and rolled back whole if it is interrupted. The staging tables are dropped
by that transaction when it commits, and by ``stage_drop`` when it does not
(``ledger_refold``) or, should the process die, when the next refold starts."""

from __future__ import annotations

import logging
import queue
import secrets
import threading
from collections.abc import Callable

from django.db import connection

__all__ = [
    "STAGE_PREFIX",
    "InlineCopy",
    "Done",
    "SideCopy",
    "stage_copier",
    "stage_drop",
    "staging_tables_drop",
    "rows_written",
]

log = logging.getLogger(__name__)

STAGE_PREFIX = "refold_stage_"
_QUEUED = 3  # row jobs waiting for the thread: what memory holds beyond the fold's own


def stage_copier() -> SideCopy | InlineCopy:
    """A ``SideCopy`` where the refold's transaction is the connection's own, outermost and
    read committed (so each of its statements sees what the side committed before it);
    otherwise (the refold inside a larger transaction, as in the tests, or another isolation)
    an ``InlineCopy``: the same jobs, on this connection, into temporary tables."""
    if connection.in_atomic_block and not connection.savepoint_ids:
        with connection.cursor() as cursor:
            cursor.execute("SHOW transaction_isolation")
            if cursor.fetchone()[0] == "read committed":
                stage_drop(cursor)  # what a refold that died left behind
                return SideCopy()
    return InlineCopy()


class Done:
    """A job handed to the side: ``SideCopy.wait`` waits until it has run."""

    def __init__(self) -> None:
        self.event = threading.Event()


class InlineCopy:
    """``SideCopy``'s jobs run at once on this connection, into temporary tables dropped
    with the transaction."""

    beside = False

    def name(self, base: str) -> str:
        return f"refold_{base}"

    def open(self, tables: dict[str, str]) -> dict[str, str]:
        names = {base: self.name(base) for base in tables}
        with connection.cursor() as cursor:
            for base, columns in tables.items():
                cursor.execute(f"DROP TABLE IF EXISTS {names[base]}")
                cursor.execute(f"CREATE TEMPORARY TABLE {names[base]} ({columns}) ON COMMIT DROP")
        return names

    def submit(self, job: Callable[..., object], *args, rows: bool = False) -> Done:
        with connection.cursor() as cursor:
            job(cursor, *args, freeze=False)
        done = Done()
        done.event.set()
        return done

    def wait(self, done: Done) -> None:
        pass

    def commit(self) -> Done:
        return self.submit(_nothing)

    def sync(self) -> None:
        pass

    def drop(self, cursor) -> None:
        pass  # dropped when the transaction ends

    def close(self, *, cancel: bool = False) -> None:
        pass


class SideCopy:
    """A thread with its own connection that runs the jobs handed to it in order, each
    ``job(cursor, *args, freeze=True)``, in a transaction of its own that ``open`` begins
    (creating ``tables``, a base name -> its columns, as unlogged tables) and ``sync``
    commits, waiting until every job handed so far has run (and raising the thread's error,
    if any). Rows COPYed into a table created in the same transaction are written frozen: the
    refold's transaction reads them without looking up whether they committed (a first read
    would otherwise write every page of them again). Between ``commit`` (queued, not waited
    for) and the next ``open`` each statement of a job commits on its own; ``wait`` waits for
    one job ``submit`` handed over. ``close()`` stops the thread."""

    beside = True

    def __init__(self) -> None:
        self._token = secrets.token_hex(4)
        self.names: dict[str, str] = {}
        self._jobs: queue.Queue = queue.Queue()
        self._room = threading.BoundedSemaphore(_QUEUED)
        self._error: BaseException | None = None
        self._stop = False
        self._pg = None  # the thread's psycopg connection: ``close`` cancels its statement
        # a daemon: an interrupted refold does not wait for it (its connection goes with
        # the process, and its transaction with the connection)
        self._thread = threading.Thread(target=self._run, name="refold-copy", daemon=True)
        self._thread.start()

    def name(self, base: str) -> str:
        """A staging table's name (dropped with the others), for a job that creates it."""
        self.names[base] = name = f"{STAGE_PREFIX}{base}_{self._token}"
        return name

    def open(self, tables: dict[str, str]) -> dict[str, str]:
        names = {base: self.name(base) for base in tables}
        self.submit(_create, [(names[base], columns) for base, columns in tables.items()])
        return names

    def submit(self, job: Callable[..., object], *args, rows: bool = False) -> Done:
        """Hand ``job`` over; ``rows``: it carries rows the fold gathered, and waits while
        ``_QUEUED`` such jobs wait (memory holds that many), where other jobs never wait."""
        self._raise()
        if rows:
            self._room.acquire()
        done = Done()
        self._jobs.put((job, args, done, rows))
        return done

    def wait(self, done: Done) -> None:
        while not done.event.wait(1.0):
            if not self._thread.is_alive():
                break
        self._raise()

    def commit(self) -> Done:
        """Commit what the jobs handed so far wrote, without waiting for it."""
        return self.submit(_commit)

    def sync(self) -> None:
        self.wait(self.commit())

    def drop(self, cursor) -> None:
        """Drop the tables in the refold's transaction (``cursor``'s), once read: they go
        when it commits."""
        for name in self.names.values():
            cursor.execute(f"DROP TABLE IF EXISTS {name}")

    def close(self, *, cancel: bool = False) -> None:
        """Stop the thread once it has run the jobs handed to it; ``cancel`` (the refold
        failed): the statement it runs is cancelled and the jobs left are let go, so that an
        interrupted refold does not wait for a comparison of millions of rows."""
        if self._thread.is_alive():
            if cancel:
                self._stop = True
                if self._pg is not None:
                    try:
                        self._pg.cancel()
                    except Exception:  # the connection is gone already: nothing to cancel
                        log.debug("the refold's second connection was not cancelled", exc_info=True)
            self._jobs.put(None)
            self._thread.join()

    def _raise(self) -> None:
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        try:
            connection.ensure_connection()
            self._pg = connection.connection
            while (item := self._jobs.get()) is not None:
                job, args, done, rows = item
                try:
                    if self._error is None and not self._stop:  # else the jobs are let go
                        with connection.cursor() as cursor:
                            job(cursor, *args, freeze=True)
                except BaseException as exc:  # handed to the refold's thread
                    self._error = exc
                finally:
                    if rows:
                        self._room.release()
                    done.event.set()
        finally:
            connection.close()  # this thread's own connection (a transaction open: rolled back)


def rows_written() -> int | None:
    """The rows this connection has inserted, updated and deleted that PostgreSQL has not yet
    added to its statistics (None elsewhere): the current transaction's, and (PostgreSQL 15
    reports a backend's counts at most once a second) maybe earlier ones'. It grows with
    every row the current transaction writes (a row lock is not a write), so taken at the
    start of a transaction and again later, it says whether that transaction wrote anything
    in between (``RefoldWriter``: what it reads is then what is committed, and the second
    connection can write the subject tables)."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT COALESCE(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) "
            "FROM pg_stat_xact_user_tables"
        )
        return cursor.fetchone()[0]


def _create(cursor, tables: list[tuple[str, str]], *, freeze: bool) -> None:
    cursor.execute("BEGIN")
    for name, columns in tables:
        cursor.execute(f"CREATE UNLOGGED TABLE {name} ({columns})")


def _commit(cursor, *, freeze: bool) -> None:
    if connection.connection.info.transaction_status:  # a transaction open (``open``'s BEGIN)
        cursor.execute("COMMIT")


def _nothing(cursor, *, freeze: bool) -> None:
    pass


def stage_drop(cursor) -> int:
    """Drop every staging table there is (the refold's own, when it did not commit, or one a
    process that died left behind). Returns how many."""
    cursor.execute(
        "SELECT relname FROM pg_class WHERE relkind = 'r' AND relname LIKE %s",
        [STAGE_PREFIX.replace("_", r"\_") + "%"],
    )
    names = [name for (name,) in cursor.fetchall()]
    for name in names:
        cursor.execute(f'DROP TABLE IF EXISTS "{name}"')
    return len(names)


def staging_tables_drop() -> None:
    """``stage_drop`` after a refold that did not commit (PostgreSQL; nothing elsewhere). A
    failure to drop is logged, not raised: the refold's own error is the one to report, and
    the next refold drops what is left."""
    if connection.vendor != "postgresql":
        return
    try:
        with connection.cursor() as cursor:
            stage_drop(cursor)
    except Exception:
        log.warning("The staging tables of an interrupted refold were not dropped", exc_info=True)
