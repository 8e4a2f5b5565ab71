"""A worker's main process folds the ledger before its pool forks (grading/celery.py), so pool
processes start with the fold instead of each folding the whole ledger at its first upload.
tests/test_worker_faults.py runs it in real prefork workers (killed mid-grading, restarted)."""

from types import SimpleNamespace

import pytest
from celery import Celery

import grading.ledger.state
from grading.celery import app, ledger_state_before_fork
from grading.models import LedgerHead
from grading.uploads.services import upload_create
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import ClubFactory


@pytest.fixture
def calls(monkeypatch):
    """What the warm-up closes and freezes, recorded instead of done (this is a test process
    inside a transaction, not a worker about to fork)."""
    done = []
    monkeypatch.setattr(grading.ledger.state.connections, "close_all", lambda: done.append("close"))
    monkeypatch.setattr(grading.ledger.state.gc, "freeze", lambda: done.append("freeze"))
    grading.ledger.state.ledger_state_forget()
    yield done
    grading.ledger.state.ledger_state_forget()


@pytest.fixture
def graded(db, django_capture_on_commit_callbacks):
    club = ClubFactory()
    for date in ("2026-11-02", "2026-11-09"):
        with django_capture_on_commit_callbacks(execute=True):
            upload_create(
                club=club,
                filename=f"{date}.csv",
                data=csv_bytes(mp_session_rows(date=date, event_id="MON")),
            )
    grading.ledger.state.ledger_state_forget()  # as a worker process that has graded nothing yet
    return LedgerHead.objects.get()


def test_our_worker_folds_the_ledger_before_forking(graded, calls):
    ledger_state_before_fork(sender=SimpleNamespace(app=app))
    state = grading.ledger.state._states[graded.params_name]
    assert state.last_seq == graded.last_seq == 2
    assert calls == ["close", "freeze"]  # no connection or collector pages shared with children


def test_another_apps_worker_is_left_alone(graded, calls):
    other = Celery("someone-else", set_as_current=False)  # current, it would take every task
    ledger_state_before_fork(sender=SimpleNamespace(app=other))
    ledger_state_before_fork(sender=None)
    assert grading.ledger.state._states == {} and calls == []
    other.close()


def test_an_empty_ledger_is_nothing_to_fold(db, calls):
    assert grading.ledger.state.ledger_state_warm() == 0


def test_a_fold_that_fails_leaves_no_half_state_and_no_connection(graded, calls, monkeypatch):
    """The worker must not start its pool with a ledger folded half-way (its next upload would
    append to a wrong state); the next task folds afresh instead."""

    def broken(state, op):
        raise MemoryError("folding")

    monkeypatch.setattr(grading.ledger.state, "apply", broken)
    with pytest.raises(MemoryError):
        grading.ledger.state.ledger_state_warm()
    assert grading.ledger.state._states == {} and calls == ["close"]
