"""What the readers refuse leaves nothing in the database (issue 21 items 1 and 4; S12: all or
nothing), and what they say reaches the upload (issue 20 item 2: the summary says the event was
handicapped). The readers decide; these tests go through the upload service as a club does."""

from __future__ import annotations

import pytest

from clubs.models import ClubRole
from grading.models import Event, LedgerEntry, SessionVersion, Upload
from grading.uploads.services import upload_create, upload_import
from members.models import Member
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import ClubFactory
from tests.ingest.conftest import fixture_bytes


@pytest.fixture
def club(db):
    return ClubFactory(slug="structures", national_number="909090")


@pytest.fixture
def upload(club, django_capture_on_commit_callbacks):
    def send(data: bytes, name: str = "results.csv") -> Upload:
        with django_capture_on_commit_callbacks(execute=True):
            result = upload_create(club=club, filename=name, data=data)
        result.refresh_from_db()
        return result

    return send


def _nothing_stored() -> None:
    assert not Member.objects.exists()
    assert not ClubRole.objects.exists()
    assert not Event.objects.exists()
    assert not SessionVersion.objects.exists()
    assert not LedgerEntry.objects.exists()


@pytest.mark.parametrize(
    "change, says",
    [
        ({"date": "0001-01-01"}, "01/01/0001, is before 01/01/2000"),  # took pages down
        ({"date": "1900-01-01"}, "01/01/1900, is before 01/01/2000"),
        ({"event_name": "E" * 300}, "The event's name"),  # a 500, no record of the refusal
        ({"pair": "1" * 40}, "The pair number"),  # failed in the worker, members left behind
        ({"player1_name": "N" * 5000}, "The name"),
    ],
)
def test_a_refused_value_leaves_nothing_but_the_refusal(upload, change, says):
    rows = mp_session_rows()
    for key, value in change.items():
        rows[0][key] = value
        if key in ("date", "event_name"):
            for row in rows:
                row[key] = value
    result = upload(csv_bytes(rows))
    assert result.status == Upload.Status.REFUSED
    assert any(says in p["message"] for p in result.problems), result.problems
    assert all(p["location"] and p["message"] for p in result.problems)
    _nothing_stored()


def test_a_handicapped_event_says_so_in_the_upload_and_grades_scratch_scores(upload):
    result = upload(fixture_bytes("structures/handicapped-pairs.xml"), "handicap.xml")
    assert result.status != Upload.Status.REFUSED, result.problems
    assert any("handicapped" in w["message"] for w in result.warnings)
    version = SessionVersion.objects.get()
    scores = {p.pair_id: p.score for p in version.pairs.all()}
    assert scores == {"1": 25.0, "2": 75.0, "3": 58.33, "4": 41.67}


def test_a_hand_record_is_refused_saying_so_and_leaves_nothing(upload):
    result = upload(fixture_bytes("structures/hand-record.xml"), "deals.xml")
    assert result.status == Upload.Status.REFUSED
    assert "hand record" in result.problems[0]["message"]
    _nothing_stored()


def test_a_bridgemate_database_is_refused_naming_it_on_the_upload_page(upload):
    """Issue 29 item 4: it said "Line 1 contains a NUL byte"."""
    data = b"\x00\x01\x00\x00Standard Jet DB\x00" + b"\x00" * 500
    result = upload(data, "club.bws")
    assert result.status == Upload.Status.REFUSED
    assert "Bridgemate scoring database" in result.problems[0]["message"]
    _nothing_stored()


def test_an_operators_import_of_an_unreadable_file_says_what_it_is_not_that_it_names_no_club(db):
    """Issue 29 item 4: an image, a database or a ranking imported without --club was refused
    with "the file names no club, import again with --club"."""
    result = upload_import(filename="photo.png", data=b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
    assert result.status == Upload.Status.REFUSED
    (problem,) = result.problems
    assert "PNG image" in problem["message"] and "--club" not in problem["message"]
    ranking = upload_import(filename="r.csv", data=b"Pos,Names,Score\n1,A & B,60\n")
    assert "no pair numbers" in ranking.problems[0]["message"]
    _nothing_stored()
