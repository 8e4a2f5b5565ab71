"""Whole-ledger operations: ``replay --check`` (refold from empty and compare) and the staff
refold (S5.4). The nightly refresh and grades as of a date are ``grading.ledger.refresh``."""

from __future__ import annotations

from contextlib import contextmanager

from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction

from grading.common.audit import audit_record
from grading.common.pgcopy import bulk_memory
from grading.common.stale import member_pages_invalidate
from grading.engine.ngs import (
    ProcessOp,
    ReplayState,
    StepResult,
    apply,
    get_params,
)
from grading.engine.ngs.clib import ckernel_available, ckernel_supports
from grading.engine.ngs.foldout import RECORD_FIGURES
from grading.engine.ngs.ledger import CHECK_TOLERANCE
from grading.ledger.lock import ledger_head_lock
from grading.ledger.ops import (
    ledger_ops,
)
from grading.ledger.replay.beside import snapshot_export
from grading.ledger.replay.compare import check_compiled
from grading.ledger.replay.read import Progress
from grading.ledger.replay.run import refold_ledger_locked
from grading.ledger.replay.side import rows_written, staging_tables_drop
from grading.models import (
    AuditEvent,
    CurrentGrade,
    LedgerEntry,
    PartnershipGrade,
    SessionGrade,
)
from grading.params import active_params


def _differs(stored: float | None, computed: float | None, tol: float) -> bool:
    if stored is None or computed is None:
        return stored is not computed
    return abs(stored - computed) > tol


# the stored figures the check compares: the record's, but for the grade after the step (as of
# the step's date, not recomputed by a check) and the factor (an input's)
SESSION_GRADE_PARTS = tuple(f for f in RECORD_FIGURES if f not in ("grade_after", "factor"))


def check_engine(params_name: str | None = None) -> str:
    """Which engine ``ledger_check`` folds with, in words for the terminal."""
    params = active_params() if params_name is None else get_params(params_name)
    if ckernel_available() and ckernel_supports(params):
        return "the compiled kernel"
    return (
        "the Python engine (slower: the compiled kernel is not built; "
        "`make install` or `python -m grading.engine.ngs.ckernel --build` builds it)"
    )


def ledger_check(tol: float = CHECK_TOLERANCE, *, progress: Progress | None = None) -> list[str]:
    """Replay the whole ledger from empty and list every stored figure it does not reproduce
    (S5.4, S14.11). An empty list means the database is exactly the fold of its ledger.

    Folds on the compiled kernel, reading the ledger as columns and comparing in sorted
    streams (``grading.ledger.replay.compare``); without the kernel, on the Python engine
    (``check_engine`` says which)."""
    with _snapshot() as snapshot:
        params = active_params()
        if ckernel_available() and ckernel_supports(params):
            return check_compiled(params, tol, progress, snapshot=snapshot)
        return _check_python(params, tol)


@contextmanager
def _snapshot():
    """One view of the whole database for the length of the check: an upload graded while it
    runs is neither half seen (its grades without its ledger entry) nor reported as a
    difference. On PostgreSQL a repeatable-read transaction, with the check's memory for its
    joins of millions of rows (``LEDGER_CHECK_WORK_MEM``) from its first query; inside a
    caller's transaction (tests), that transaction's view and settings. Yields the snapshot's
    id for a second connection to share (``grading.ledger.replay.beside``), or None (SQLite, a
    caller's transaction)."""
    if connection.in_atomic_block:
        yield None
        return
    with transaction.atomic():
        snapshot = None
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                bulk_memory(cursor, settings.LEDGER_CHECK_WORK_MEM)
                snapshot = snapshot_export(cursor)
        yield snapshot


def _check_python(params, tol: float) -> list[str]:
    state = ReplayState(params, settings.GRADING_ENGINE_PATH)
    stored: dict[int, dict[str, SessionGrade]] = {}
    for row in SessionGrade.objects.filter(entry__isnull=False).select_related("member"):
        stored.setdefault(row.version_id, {})[row.member.national_number] = row
    problems: list[str] = []
    entries = LedgerEntry.objects.select_related("version").order_by("seq")
    for op in ledger_ops(entries.iterator(chunk_size=500)):
        step = apply(state, op)
        state.steps.clear()
        if isinstance(op, ProcessOp) and step.outcome is not None:
            problems += _check_outcome(op, step, stored.pop(int(op.version), {}), tol)
    problems += [f"version {v}: session grades stored but not in the ledger" for v in stored]
    problems += _check_current_grades(state, tol)
    problems += _check_partnerships(state, tol)
    return problems


