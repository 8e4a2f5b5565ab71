"""Upload messages a club scorer can act on (issue 19 items 4 and 5): no section numbers of the
specification, every past upload reopened, badges that say what happened, old files warned
about (S14.16), readable event names, and the club's tab bar on the uploads page."""

import dataclasses
import datetime as dt
import re
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone

from grading.ingest import parse_file
from grading.ledger.step import versions_grade_pending
from grading.models import Upload
from grading.uploads.services import upload_create
from grading.uploads.wording import plain, readable_event_name
from tests.csvfiles import csv_bytes, mp_session_rows

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
INDIVIDUAL = FIXTURES / "usebio/ukbridge-club/individual.usebio.xml"
SECTION = re.compile(r"\bS\d{1,2}(\.\d{1,2})+\b|\(S\d{1,2}\)")


@pytest.fixture
def admin(client, club_admin):
    user, _, club = club_admin
    club.national_number = ""
    club.save()
    client.force_login(user)
    return client, club


def send(club, data: bytes, name: str) -> Upload:
    upload = upload_create(club=club, filename=name, data=data)
    versions_grade_pending()
    upload.refresh_from_db()
    return upload


def page_of(client, club, upload: Upload) -> str:
    return client.get(f"{reverse('uploads', args=[club.slug])}?show={upload.pk}").content.decode()


def visible_text(html: str) -> str:
    return re.sub(r"<[^>]+>", " ", html)


@pytest.mark.django_db
def test_no_section_numbers_reach_the_scorer(admin):
    client, club = admin
    individual = send(club, INDIVIDUAL.read_bytes(), "individual.xml")
    rows = mp_session_rows()
    rows[0]["event_id"] = ""  # a problem that cited S12.1
    lines = csv_bytes(rows).decode().splitlines()
    lines = [lines[0] + ",colour"] + [line + ",blue" for line in lines[1:]]  # a warning too
    refused = send(club, "\n".join(lines).encode() + b"\n", "bad.csv")
    assert refused.status == "refused"
    for upload in (individual, refused):
        text = visible_text(page_of(client, club, upload))
        assert not SECTION.search(text), SECTION.search(text)
        stored = str(upload.problems) + str(upload.warnings)
        assert not SECTION.search(stored)
    assert "Individual events (each player with changing partners) are not graded" in visible_text(
        page_of(client, club, individual)
    )


def test_plain_keeps_the_sentence_whole():
    assert plain("Individual events are not graded (S3.1).") == "Individual events are not graded."
    assert plain("24 boards assumed (not reported, S3.7).") == "24 boards assumed (not reported)."
    assert "S12.1" not in plain("Columns not in S12.1 were ignored: x.")
    assert plain("pair S12 is empty") == "pair S12 is empty"  # a pair called S12 stays


@pytest.mark.django_db
def test_every_past_uploads_problems_can_be_reopened(admin):
    client, club = admin
    rows = mp_session_rows()
    rows[3]["score"] = "abc"
    refused = send(club, csv_bytes(rows), "bad.csv")
    send(club, csv_bytes(mp_session_rows(event_id="TUE")), "good.csv")
    listing = client.get(reverse("uploads", args=[club.slug])).content.decode()
    link = f"?show={refused.pk}#upload-{refused.pk}"
    assert link in listing and "1 problem: show" in listing
    reopened = page_of(client, club, refused)
    assert "Refused: nothing was stored" in reopened and "column score" in reopened


@pytest.mark.django_db
def test_badges_say_what_happened(admin):
    client, club = admin
    individual = send(club, INDIVIDUAL.read_bytes(), "individual.xml")
    data = csv_bytes(mp_session_rows())
    graded = send(club, data, "mon.csv")
    # The same sessions in a file that differs only in its line endings: unchanged.
    unchanged = send(club, data.replace(b"\r\n", b"\n") + b"\n", "mon-again.csv")
    assert unchanged.status == "graded" and not unchanged.versions.exists()
    listing = client.get(reverse("uploads", args=[club.slug])).content.decode()
    badges = dict(
        re.findall(
            r'<td>([^<]+\.(?:xml|csv))</td>.*?data-testid="upload-badge">([^<]+)<', listing, re.S
        )
    )
    assert badges == {
        "individual.xml": "Stored, not graded",
        "mon.csv": "Graded",
        "mon-again.csv": "Unchanged",
    }
    unchanged_page = visible_text(page_of(client, club, unchanged))
    assert "Unchanged:" in unchanged_page and "Graded." not in unchanged_page
    for upload in (individual, graded, unchanged):
        assert ".." not in visible_text(page_of(client, club, upload)).replace("…", "")


@pytest.mark.django_db
def test_a_file_before_the_window_is_accepted_with_a_warning_naming_its_date(admin):
    client, club = admin
    old = timezone.localdate().replace(day=1) - dt.timedelta(days=5 * 365)
    upload = send(club, csv_bytes(mp_session_rows(date=old.isoformat())), "old.csv")
    assert upload.status == "graded"
    (warning,) = [w for w in upload.warnings if "three years" in w["message"]]
    assert f"{old:%-d %b %Y}" in warning["message"]
    assert "cannot change anyone's grade today" in warning["message"]
    recent = send(club, csv_bytes(mp_session_rows(event_id="TUE")), "recent.csv")
    assert not [w for w in recent.warnings if "three years" in w["message"]]


def test_a_file_without_an_event_name_gets_a_readable_one():
    parsed = parse_file("mon.csv", csv_bytes(mp_session_rows()), club="x")
    (result,) = parsed.sessions
    nameless = dataclasses.replace(
        result,
        event_name="",
        key=dataclasses.replace(result.key, event_id="auto-event-1a2b3c4d"),
    )
    meta = dataclasses.replace(parsed.meta, program="EBUScore 2.3")
    assert readable_event_name(nameless, meta) == "Pairs from EBUScore 2.3"
    assert "auto-" not in readable_event_name(nameless, dataclasses.replace(meta, program=""))
    assert readable_event_name(result, meta) == "MON Pairs"


@pytest.mark.django_db
def test_the_uploads_page_carries_the_clubs_tab_bar(admin):
    client, club = admin
    page = client.get(reverse("uploads", args=[club.slug])).content.decode()
    assert 'class="club-tabs"' in page
    for tab in ("grades", "sessions", "handicaps"):
        assert reverse(f"clubs:{tab}", args=[club.slug]) in page
