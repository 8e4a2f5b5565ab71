"""One file does not hold the union's grading (issue 32 item 9): a file's sessions are graded
one ledger step each with other clubs' uploads in between; what one file may hold and how many
files one request may carry are bounded (settings), refused with a clear message before any
work."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from grading.ledger.step import versions_grade_pending
from grading.models import LedgerEntry, SessionVersion, Upload
from grading.uploads.services import upload_create
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import ClubFactory


def _file(prefix: str, sessions: int, pairs: int = 6) -> bytes:
    scores = [60.0 - 2 * i for i in range(pairs)]
    return csv_bytes(
        *(
            mp_session_rows(event_id=f"{prefix}{i}", date=f"2026-10-{10 + i:02d}", scores=scores)
            for i in range(sessions)
        )
    )


def _store(club, name: str, data: bytes, capture) -> Upload:
    """Stored and waiting to be graded: the grading task queued on commit is not run."""
    with capture(execute=False):
        upload = upload_create(club=club, filename=name, data=data)
    assert upload.status == Upload.Status.STORED, upload.problems
    return upload


@pytest.mark.django_db
def test_another_clubs_upload_is_graded_between_a_files_sessions(
    django_capture_on_commit_callbacks,
):
    big_club, small_club = ClubFactory(), ClubFactory()
    big = _store(big_club, "week.csv", _file("BIG", 4), django_capture_on_commit_callbacks)
    small = _store(small_club, "tonight.csv", _file("SMALL", 1), django_capture_on_commit_callbacks)
    later = _store(big_club, "more.csv", _file("MORE", 1), django_capture_on_commit_callbacks)
    assert versions_grade_pending() == 6
    order = list(LedgerEntry.objects.order_by("seq").values_list("version__upload_id", flat=True))
    # before: the small club's session waited for all four of the big file's
    assert order.index(small.pk) == 1
    # the big club's own uploads stay in the order stored, a file's sessions in its order
    assert [u for u in order if u != small.pk] == [big.pk] * 4 + [later.pk]
    ids = list(
        LedgerEntry.objects.filter(version__upload=big)
        .order_by("seq")
        .values_list("version_id", flat=True)
    )
    assert ids == sorted(ids)
    assert not SessionVersion.objects.filter(state=SessionVersion.State.STORED).exists()


@pytest.mark.django_db
def test_a_correction_in_a_later_file_is_graded_after_the_version_it_corrects(
    django_capture_on_commit_callbacks,
):
    club, other = ClubFactory(), ClubFactory()
    first = _store(club, "a.csv", _file("EV", 3), django_capture_on_commit_callbacks)
    _store(other, "b.csv", _file("OTHER", 2), django_capture_on_commit_callbacks)
    fixed = mp_session_rows(event_id="EV2", date="2026-10-12", scores=[61.0, 58.0, 56.0, 54.0])
    correction = _store(club, "fix.csv", csv_bytes(fixed), django_capture_on_commit_callbacks)
    versions_grade_pending()
    v1 = SessionVersion.objects.get(upload=first, session__event__event_id="EV2")
    v2 = SessionVersion.objects.get(upload=correction)
    assert v2.session_id == v1.session_id and v2.number == 2
    v1.refresh_from_db()
    v2.refresh_from_db()
    assert v1.state == SessionVersion.State.WITHDRAWN and v2.state == SessionVersion.State.GRADED
    assert v2.session.live_version_id == v2.pk


@pytest.mark.django_db
def test_a_file_of_too_many_sessions_is_refused_whole(settings):
    settings.UPLOAD_MAX_SESSIONS_PER_FILE = 2
    club = ClubFactory()
    upload = upload_create(club=club, filename="season.csv", data=_file("S", 3))
    assert upload.status == Upload.Status.REFUSED
    messages = [p["message"] for p in upload.problems]
    assert any("holds 3 sessions; one file may hold at most 2" in m for m in messages)
    assert not SessionVersion.objects.exists()


@pytest.mark.django_db
def test_a_file_of_too_many_pairs_is_refused_whole(settings):
    settings.UPLOAD_MAX_PAIRS_PER_FILE = 20
    club = ClubFactory()
    upload = upload_create(club=club, filename="congress.csv", data=_file("C", 3, pairs=8))
    assert upload.status == Upload.Status.REFUSED
    messages = [p["message"] for p in upload.problems]
    assert any(
        "holds 24 pairs over all its sessions; one file may hold at most 20" in m for m in messages
    )
    assert not SessionVersion.objects.exists()
    settings.UPLOAD_MAX_PAIRS_PER_FILE = 24
    assert upload_create(club=club, filename="c.csv", data=_file("C", 3, pairs=8)).status in (
        Upload.Status.STORED,
        Upload.Status.GRADED,
    )


def _files(n: int) -> list[SimpleUploadedFile]:
    return [SimpleUploadedFile(f"f{i}.csv", _file(f"F{i}", 1), "text/csv") for i in range(n)]


@pytest.mark.django_db
def test_too_many_files_in_one_request_are_refused_before_any_is_stored(
    client, club_admin, settings
):
    settings.UPLOAD_MAX_FILES_PER_REQUEST = 3
    user, _, club = club_admin
    client.force_login(user)
    url = reverse("uploads", args=[club.slug])
    response = client.post(url, {"files": _files(5)})
    assert response.status_code == 200
    body = response.content.decode()
    assert (
        "At most 3 files can be uploaded at once: none of the files you chose was uploaded" in body
    )
    assert not Upload.objects.exists()
    response = client.post(url, {"files": _files(3)})
    assert response.status_code == 302
    assert Upload.objects.count() == 3


@pytest.mark.django_db
def test_the_api_refuses_a_request_of_too_many_files(client, club_admin, settings):
    settings.UPLOAD_MAX_FILES_PER_REQUEST = 1
    user, _, club = club_admin
    client.force_login(user)
    url = reverse("api-uploads", args=[club.slug])
    response = client.post(url, {"file": _files(2)})
    assert response.status_code == 400
    assert "At most 1 file can be uploaded at once" in str(response.json())
    assert not Upload.objects.exists()
    assert client.post(url, {"file": _files(1)}).status_code == 201
