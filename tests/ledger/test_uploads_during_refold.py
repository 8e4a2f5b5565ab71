"""Uploads that arrive while a refold holds the ledger lock (issue 31 item 1; S5.2, S5.4): each
waits for the lock, none is stored or graded before the refold commits, and once it commits
every one is graded, none lost, in the order the uploads arrived (the ledger's sequence numbers
follow the uploads' ids, given on arrival, not the order PostgreSQL grants the lock in); the
database is then the fold of its ledger (``replay --check``).

The threads need their own connections and commits, so these tests use a transactional
database (each table emptied after the test) rather than a rolled-back transaction."""

import threading
import time

import pytest
from django.db import connection, connections

from grading.ledger.replay import check
from grading.models import AuditEvent, LedgerEntry, LedgerHead, SessionVersion, Upload
from grading.uploads.services import upload_create
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import ClubFactory

ARRIVALS = 4


def _blocked_on_locks() -> int:
    """Other backends of this database waiting for a lock (the uploads behind the refold)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0]


def _wait_until(condition, timeout: float = 20.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.05)
    return False


def _session(day: int, event: str) -> bytes:
    return csv_bytes(mp_session_rows(date=f"2026-10-{day:02d}", event_id=event))


@pytest.mark.django_db(transaction=True)
def test_uploads_during_a_refold_are_graded_after_it_in_order_none_lost(
    postgres, monkeypatch, django_capture_on_commit_callbacks
):
    club = ClubFactory()
    for day in (1, 2, 3):  # a ledger to refold
        with django_capture_on_commit_callbacks(execute=True):
            upload_create(club=club, filename=f"old-{day}.csv", data=_session(day, "OLD"))
    assert LedgerEntry.objects.count() == 3
    seq_before = LedgerHead.objects.get().last_seq

    refolding, release = threading.Event(), threading.Event()
    locked = check.refold_ledger_locked

    def refold_that_waits(head, progress, **kwargs):
        entries = locked(head, progress, **kwargs)  # every row written, not yet committed
        refolding.set()
        assert release.wait(timeout=60), "the test never released the refold"
        return entries

    monkeypatch.setattr(check, "refold_ledger_locked", refold_that_waits)
    errors: list[BaseException] = []
    uploads: dict[int, int] = {}  # arrival -> upload id

    def run(work):
        try:
            work()
        except BaseException as exc:  # the test reports it
            errors.append(exc)
        finally:
            connections.close_all()

    def arrive(k: int) -> None:
        # a later date each (new sessions, in the order they arrive), the eager task grades
        upload = upload_create(club=club, filename=f"new-{k}.csv", data=_session(10 + k, "NEW"))
        uploads[k] = upload.pk

    refold = threading.Thread(target=run, args=(check.ledger_refold,))
    refold.start()
    arrivals: list[threading.Thread] = []
    try:
        assert refolding.wait(timeout=60), errors
        for k in range(ARRIVALS):  # one after the other, each queued behind the lock
            arrivals.append(threading.Thread(target=run, args=(lambda k=k: arrive(k),)))
            arrivals[-1].start()
            assert _wait_until(lambda k=k: _blocked_on_locks() >= k + 1), errors
        # while the refold holds the lock: nothing of theirs stored, graded or in the ledger
        assert not Upload.objects.filter(filename__startswith="new-").exists()
        assert LedgerEntry.objects.count() == 3
        assert not AuditEvent.objects.filter(action=AuditEvent.Action.REFOLD).exists()
    finally:
        release.set()
        refold.join(timeout=60)
        for thread in arrivals:
            thread.join(timeout=60)
    assert errors == []
    assert not refold.is_alive() and not any(t.is_alive() for t in arrivals)

    refolded = AuditEvent.objects.get(action=AuditEvent.Action.REFOLD)
    assert refolded.subject == "ledger refolded (3 entries)"  # it folded the ledger before them
    # none lost: every upload graded, one ledger entry each, after the refold's
    assert sorted(uploads) == list(range(ARRIVALS))
    for upload in Upload.objects.filter(pk__in=uploads.values()):
        assert upload.status == Upload.Status.GRADED, (upload.filename, upload.status)
    new = list(LedgerEntry.objects.filter(seq__gt=seq_before).order_by("seq"))
    assert len(new) == ARRIVALS
    assert all(e.created >= refolded.created for e in new)
    # in order: graded in the order the uploads arrived (S5.2), each once. PostgreSQL does not
    # grant the ledger head's lock in the order asked (the 2nd and 3rd arrivals stored swapped
    # in one run of five), so the order is the uploads', numbered as they arrived
    assert [e.version.upload_id for e in new] == [uploads[k] for k in range(ARRIVALS)]
    assert SessionVersion.objects.filter(state=SessionVersion.State.STORED).count() == 0
    assert LedgerHead.objects.get().last_seq == seq_before + ARRIVALS
    assert check.ledger_check() == []
