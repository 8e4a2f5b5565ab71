"""Workers killed in the middle of grading (issue 10): a real prefork worker process on Redis
and PostgreSQL hangs inside its grading transaction, after the ledger append and before the
commit, and is killed. After recovery every upload is graded exactly once and the stored
grades are the replay of the ledger (S5.2, S5.4).

Two faults: the whole worker killed and restarted (its unacknowledged message comes back after
the visibility timeout), and only the pool process killed (``reject_on_worker_lost`` puts the
message back at once and the worker forks a new pool process).
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection

import grading.common.queue
import grading.tasks
import grading.uploads.services
from grading.ledger.replay.check import ledger_check
from grading.models import LedgerEntry, SessionGrade, SessionVersion, Upload
from grading.uploads.services import upload_create
from tests.conftest import skip_or_fail
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import ClubFactory

pytestmark = [pytest.mark.slow, pytest.mark.services]

ROOT = Path(__file__).resolve().parent.parent
UPLOADS = 3
PLAYERS_PER_SESSION = 16


def database_url() -> str:
    s = connection.settings_dict
    return f"postgres://{s['USER']}:{s['PASSWORD']}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


class Worker:
    """``python -m tests.fault_worker`` in its own process group, so it can be killed whole."""

    def __init__(self, *, queue: str, log: Path, hang_marker: Path | None = None):
        env = {
            **os.environ,
            "DATABASE_URL": database_url(),
            "REDIS_URL": os.environ["TEST_REDIS_URL"],
            "FAULT_QUEUE": queue,
            "DB_CONN_MAX_AGE": "0",
        }
        env.pop("FAULT_HANG_MARKER", None)
        if hang_marker is not None:
            env["FAULT_HANG_MARKER"] = str(hang_marker)
        self.log = log
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.fault_worker"],
            cwd=ROOT,
            env=env,
            stdout=log.open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def kill(self) -> None:
        """SIGKILL to the whole group: the main process and its pool, no chance to clean up."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def fault_lab(transactional_db, postgres, tmp_path):
    """A producer app on this run's Redis queue, and a way to start fault workers on it."""
    redis_url = os.environ.get("TEST_REDIS_URL")
    if not redis_url:
        skip_or_fail("Redis is not reachable: start it or set TEST_REDIS_URL")
    from celery import Celery

    from grading.celery import app as product_app

    queue = f"fault-{os.getpid()}-{time.monotonic_ns()}"
    app = Celery("grading-fault-test")
    app.config_from_object("django.conf:settings", namespace="CELERY")
    app.conf.update(
        broker_url=redis_url,
        result_backend=redis_url,
        task_always_eager=False,
        task_default_queue=queue,
        task_queues=None,  # every task on this run's own queue
        task_routes=None,
    )
    app.autodiscover_tasks(["grading"])
    app.set_current()
    app.set_default()
    workers: list[Worker] = []

    def start(hang_marker: Path | None = None) -> Worker:
        worker = Worker(queue=queue, log=tmp_path / "worker.log", hang_marker=hang_marker)
        workers.append(worker)
        return worker

    try:
        yield start
    finally:
        for worker in workers:
            worker.stop()
        product_app.set_current()
        product_app.set_default()
        app.close()
        log = tmp_path / "worker.log"
        if log.exists():  # shown by pytest when the test fails
            print(log.read_text(errors="replace")[-6000:])


def upload_task_sent(sent: list, task_name: str, upload_id: int) -> None:
    """An upload's tasks go to the worker under test; the after-step work (pages warmed,
    emails) is not what these tests measure and is not sent."""
    if task_name in ("grading.process_upload", "grading.grade_upload"):
        sent.append(grading.tasks.grade_upload.delay(upload_id))


