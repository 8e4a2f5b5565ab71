"""``replay --check``'s comparison of the subject tables (``tablecheck.subjects_check``) on a
second database connection, beside the fold (issue 31). That comparison reads only stored
tables, never the fold, so PostgreSQL can run it on another core while this process folds the
ledger and compares the fold's records: nationally about 70 s of the check's 150 s were these
statements, run one after the other behind the fold (docs/benchmarks.md). The second
connection takes the comparisons largest first; the check's own connection, once its part is
done, takes what is left smallest first (``tablecheck.SubjectJobs``): nationally the second
connection's share had become the check's last 16 s (session 29).

Both sides read one view of the database: the check's repeatable-read transaction exports its
snapshot (``pg_export_snapshot``) and the second transaction imports it before its first
query, so an upload graded meanwhile is seen by neither (S5.4)."""

from __future__ import annotations

import re
import threading

from django.conf import settings
from django.db import connection, transaction

from grading.common.pgcopy import bulk_memory
from grading.ledger.replay.tablecheck import SubjectJobs

__all__ = ["SubjectsCheckBeside", "snapshot_export"]

# what pg_export_snapshot() returns, e.g. "00000003-0000001B-1" (checked: it is put in SQL)
_SNAPSHOT = re.compile(r"[0-9A-F]+-[0-9A-F]+(-[0-9]+)?")


def snapshot_export(cursor) -> str:
    """This transaction's snapshot, for another connection to read the same view (PostgreSQL,
    inside a repeatable-read transaction; valid until this transaction ends)."""
    cursor.execute("SELECT pg_export_snapshot()")
    return cursor.fetchone()[0]


class SubjectsCheckBeside:
    """``subjects_check(tol)`` started now in a thread of its own, on its own connection, in
    the exported ``snapshot``; ``result()`` runs the comparisons the thread has not taken on
    the calling connection (in the same snapshot), then waits for the thread and returns
    every problem (or raises its error). The
    exporting transaction must stay open until the thread has begun reading, which it does at
    once: the check's transaction lasts for the whole fold."""

    def __init__(self, snapshot: str, tol: float) -> None:
        if not _SNAPSHOT.fullmatch(snapshot):
            raise ValueError(f"not a snapshot id: {snapshot!r}")
        self._snapshot = snapshot
        self._jobs = SubjectJobs(tol)
        self._error: BaseException | None = None
        # a daemon: an interrupted check does not wait for it (its connection goes with the
        # process)
        self._thread = threading.Thread(target=self._run, name="subjects-check", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            with transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                    cursor.execute(f"SET TRANSACTION SNAPSHOT '{self._snapshot}'")
                    bulk_memory(cursor, settings.LEDGER_CHECK_WORK_MEM)
                self._jobs.run(first=True)
        except BaseException as exc:  # handed to result(), in the check's thread
            self._error = exc
        finally:
            connection.close()  # this thread's own connection

    def result(self) -> list[str]:
        self._jobs.run(first=False)  # on this connection, in the exported snapshot
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._jobs.problems()
