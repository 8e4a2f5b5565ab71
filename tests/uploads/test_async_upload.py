"""Long work out of the web request (issue 21 item 3): the request stores the file and answers;
the worker checks, stores and grades it, all-or-nothing; a withdrawal runs the same way; a
broker that is down neither holds the request nor loses the upload."""

import time

import pytest
from django.urls import reverse

import grading.tasks
from grading.ledger.replay.check import ledger_check
from grading.models import AuditEvent, SessionGrade, SessionVersion, Upload
from grading.uploads.services import upload_receive, withdrawal_request
from members.models import Member
from tests.csvfiles import csv_bytes, mp_session_rows


def big_session(pairs: int) -> bytes:
    numbers = [(str(200000 + 2 * i), str(200001 + 2 * i)) for i in range(pairs)]
    scores = [round(30 + 40 * (i % 97) / 96, 2) for i in range(pairs)]
    return csv_bytes(mp_session_rows(numbers=numbers, scores=scores))


@pytest.fixture
def admin_client(client, club_admin):
    user, _, club = club_admin
    client.force_login(user)
    return client, club


@pytest.mark.django_db
def test_a_10000_pair_file_is_answered_at_once_then_refused_by_the_worker(
    admin_client, monkeypatch
):
    """Before: a legal 10,000-pair USEBIO file took 22.6 s in the request, a 20,000-pair one
    reached gunicorn's timeout (HTTP 500, not even the refusal recorded)."""
    client, club = admin_client
    data = big_session(10_000)
    assert len(data) < 10 * 1024 * 1024
    monkeypatch.setattr(  # the request must not parse: that is the worker's
        "grading.uploads.services.parse_file", lambda *a, **k: pytest.fail("parsed in a request")
    )
    from django.core.files.uploadedfile import SimpleUploadedFile

    started = time.monotonic()
    response = client.post(
        reverse("uploads", args=[club.slug]),
        {"files": SimpleUploadedFile("huge.csv", data, "text/csv")},
    )
    answered = time.monotonic() - started
    assert response.status_code == 302 and answered < 3, answered
    upload = Upload.objects.get()
    assert upload.status == Upload.Status.RECEIVED and bytes(upload.content) == data
    page = client.get(response["Location"]).content.decode()
    assert "Checking the file" in page and "hx-get" in page  # polled until it is checked

    monkeypatch.undo()
    grading.tasks.process_upload(upload.pk)  # the worker
    upload.refresh_from_db()
    assert upload.status == Upload.Status.REFUSED
    # the session is over the per-session bound, and the file over the per-file one (issue 32
    # item 9)
    file_problem, problem = upload.problems
    assert "10,000 pairs" in problem["message"] and "500" in problem["message"]
    assert "10,000 pairs over all its sessions" in file_problem["message"]
    # All-or-nothing: the refusal record (without the file) and its audit entry, nothing else.
    assert bytes(upload.content) == b""
    assert not SessionVersion.objects.exists()
    assert not Member.objects.filter(national_number__startswith="2000").exists()
    assert AuditEvent.objects.filter(action="upload", details__status="refused").count() == 1


@pytest.mark.django_db
def test_the_worker_checks_stores_and_grades_a_received_file(admin_client):
    client, club = admin_client
    upload = upload_receive(club=club, filename="mon.csv", data=csv_bytes(mp_session_rows()))
    assert upload.status == Upload.Status.RECEIVED
    assert grading.tasks.process_upload(upload.pk) == 1
    upload.refresh_from_db()
    assert upload.status == Upload.Status.GRADED
    assert grading.tasks.process_upload(upload.pk) == 0  # delivered twice: graded once
    assert SessionVersion.objects.get().state == "graded"
    assert ledger_check() == []


@pytest.mark.django_db
def test_a_file_of_501_pairs_is_refused_with_a_message(club_admin):
    _, _, club = club_admin
    upload = upload_receive(club=club, filename="big.csv", data=big_session(501))
    grading.tasks.process_upload(upload.pk)
    upload.refresh_from_db()
    assert upload.status == Upload.Status.REFUSED
    assert upload.problems[0]["location"].startswith("MON Pairs, ")
    assert "501 pairs" in upload.problems[0]["message"]


@pytest.mark.django_db
def test_a_withdrawal_runs_in_the_worker_with_the_same_progress(
    admin_client, django_capture_on_commit_callbacks, monkeypatch
):
    client, club = admin_client
    with django_capture_on_commit_callbacks(execute=True):
        upload_receive(club=club, filename="mon.csv", data=csv_bytes(mp_session_rows()))
    version = SessionVersion.objects.get(state="graded")
    monkeypatch.setattr(  # the request only records the withdrawal
        "grading.uploads.services.version_withdraw", lambda **k: pytest.fail("in the request")
    )
    response = client.post(reverse("version-withdraw", args=[club.slug, version.pk]))
    withdrawal = Upload.objects.get(summary__withdraw=version.pk)
    assert response["Location"].endswith(f"?show={withdrawal.pk}")
    page = client.get(response["Location"]).content.decode()
    assert "Withdrawing" in page and "hx-get" in page
    monkeypatch.undo()
    grading.tasks.process_upload(withdrawal.pk)
    version.refresh_from_db()
    assert version.state == "withdrawn"
    assert not SessionGrade.objects.filter(live=True).exists()
    status = client.get(reverse("upload-status", args=[club.slug, withdrawal.pk])).content
    assert b"Withdrawn:" in status and b"hx-get" not in status
    listing = client.get(reverse("uploads", args=[club.slug])).content.decode()
    assert ">Withdrawn</span>" in listing
    with pytest.raises(ValueError, match="nothing to withdraw"):
        withdrawal_request(version=version)
    assert ledger_check() == []


@pytest.mark.django_db
def test_with_redis_down_an_upload_is_answered_within_a_second_and_swept_later(
    admin_client, django_capture_on_commit_callbacks
):
    """Before: each upload blocked about 19 s on publish retries (the result store's
    reconnection policy) with Redis unreachable."""
    from celery import Celery
    from django.core.files.uploadedfile import SimpleUploadedFile

    from grading.celery import app as product_app

    client, club = admin_client
    dead = "redis://127.0.0.1:1/0"  # nothing listens there
    app = Celery("grading-redis-down")
    app.config_from_object("django.conf:settings", namespace="CELERY")  # the product's settings
    app.conf.update(broker_url=dead, result_backend=dead, task_always_eager=False)
    app.autodiscover_tasks(["grading"])
    app.set_current()
    try:
        started = time.monotonic()
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(
                reverse("uploads", args=[club.slug]),
                {"files": SimpleUploadedFile("mon.csv", csv_bytes(mp_session_rows()))},
            )
        answered = time.monotonic() - started
    finally:
        product_app.set_current()
        product_app.set_default()
        app.close()
    assert response.status_code == 302 and answered < 1.5, answered
    upload = Upload.objects.get()
    assert upload.status == Upload.Status.RECEIVED  # kept, for the sweep
    assert grading.tasks.grade_pending() == 1  # the beat sweep, once Redis is back
    upload.refresh_from_db()
    assert upload.status == Upload.Status.GRADED
    assert ledger_check() == []