def upload_sessions(club, monkeypatch) -> list:
    """Three uploads sharing players, each dispatched to the queue; returns their AsyncResults."""
    sent = []
    monkeypatch.setattr(
        grading.common.queue,
        "task_publish",
        lambda task_name, upload_id, **options: upload_task_sent(sent, task_name, upload_id),
    )
    numbers = [(str(5001 + 2 * i), str(5002 + 2 * i)) for i in range(PLAYERS_PER_SESSION // 2)]
    for week in range(UPLOADS):
        rows = mp_session_rows(date=f"2026-11-{2 + 7 * week:02d}", numbers=numbers)
        upload_create(club=club, filename=f"week-{week}.csv", data=csv_bytes(rows))
    assert len(sent) == UPLOADS
    return sent


def wait_for(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.2)


def assert_nothing_graded() -> None:
    """The killed transaction left no trace: its ledger append was never committed."""
    assert not LedgerEntry.objects.exists()
    assert set(SessionVersion.objects.values_list("state", flat=True)) == {"stored"}
    assert not SessionGrade.objects.exists()


def assert_graded_exactly_once(results) -> None:
    # Every task ran to the end (the killed one too, redelivered), and between them they graded
    # each stored version once: the tasks return how many versions they graded. (The test is
    # not a task, whatever flag an in-process worker of an earlier test left in Celery.)
    assert sum(result.get(timeout=60, disable_sync_subtasks=False) for result in results) == UPLOADS
    assert set(Upload.objects.values_list("status", flat=True)) == {Upload.Status.GRADED}
    entries = list(LedgerEntry.objects.order_by("seq").values_list("seq", "version_id"))
    assert [seq for seq, _ in entries] == list(range(1, UPLOADS + 1))  # gapless, no repeat
    assert len({version for _, version in entries}) == UPLOADS
    assert SessionGrade.objects.filter(live=True).count() == UPLOADS * PLAYERS_PER_SESSION
    assert ledger_check() == []
    call_command("replay", "--check")  # raises CommandError on any difference


def test_a_worker_killed_mid_grading_is_restarted_and_grades_each_upload_once(
    fault_lab, monkeypatch, tmp_path
):
    marker = tmp_path / "hanging"
    worker = fault_lab(hang_marker=marker)
    results = upload_sessions(ClubFactory(slug="riverside"), monkeypatch)
    wait_for(marker.exists, 90, "the worker to hang inside its grading transaction")

    worker.kill()
    assert_nothing_graded()

    fault_lab()  # the restarted worker, no fault this time
    wait_for(
        lambda: not Upload.objects.exclude(status=Upload.Status.GRADED).exists(),
        90,
        "the restarted worker to grade every upload",
    )
    assert_graded_exactly_once(results)


def test_a_killed_pool_process_is_replaced_and_its_task_redelivered(
    fault_lab, monkeypatch, tmp_path
):
    marker = tmp_path / "hanging"
    worker = fault_lab(hang_marker=marker)
    results = upload_sessions(ClubFactory(slug="riverside"), monkeypatch)
    wait_for(marker.exists, 90, "the pool process to hang inside its grading transaction")
    pool_pid = int(marker.read_text())
    assert pool_pid != worker.process.pid  # the hang is in a forked pool process

    os.kill(pool_pid, signal.SIGKILL)
    wait_for(
        lambda: not Upload.objects.exclude(status=Upload.Status.GRADED).exists(),
        90,
        "the worker's new pool process to grade every upload",
    )
    assert worker.process.poll() is None  # the worker itself lived on
    assert_graded_exactly_once(results)


def test_a_worker_started_on_a_graded_ledger_grades_from_the_subject_tables(
    fault_lab, monkeypatch, tmp_path
):
    """A new worker folds nothing when it starts (grading/celery.py): its pool process grades
    the next upload from the subject tables (grading/ledger/subjects.py), as a replay would."""
    first = fault_lab()
    club = ClubFactory(slug="riverside")
    results = upload_sessions(club, monkeypatch)
    wait_for(
        lambda: not Upload.objects.exclude(status=Upload.Status.GRADED).exists(),
        90,
        "the first worker to grade every upload",
    )
    assert_graded_exactly_once(results)
    first.stop()

    log = tmp_path / "worker.log"
    log.write_text("")
    fault_lab()
    sent = []
    monkeypatch.setattr(
        grading.common.queue,
        "task_publish",
        lambda task_name, upload_id, **options: upload_task_sent(sent, task_name, upload_id),
    )
    numbers = [(str(5001 + 2 * i), str(5002 + 2 * i)) for i in range(PLAYERS_PER_SESSION // 2)]
    upload_create(
        club=club,
        filename="late.csv",
        data=csv_bytes(mp_session_rows(date="2026-11-23", numbers=numbers)),
    )
    assert sent[0].get(timeout=60, disable_sync_subtasks=False) == 1
    assert list(LedgerEntry.objects.order_by("seq").values_list("seq", flat=True)) == [1, 2, 3, 4]
    assert ledger_check() == []
    call_command("replay", "--check")
