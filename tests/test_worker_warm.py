"""A worker needs no warm-up (issue 17): it starts with nothing folded, and each grading step
reads from PostgreSQL only the histories of the players and partnerships it touches (the
subject tables, grading/ledger/subjects.py), after a restart, a rollback or a restore alike.
tests/test_worker_faults.py runs real prefork workers (killed mid-grading, restarted)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import random

import pytest
from celery import signals
from django.db import connection
from django.test.utils import CaptureQueriesContext

import grading.ledger.step
from grading.engine import codec
from grading.engine.ngs import NGS_DEFAULT, ProcessOp, apply, compare_steps, get_params, replay
from grading.engine.types import SessionResult
from grading.ledger import subjects
from grading.ledger.ops import ledger_ops
from grading.ledger.replay.check import ledger_check, ledger_refold
from grading.ledger.step_reads import subjects_state, subjects_step
from grading.ledger.subjects import tables_mark, tables_marked
from grading.models import (
    LedgerEntry,
    LedgerHead,
    LedgerHistory,
    LedgerLive,
    LedgerSubject,
    SessionVersion,
    Upload,
)
from grading.uploads.services import upload_create
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.engine.ledgers import FIELDS
from tests.engine.ledgers import session as ledger_session
from tests.factories import ClubFactory

SOUTH = [(str(2001 + 2 * i), str(2002 + 2 * i)) for i in range(8)]


def tables_problems() -> list[str]:
    """The subject tables against a fold of the whole ledger (what replay --check folds)."""
    head = LedgerHead.objects.get()
    entries = LedgerEntry.objects.select_related("version").order_by("seq")
    state = replay(ledger_ops(entries), get_params(head.params_name), path="fast")
    return subjects.subjects_problems(state)


@pytest.fixture
def club(db):
    return ClubFactory()


@pytest.fixture
def send(club, django_capture_on_commit_callbacks):
    def send(date: str, event: str = "MON", numbers=None) -> Upload:
        with django_capture_on_commit_callbacks(execute=True):
            return upload_create(
                club=club,
                filename=f"{event}-{date}.csv",
                data=csv_bytes(mp_session_rows(date=date, event_id=event, numbers=numbers)),
            )

    return send


@pytest.fixture
def graded(send):
    """Two fields of players who never meet, each with three sessions graded."""
    for day in ("02", "09", "16"):
        send(f"2026-10-{day}")
        send(f"2026-10-{day}", event="TUE", numbers=SOUTH)
    assert ledger_check() == [] and tables_problems() == []
    return LedgerHead.objects.get()


def test_no_fold_at_worker_start():
    """Nothing of ours runs when a worker starts: no fold of the ledger before the pool forks."""
    ours = [
        receiver
        for _, ref in signals.worker_init.receivers
        if (receiver := ref() if callable(ref) else ref) is not None
        and getattr(receiver, "__module__", "").startswith("grading")
    ]
    assert ours == []


def test_a_worker_grades_its_next_upload_reading_only_its_players(graded, send, monkeypatch):
    """A new worker process (nothing cached) grades an upload from the rows of its own players
    and partnerships: no ledger entry is read or decoded, and the other field's histories are
    not read."""

    def whole_ledger(*_args, **_kwargs):
        raise AssertionError("a grading step folded the whole ledger")

    monkeypatch.setattr(grading.ledger.step, "subjects_rebuild", whole_ledger)
    monkeypatch.setattr(grading.ledger.step, "ledger_ops", whole_ledger)  # the ledger decoded
    decoded = []
    load = codec.load
    monkeypatch.setattr(codec, "load", lambda kind, data: decoded.append(kind) or load(kind, data))
    before = subjects.rows_read
    with CaptureQueriesContext(connection) as queries:
        upload = send("2026-10-23")
    upload.refresh_from_db()
    assert upload.status == Upload.Status.GRADED
    read = subjects.rows_read - before
    north = LedgerHistory.objects.exclude(
        subject__key__in=[n for pair in SOUTH for n in pair] + [f"{a}+{b}" for a, b in SOUTH]
    )
    total = LedgerHistory.objects.count()
    # the north field's 16 players and 8 partnerships (24 subject rows), 3 sessions each
    # before this one (the 24 history rows it added are not read)
    history_read = read - 24
    assert history_read == north.count() - 24
    assert history_read < total / 2  # the other field's histories were not read
    # the upload's own version is decoded; no other version's payload is
    assert decoded.count(SessionResult) <= 2 < LedgerEntry.objects.count()
    whole = [  # a read of ledger entries not narrowed to one version
        q["sql"]
        for q in queries.captured_queries
        if q["sql"].lstrip().upper().startswith("SELECT")
        and 'FROM "grading_ledgerentry"' in q["sql"]
        and '"grading_ledgerentry"."version_id" =' not in q["sql"]
    ]
    assert whole == []
    assert ledger_check() == [] and tables_problems() == []


def test_a_correction_withdraws_and_processes_from_the_tables(graded, send):
    """A corrected file withdraws the live version and processes the new one (S5.3), each step
    from its own subjects; the reference date and every grade equal the fold's."""
    send("2026-10-16", event="TUE", numbers=list(reversed(SOUTH)))
    assert LedgerEntry.objects.filter(operation=LedgerEntry.Operation.WITHDRAW).count() == 1
    assert ledger_check() == [] and tables_problems() == []


