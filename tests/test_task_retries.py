"""Issue 32 item 8: after ``kill -9`` of the worker a task waited for Redis's one-hour
visibility timeout, tasks that hit a database error were not retried (both waited for the
five-minute sweep), and a withdrawal racing a correction of the same session deadlocked on the
club row. Now: a ten-minute visibility timeout, every task acks late and is put back when its
worker is lost, database errors (deadlocks, lost connections) are retried with backoff, and
every write that touches the ledger takes the ledger head first."""

import pytest
from django.conf import settings
from django.db import OperationalError, connection
from django.test.utils import CaptureQueriesContext

import grading.tasks
from grading.ledger.step import versions_grade_pending
from grading.models import SessionVersion
from grading.uploads.services import session_withdraw, upload_create
from tests.csvfiles import csv_bytes, mp_session_rows

TASKS = [
    grading.tasks.process_upload,
    grading.tasks.grade_upload,
    grading.tasks.grade_pending,
    grading.tasks.refresh_grades,
    grading.tasks.regrade_brambledown,
    grading.tasks.refold_ledger,
]


def test_a_lost_workers_message_comes_back_within_ten_minutes():
    assert settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] == 600
    assert settings.CELERY_TASK_ACKS_LATE and settings.CELERY_TASK_REJECT_ON_WORKER_LOST


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_every_task_is_retried_on_database_errors_with_backoff(task):
    assert task.acks_late and task.reject_on_worker_lost
    assert OperationalError in task.autoretry_for
    assert task.retry_backoff and task.retry_jitter and task.max_retries >= 3


def test_a_deadlock_is_retried_not_lost(monkeypatch):
    calls = []

    def grade_once_deadlocked():
        calls.append(1)
        if len(calls) == 1:
            raise OperationalError("deadlock detected")
        return 2

    monkeypatch.setattr(grading.tasks, "versions_grade_pending", grade_once_deadlocked)
    # Run in this process, the retry runs at once (a worker waits the backoff).
    result = grading.tasks.grade_upload.apply(args=[1], throw=False)
    assert len(calls) == 2 and result.state == "SUCCESS" and result.get() == 2


def first_lock(queries: list[dict]) -> str:
    """The table of the first row lock a transaction takes (FOR UPDATE or an UPDATE)."""
    for query in queries:
        sql = query["sql"]
        if "FOR UPDATE" in sql or sql.startswith("UPDATE"):
            table = sql.split("FROM" if "FOR UPDATE" in sql else "UPDATE")[1].split()[0]
            return table.strip('"')
    return ""


@pytest.mark.django_db(transaction=True)
def test_storing_a_correction_and_a_withdrawal_lock_the_ledger_head_first(club_admin):
    if connection.vendor != "postgresql":
        pytest.skip("row locks are PostgreSQL's")
    _, _, club = club_admin
    upload_create(club=club, filename="mon.csv", data=csv_bytes(mp_session_rows()))
    versions_grade_pending()
    corrected = mp_session_rows(scores=[62.5, 55.0, 52.5, 50.0, 47.5, 45.0, 43.5, 44.0])
    with CaptureQueriesContext(connection) as storing:
        upload_create(club=club, filename="mon2.csv", data=csv_bytes(corrected))
    assert first_lock(storing.captured_queries[2:]) == "grading_ledgerhead"
    versions_grade_pending()
    live = SessionVersion.objects.get(state=SessionVersion.State.GRADED)
    with CaptureQueriesContext(connection) as withdrawing:
        session_withdraw(version=live)
    assert first_lock(withdrawing.captured_queries) == "grading_ledgerhead"


@pytest.mark.django_db(transaction=True)
def test_a_correction_stored_while_its_session_is_withdrawn_does_not_deadlock(
    club_admin, monkeypatch
):
    """The race the tester found, forced: the correction's storing reaches the club row while
    the withdrawal holds it (and wants the session row the storing holds). Before the one lock
    order PostgreSQL broke the deadlock by failing one of them; now the second waits."""
    if connection.vendor != "postgresql":
        pytest.skip("row locks are PostgreSQL's")
    import threading

    from django.db import connections

    import grading.common.stale
    import grading.uploads.store

    _, _, club = club_admin
    upload_create(club=club, filename="mon.csv", data=csv_bytes(mp_session_rows()))
    versions_grade_pending()
    live = SessionVersion.objects.get(state=SessionVersion.State.GRADED)
    storing_ready, withdrawal_bumped = threading.Event(), threading.Event()
    store_bump = grading.uploads.store.club_pages_invalidate
    withdraw_bump = grading.common.stale.club_pages_invalidate

    def storing_waits(**kwargs):
        storing_ready.set()
        withdrawal_bumped.wait(timeout=3)
        return store_bump(**kwargs)

    def withdrawal_signals(**kwargs):
        done = withdraw_bump(**kwargs)
        withdrawal_bumped.set()
        return done

    monkeypatch.setattr(grading.uploads.store, "club_pages_invalidate", storing_waits)
    monkeypatch.setattr(grading.common.stale, "club_pages_invalidate", withdrawal_signals)
    errors = []
    corrected = mp_session_rows(scores=[62.5, 55.0, 52.5, 50.0, 47.5, 45.0, 43.5, 44.0])

    def run(work):
        try:
            work()
        except Exception as exc:  # noqa: BLE001 (the test reports it)
            errors.append(exc)
        finally:
            connections.close_all()

    storing = threading.Thread(
        target=run,
        args=(lambda: upload_create(club=club, filename="b.csv", data=csv_bytes(corrected)),),
    )
    storing.start()
    assert storing_ready.wait(timeout=10)
    withdrawing = threading.Thread(target=run, args=(lambda: session_withdraw(version=live),))
    withdrawing.start()
    storing.join(timeout=30)
    withdrawing.join(timeout=30)
    assert errors == []
    live.refresh_from_db()
    assert live.state == SessionVersion.State.WITHDRAWN
