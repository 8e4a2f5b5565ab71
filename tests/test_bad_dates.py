"""A date of play at the edge of the calendar already stored (issue 21 item 1): 0001-01-01 was
accepted and graded, then the 3-year window could not go below year 1, so the member pages,
the club's sessions page, the next upload and the withdrawal that could undo it were HTTP 500.
The readers now refuse such dates; this stores one directly, as an old database may hold it,
and shows that nothing is taken down."""

import dataclasses
import datetime as dt

import pytest
from django.db import transaction

import grading.tasks
from grading.engine.ngs import years_before
from grading.ingest import parse_file
from grading.ledger.replay.check import ledger_check
from grading.ledger.step import versions_grade_pending
from grading.models import SessionVersion, Upload
from grading.uploads.services import upload_create, withdrawal_request
from grading.uploads.store import sessions_store
from members.models import Member
from tests.csvfiles import csv_bytes, mp_session_rows

YEAR_ONE = dt.date(1, 1, 1)


def test_years_before_stops_at_the_first_day_of_the_calendar():
    for date in (dt.date(2, 6, 1), YEAR_ONE):
        low = years_before(date, 3)  # the day before 0001-01-01: the window holds every date
        assert low.toordinal() == 0 and low < YEAR_ONE and YEAR_ONE > low
        assert not YEAR_ONE <= low and not low >= YEAR_ONE
    assert years_before(dt.date(2024, 2, 29), 3) == dt.date(2021, 2, 28)  # S14.6 unchanged


def store_directly(club, date: dt.date, event_id: str = "MON") -> SessionVersion:
    """Bypass the readers' earliest-date check: an upload row and its session as stored (by
    default a session of the club's Monday series typed with a wrong date)."""
    data = csv_bytes(mp_session_rows(event_id=event_id))
    parsed = parse_file("ancient.csv", data, club=club.slug)
    assert not parsed.problems
    (result,) = parsed.sessions
    result = dataclasses.replace(result, key=dataclasses.replace(result.key, date=date))
    with transaction.atomic():
        upload = Upload.objects.create(
            club=club, filename="ancient.csv", sha256="0" * 64, status=Upload.Status.STORED
        )
        (version,) = sessions_store(upload, (result,), parsed.meta).new_versions
    versions_grade_pending()
    version.refresh_from_db()
    return version


@pytest.mark.django_db
def test_a_stored_year_one_session_takes_nothing_down(client, club_admin):
    admin, _, club = club_admin
    graded = upload_create(club=club, filename="mon.csv", data=csv_bytes(mp_session_rows()))
    versions_grade_pending()
    graded.refresh_from_db()
    assert graded.status == "graded"
    bad = store_directly(club, YEAR_ONE)
    assert bad.state == "graded", bad.not_graded_reason  # not set aside by a crash

    member = Member.objects.get(national_number="1001")
    member.user = admin.__class__.objects.create_user("player1001", password="x")
    member.save(update_fields=["user"])
    client.force_login(member.user)
    for url in ("/me/", "/me/sessions/", "/me/partners/", "/dashboard/", "/api/v1/me/"):
        assert client.get(url).status_code == 200, url
    assert client.get("/api/v1/me/sessions/").status_code == 200

    client.force_login(admin)
    for url in (f"/clubs/{club.slug}/", f"/clubs/{club.slug}/sessions/"):
        assert client.get(url).status_code == 200, url

    # The next upload is graded as usual.
    later = upload_create(
        club=club,
        filename="tue.csv",
        data=csv_bytes(mp_session_rows(event_id="TUE", date="2026-11-17")),
    )
    versions_grade_pending()
    later.refresh_from_db()
    assert later.status == "graded"

    # And the bad session can be withdrawn, so the product can undo it.
    bad.refresh_from_db()
    withdrawal = withdrawal_request(version=bad, user=admin)
    grading.tasks.process_upload(withdrawal.pk)
    withdrawal.refresh_from_db()
    assert withdrawal.status == "graded", withdrawal.problems
    bad.refresh_from_db()
    assert bad.state == "withdrawn"
    assert ledger_check() == []
    client.force_login(member.user)
    assert client.get("/me/sessions/").status_code == 200


@pytest.mark.django_db
def test_a_year_one_session_alone_in_its_series_does_not_take_the_sessions_page_down(
    client, club_admin
):
    admin, _, club = club_admin
    store_directly(club, YEAR_ONE, event_id="ANCIENT")
    client.force_login(admin)
    client.raise_request_exception = True
    assert client.get(f"/clubs/{club.slug}/sessions/").status_code == 200
