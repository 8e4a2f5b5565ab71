"""Running a whole-ledger refold (S5.4, S13): the bulk refold on PostgreSQL
(``grading.ledger.replay.write``), on the fastest producer available (the compiled kernel's writing
fold when it is built and supports the set, else the Python engine's ``PythonFold``); the
step-by-step refold (each step written through the ORM, as a grading step writes it) on
SQLite, and as the bulk refold's oracle in the tests. Either is one transaction under the
ledger lock: an interrupted refold is rolled back whole."""

from __future__ import annotations

import datetime as dt
import time
from array import array
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import connection

from grading.engine.ngs import ProcessOp, ReplayState, apply, get_params
from grading.engine.ngs.clib import ckernel_available, ckernel_supports
from grading.engine.ngs.cwrite import WritingReplay
from grading.engine.ngs.foldout import CurrentOut, PartnershipsOut
from grading.engine.ngs.foldpy import PythonFold
from grading.engine.ngs.params import NGSParams
from grading.ledger.ops import ledger_ops
from grading.ledger.replay.read import Progress, fold_ledger, member_numbers
from grading.ledger.replay.write import RefoldStats, RefoldWriter, ledger_entries
from grading.ledger.store import store_grades, store_step
from grading.models import (
    CurrentGrade,
    LedgerEntry,
    LedgerHead,
    PartnershipGrade,
    SessionGrade,
    SessionVersion,
)

__all__ = ["last_refold", "refold_engine", "refold_ledger_locked"]

PROGRESS_EVERY = 2000  # entries between progress reports
last_refold: dict[str, Any] = {}  # the last refold's RefoldStats and producer (measurements)
COMPILED = "the compiled kernel"  # the producer's name when the compiled kernel folded


def _writing_fold_class(params: NGSParams) -> tuple[Callable[..., Any], str]:
    """The producer: the compiled kernel's writing fold when built and supporting the set,
    else the Python engine's."""
    if ckernel_available() and ckernel_supports(params):
        return WritingReplay, COMPILED
    return PythonFold, "the Python engine"


def refold_engine(params: NGSParams) -> str:
    """Which engine a refold folds with and how it writes, in words for the terminal."""
    if connection.vendor != "postgresql":
        return "the Python engine, one step at a time (this database has no bulk copy)"
    _, name = _writing_fold_class(params)
    if name == COMPILED:
        return "the compiled kernel, written in bulk"
    return (
        "the Python engine, written in bulk (slower: the compiled kernel is not built; "
        "`make install` or `python -m grading.engine.ngs.ckernel --build` builds it)"
    )


def refold_ledger_locked(
    head, progress: Progress, *, bulk: bool | None = None, written_before: int | None = None
) -> int:
    """Refold the whole ledger with the head's set (the caller holds the ledger lock in a
    transaction; ``written_before``: ``side.rows_written()`` when it began, if it knows).
    Returns the entries folded."""
    params = get_params(head.params_name)
    if bulk is None:
        bulk = connection.vendor == "postgresql"
    if bulk:
        return _refold_bulk(params, progress, written_before)
    return _refold_stepwise(head, params, progress)


def _refold_bulk(params: NGSParams, progress: Progress, written_before: int | None) -> int:
    stats = RefoldStats()
    t0 = time.perf_counter()
    entries = ledger_entries()
    numbers = member_numbers()
    t0 = stats.timed("read_entries_members", t0)
    writer = RefoldWriter(params, entries, stats=stats, written_before=written_before)
    finished = False
    try:
        producer, engine = _writing_fold_class(params)
        fold = producer(params, sink=writer)
        fold.register(numbers)
        folded = fold_ledger(fold, progress=progress, every=PROGRESS_EVERY, ahead=True)
        t0 = stats.timed("fold_and_copy", t0)
        stats.seconds["fold_read"] = folded.read_seconds
        stats.entries = folded.entries
        latest = fold.latest()
        if latest is None:  # nothing live: no current grade, no partnership
            current = CurrentOut(0, *(array(t) for t in "idbiidi"))
            partnerships = PartnershipsOut(0, *(array(t) for t in "iidbdiiii"))
        else:
            current = fold.current_grades(latest)
            partnerships = fold.partnership_grades(latest)
        # the histories in batches of subjects where the fold can (memory holds one batch)
        batches = fold.history_batches() if hasattr(fold, "history_batches") else [fold.histories()]
        t0 = stats.timed("fold_end", t0)
        writer.finish(current, partnerships, batches, fold.numbers)
        finished = True
    finally:
        writer.close(cancel=not finished)
    if folded.entries:  # the head is the fold's too (a ledger written in bulk, S14.6)
        LedgerHead.objects.filter(pk=1).update(
            last_seq=entries.last_seq,
            reference_date=None if latest is None else dt.date.fromordinal(latest),
        )
    stats.timed("write", t0)
    last_refold.update(stats=stats, engine=engine, fold=folded)
    return folded.entries


def _refold_stepwise(head, params: NGSParams, progress: Progress) -> int:
    """The step-by-step refold: each step applied to a Python fold and written through the
    ORM as a grading step writes it (``store_step``); current and partnership grades as of
    the last step that touched them."""
    SessionGrade.objects.filter(entry__isnull=False).delete()
    CurrentGrade.objects.all().delete()
    PartnershipGrade.objects.all().delete()
    state = ReplayState(params, settings.GRADING_ENGINE_PATH)
    entries = list(LedgerEntry.objects.select_related("version").order_by("seq"))
    for done, (entry, op) in enumerate(zip(entries, ledger_ops(entries), strict=True), 1):
        if done % 500 == 0:
            progress(done, len(entries))
        step = apply(state, op)
        state.steps.clear()
        if isinstance(op, ProcessOp):
            store_step(step, entry, entry.version, state)
        else:
            SessionGrade.objects.filter(version=entry.version).update(live=False)
            entry.version.state = SessionVersion.State.WITHDRAWN  # store_step set it graded
            entry.version.save(update_fields=["state"])
            store_grades(step, state)
    progress(len(entries), len(entries))
    last_refold.update(stats=None, engine="the Python engine, one step at a time")
    return len(entries)
