"""The administrator's upload page (issue 5, S12, S13)."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from grading.models import SessionGrade, SessionVersion, Upload
from tests.csvfiles import csv_bytes, mp_session_rows


def csv_file(name="mon.csv", **kwargs):
    return SimpleUploadedFile(name, csv_bytes(mp_session_rows(**kwargs)), "text/csv")


@pytest.fixture
def admin_client(client, club_admin):
    user, _, club = club_admin
    client.force_login(user)
    return client, club


@pytest.mark.django_db
def test_only_the_clubs_administrators_may_upload(client, member_user, club_admin, other_club):
    admin, _, club = club_admin
    member, _, _ = member_user
    url = reverse("uploads", args=[club.slug])
    assert client.get(url).status_code == 302
    client.force_login(member)
    assert client.get(url).status_code == 403
    assert client.post(url, {"files": csv_file()}).status_code == 403
    client.force_login(admin)
    assert client.get(reverse("uploads", args=[other_club.slug])).status_code == 403
    assert client.get(url).status_code == 200
    assert not Upload.objects.exists()


@pytest.mark.django_db
def test_upload_two_files_and_see_them_graded(admin_client, django_capture_on_commit_callbacks):
    client, club = admin_client
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("uploads", args=[club.slug]),
            {"files": [csv_file("mon.csv"), csv_file("tue.csv", event_id="TUE")]},
        )
    body = client.get(response["Location"]).content.decode()
    assert body.count('data-testid="upload-status"') == 2
    assert Upload.objects.filter(status=Upload.Status.GRADED).count() == 2
    assert SessionVersion.objects.filter(state="graded").count() == 2
    assert "New session" in body and "TUE Pairs" in body
    status = client.get(reverse("upload-status", args=[club.slug, Upload.objects.first().pk]))
    assert 'data-status="graded"' in status.content.decode()
    assert "hx-get" not in status.content.decode()  # finished: polling stops


@pytest.mark.django_db
def test_refused_file_lists_every_problem_and_stores_nothing(
    admin_client, django_capture_on_commit_callbacks
):
    client, club = admin_client
    rows = mp_session_rows()
    rows[2]["score"] = "abc"
    bad = SimpleUploadedFile("bad.csv", csv_bytes(rows), "text/csv")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("uploads", args=[club.slug]), {"files": bad})
    body = client.get(response["Location"]).content.decode()
    assert "Refused: nothing was stored" in body
    assert "line 4, column score" in body
    assert not SessionVersion.objects.exists()


@pytest.mark.django_db
def test_oversize_file_is_refused_without_being_read(admin_client, settings, monkeypatch):
    client, club = admin_client
    settings.UPLOAD_MAX_BYTES = 2000
    monkeypatch.setattr(  # the view must refuse it from its size, never reading the bytes
        "grading.uploads.views.upload_receive",
        lambda **kw: pytest.fail("an oversize file was read"),
    )
    big = SimpleUploadedFile("big.xml", b"<x>" + b"a" * 3000 + b"</x>", "text/xml")
    response = client.post(reverse("uploads", args=[club.slug]), {"files": big}, follow=True)
    assert "limited to" in response.content.decode()
    assert Upload.objects.get().status == Upload.Status.REFUSED


@pytest.mark.django_db
def test_withdraw_removes_the_sessions_grades(admin_client, django_capture_on_commit_callbacks):
    client, club = admin_client
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("uploads", args=[club.slug]), {"files": csv_file()})
    version = SessionVersion.objects.get()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("version-withdraw", args=[club.slug, version.pk]))
    page = client.get(response["Location"]).content.decode()
    assert "Withdrawn:" in page and "removed" in page
    version.refresh_from_db()
    assert version.state == "withdrawn"
    assert not SessionGrade.objects.filter(live=True).exists()
    again = client.post(reverse("version-withdraw", args=[club.slug, version.pk]), follow=True)
    assert "not graded" in again.content.decode()


@pytest.mark.django_db
def test_past_uploads_list_has_no_n_plus_one(
    admin_client, django_capture_on_commit_callbacks, django_assert_max_num_queries
):
    client, club = admin_client
    with django_capture_on_commit_callbacks(execute=True):
        for i in range(6):
            client.post(reverse("uploads", args=[club.slug]), {"files": csv_file(event_id=f"E{i}")})
    with django_assert_max_num_queries(12):
        response = client.get(reverse("uploads", args=[club.slug]))
    assert response.content.decode().count("version 1") == 6