def _check_outcome(op: ProcessOp, step: StepResult, rows: dict, tol: float) -> list[str]:
    problems = []
    assert step.outcome is not None
    for record in step.outcome.players:
        row = rows.pop(record.number, None)
        where = f"seq {op.seq} version {op.version} member {record.number}"
        if row is None:
            problems.append(f"{where}: session grade missing")
            continue
        for part in SESSION_GRADE_PARTS:
            if _differs(getattr(row, part), getattr(record, part), tol):
                problems.append(
                    f"{where}: {part} stored {getattr(row, part)} computed {getattr(record, part)}"
                )
    problems += [f"seq {op.seq}: member {n} has a grade the fold does not give" for n in rows]
    return problems


def _check_current_grades(state: ReplayState, tol: float) -> list[str]:
    problems = []
    for row in CurrentGrade.objects.select_related("member"):
        number = row.member.national_number
        computed = state.player_grade(number, row.as_of)
        if computed is None:
            problems.append(f"member {number}: current grade stored but never graded")
        elif _differs(row.grade, computed.grade, tol) or (row.status, row.boards_in_window) != (
            computed.status.value,
            computed.boards_in_window,
        ):
            problems.append(
                f"member {number}: stored {row.grade} {row.status} {row.boards_in_window}, "
                f"computed {computed.grade} {computed.status.value} {computed.boards_in_window}"
            )
    return problems


def _check_partnerships(state: ReplayState, tol: float) -> list[str]:
    problems = []
    for row in PartnershipGrade.objects.select_related("member_a", "member_b"):
        key = (row.member_a.national_number, row.member_b.national_number)
        history = state.partnerships.get(key)
        if history is None:
            problems.append(f"partnership {key}: stored but never graded")
            continue
        computed = history.grade(row.as_of, state.params, subject=f"{key[0]}+{key[1]}")
        if _differs(row.grade, computed.grade, tol):
            problems.append(f"partnership {key}: stored {row.grade}, computed {computed.grade}")
    return problems


REFOLD_PROGRESS_KEY = "ledger:refold:progress"


def refold_progress_record(done: int, total: int) -> None:
    """A running refold's progress, for the staff parameters page (outside the refold's
    transaction: the cache, which every process sees)."""
    cache.set(REFOLD_PROGRESS_KEY, (done, total), timeout=3600)


def refold_progress() -> tuple[int, int] | None:
    """``(entries refolded, entries)`` of a refold running now, or None."""
    return cache.get(REFOLD_PROGRESS_KEY)


def ledger_refold(*, actor=None, progress: Progress | None = None) -> int:
    """Recompute every stored grade by folding the ledger from empty. Returns the entries.
    ``actor``: the staff user who asked for it (the audit log's who), or None for the system.
    ``progress(done, total)`` is called as entries are folded (and the figure kept for the
    staff page). One transaction under the ledger lock: an interrupted refold is rolled back
    whole, never leaving half-written grades, and pages read the old grades until it commits.

    On PostgreSQL a bulk refold: the ledger read as columns, folded on the compiled kernel
    when it is built (else the Python engine), written with COPY (``grading.ledger.replay.write``;
    ``refold_engine`` says which); elsewhere step by step (``run._refold_stepwise``)."""

    def report(done: int, total: int) -> None:
        refold_progress_record(done, total)
        if progress is not None:
            progress(done, total)

    try:
        with transaction.atomic():
            begun = rows_written()  # the refold's transaction writes nothing before the refold
            head = ledger_head_lock()
            entries = refold_ledger_locked(head, report, written_before=begun)
            member_pages_invalidate()
            audit_record(
                action=AuditEvent.Action.REFOLD,
                subject=f"ledger refolded ({entries} entries)",
                actor=actor,
                params=head.params_name,
            )
    except BaseException:
        staging_tables_drop()  # a bulk refold's rows taken in beside it (side.py)
        raise
    finally:
        cache.delete(REFOLD_PROGRESS_KEY)
    return entries
