"""The upload API (issue 5): token or session authentication, club admins only (S13)."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from grading.models import SessionVersion, Upload
from members.accounts.tokens import api_token_create
from tests.csvfiles import csv_bytes, mp_session_rows


def a_file(**kwargs):
    return SimpleUploadedFile("mon.csv", csv_bytes(mp_session_rows(**kwargs)), "text/csv")


@pytest.mark.django_db
def test_token_upload_then_poll_until_graded(club_admin, django_capture_on_commit_callbacks):
    user, _, club = club_admin
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {api_token_create(user=user)}")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("api-uploads", args=[club.slug]), {"file": a_file()}, format="multipart"
        )
    assert response.status_code == 201
    upload_id = response.json()["id"]
    detail = client.get(reverse("api-upload", args=[club.slug, upload_id])).json()
    assert detail["status"] == "graded"
    assert detail["progress"] == {
        "total": 1,
        "done": 1,
        "finished": True,
        "percent": 100,
        "graded": 1,
        "not_graded": 0,
        "reasons": [],
    }
    assert detail["summary"]["sessions"][0]["pairs"] == 8
    listing = client.get(reverse("api-uploads", args=[club.slug])).json()
    assert [u["id"] for u in listing["results"]] == [upload_id]


@pytest.mark.django_db
def test_refused_file_returns_its_problems(club_admin, django_capture_on_commit_callbacks):
    """The answer comes at once ("received"); the worker's check refuses it (issue 21)."""
    user, _, club = club_admin
    client = APIClient()
    client.force_authenticate(user)
    rows = mp_session_rows()
    rows[0]["movement"] = "SIDEWAYS"
    bad = SimpleUploadedFile("bad.csv", csv_bytes(rows), "text/csv")
    with django_capture_on_commit_callbacks(execute=True):
        body = client.post(reverse("api-uploads", args=[club.slug]), {"file": bad}).json()
    assert body["status"] == "received" and body["problems"] == []
    body = client.get(reverse("api-upload", args=[club.slug, body["id"]])).json()
    assert body["status"] == "refused"
    assert body["problems"][0]["location"] == "line 2, column movement"
    assert not SessionVersion.objects.exists()


@pytest.mark.django_db
def test_others_are_refused(member_user, club_admin, other_club):
    admin, _, club = club_admin
    member, _, _ = member_user
    url = reverse("api-uploads", args=[club.slug])
    anonymous = APIClient()
    assert anonymous.post(url, {"file": a_file()}).status_code in (401, 403)
    assert anonymous.get(url).status_code in (401, 403)
    client = APIClient()
    client.force_authenticate(member)
    assert client.post(url, {"file": a_file()}).status_code == 403
    client.force_authenticate(admin)
    assert client.get(reverse("api-uploads", args=[other_club.slug])).status_code == 403
    assert not Upload.objects.exists()


@pytest.mark.django_db
def test_schema_documents_the_upload_endpoints(client):
    schema = client.get(reverse("schema")).content.decode()
    assert "/api/v1/clubs/{slug}/uploads/" in schema
    assert "/api/v1/clubs/{slug}/uploads/{id}/" in schema
