"""Reliability (issue 10): a broker down at upload time loses nothing; concurrent uploads from
two clubs sharing players are graded one at a time, exactly as a replay of the ledger."""

import threading

import pytest
from django.db import connection

import grading.tasks
from grading.ledger.replay.check import ledger_check
from grading.ledger.step import versions_grade_pending
from grading.models import LedgerEntry, SessionVersion, Upload
from grading.uploads.services import upload_create
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import ClubFactory


@pytest.mark.django_db
def test_a_broker_that_is_down_loses_nothing(monkeypatch, django_capture_on_commit_callbacks):
    def broker_down(*args, **kwargs):
        raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(grading.tasks.grade_upload, "apply_async", broker_down)
    club = ClubFactory(slug="riverside")
    with django_capture_on_commit_callbacks(execute=True):
        upload = upload_create(club=club, filename="a.csv", data=csv_bytes(mp_session_rows()))
    upload.refresh_from_db()
    assert upload.status == Upload.Status.STORED  # stored, the administrator got no error
    assert SessionVersion.objects.get().state == "stored"
    assert grading.tasks.grade_pending() == 1  # the beat sweep, once the broker is back
    upload.refresh_from_db()
    assert upload.status == Upload.Status.GRADED
    assert ledger_check() == []


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_concurrent_uploads_from_two_clubs_are_serialised(postgres, monkeypatch):
    """Two clubs upload at once; their sessions share four players. Grading takes the ledger
    lock one version at a time: sequence numbers are gapless and a replay reproduces all."""
    monkeypatch.setattr(grading.tasks.grade_upload, "delay", lambda upload_id: None)
    clubs = [ClubFactory(slug="north"), ClubFactory(slug="south")]
    shared = [("7001", "7002"), ("7003", "7004")]
    errors: list[BaseException] = []

    def club_uploads(index: int) -> None:
        try:
            for week in range(3):
                numbers = shared + [
                    (
                        str(8000 + 100 * index + 10 * week + 2 * i),
                        str(8001 + 100 * index + 10 * week + 2 * i),
                    )
                    for i in range(6)
                ]
                rows = mp_session_rows(
                    event_id=f"E{index}", date=f"2026-11-{2 + 7 * week:02d}", numbers=numbers
                )
                upload_create(
                    club=clubs[index], filename=f"{index}-{week}.csv", data=csv_bytes(rows)
                )
                versions_grade_pending()
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=club_uploads, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    assert SessionVersion.objects.filter(state="graded").count() == 6
    assert list(LedgerEntry.objects.values_list("seq", flat=True)) == [1, 2, 3, 4, 5, 6]
    assert ledger_check() == []