def test_a_step_rolled_back_leaves_the_tables_as_they_were(graded, send, monkeypatch):
    """A step that fails after writing its rows is rolled back with them; the next upload is
    graded from the tables as if the failed one had never been tried."""
    rows = LedgerHistory.objects.count()

    def broken(**_kwargs):
        raise RuntimeError("after the step's rows were written")

    monkeypatch.setattr(grading.ledger.step, "after_step_run", broken)
    failed = send("2026-10-23")
    failed.refresh_from_db()
    assert failed.status == Upload.Status.FAILED
    assert LedgerHistory.objects.count() == rows
    assert tables_marked()[0] == graded.last_seq
    monkeypatch.undo()
    send("2026-10-30", numbers=SOUTH)
    assert ledger_check() == [] and tables_problems() == []


def test_tables_from_before_are_refilled_once(graded, send):
    """A database migrated from before the subject tables (or restored from a backup that
    lacks them) has them refilled by one fold of the ledger at its next step, then reads only
    its subjects again."""
    LedgerHistory.objects.all().delete()
    LedgerLive.objects.all().delete()
    LedgerSubject.objects.all().delete()
    tables_mark(0, "")
    send("2026-10-23")
    head = LedgerHead.objects.get()
    assert tables_marked() == (head.last_seq, head.params_name)
    assert ledger_check() == [] and tables_problems() == []
    assert SessionVersion.objects.filter(state=SessionVersion.State.GRADED).count() == 7


def test_a_refold_rewrites_the_tables_it_leaves_exact(graded, send):
    """The staff refold stores every step of a whole fold through the same store: the tables
    come out as the fold's (corrections included), and the next step reads them."""
    send("2026-10-16", event="TUE", numbers=list(reversed(SOUTH)))
    LedgerHistory.objects.update(grade=0.0)  # what the refold must put right
    assert ledger_refold() == LedgerEntry.objects.count()
    assert tables_problems() == []
    send("2026-10-23")
    assert ledger_check() == [] and tables_problems() == []


def _steady_ledger(first: dt.date, last: dt.date) -> list[ProcessOp]:
    """Eight members in four steady pairs, a 24-board session a fortnight back from ``last`` to
    ``first``: each member plays every session; the sessions counted back from ``last`` are the
    same whatever ``first``."""
    shape = dataclasses.replace(
        FIELDS, pool=8, pairs=(4, 4), boards=(24,), host=0.0, visitor=0.0, steady=1.0
    )
    dates = []
    while last - dt.timedelta(days=14 * len(dates)) >= first:
        dates.append(last - dt.timedelta(days=14 * len(dates)))
    sessions = [ledger_session(random.Random(k), k, d, shape, 8) for k, d in enumerate(dates)]
    return [ProcessOp(seq, str(seq), s) for seq, s in enumerate(reversed(sessions), start=1)]


@pytest.mark.django_db
def test_a_step_reads_the_same_rows_however_long_the_histories():
    """The rows a step reads do not grow with its players' histories: their sessions within 3
    years of the date it grades at (S4, S14.6), and one row of totals for the rest (S14.7-8:
    300 boards after the cut make the rest irrelevant to the grade). Histories of 5 and of 9
    years before the same last 3 years: the same rows read, and fewer than the last 3 years
    hold, with their subjects, plus the totals."""
    params = NGS_DEFAULT
    end = dt.date(2026, 6, 1)
    reads, held = [], []
    for years in (8, 12):
        for table in (LedgerHistory, LedgerLive, LedgerSubject):
            table.objects.all().delete()
        ops = _steady_ledger(dt.date(end.year - years, 6, 1), end)
        for op in ops[:-1]:
            subjects_step(params, op.seq - 1, op)
        before = subjects.rows_read
        state = subjects_state(params, ops[-2].seq, ops[-1])
        reads.append(subjects.rows_read - before)
        held.append(LedgerHistory.objects.count())
        assert compare_steps([replay(ops).steps[-1]], [apply(state, ops[-1])]) == []
    recent = LedgerHistory.objects.filter(date__gt=dt.date(end.year - 3, 6, 1)).count()
    assert reads[0] == reads[1] <= recent + 2 * LedgerSubject.objects.count()
    assert held[1] > held[0] > 2 * reads[0]
