"""S14.26 and issue 32 item 6: a planned session dated 9999-12-31 made every club member's
host-exemption page and its API answer 500 (its deadline, 30 minutes after the start, lay past
the calendar's end). A planned session is now dated at most 2 years ahead; one stored before
that bound (or dated in year 1) takes nothing down."""

import datetime as dt

import pytest
from django.utils import timezone

from clubs.forms import PlannedSessionForm
from clubs.models import HostExemptionRequest, PlannedSession
from clubs.rules import planned_date_latest
from clubs.services import PlannedSessionRefused, planned_session_create
from tests.factories import ClubRoleFactory, MemberFactory, UserFactory

pytestmark = pytest.mark.django_db

EDGES = [(dt.date(9999, 12, 31), dt.time(23, 59)), (dt.date(1, 1, 1), dt.time(0, 0))]


def test_the_latest_planned_date_is_two_years_ahead():
    assert planned_date_latest(dt.date(2026, 11, 27)) == dt.date(2028, 11, 27)
    assert planned_date_latest(dt.date(2028, 2, 29)) == dt.date(2030, 2, 28)
    assert planned_date_latest(dt.date(9999, 1, 1)) == dt.date(9999, 1, 1)


def test_a_session_planned_more_than_two_years_ahead_is_refused(club_admin):
    _, _, club = club_admin
    today = timezone.localdate()
    latest = planned_date_latest(today)
    form = PlannedSessionForm(
        {"event_name": "Far", "date": "9999-12-31", "start": "19:30", "scoring": "MP"},
        today=today,
    )
    assert not form.is_valid()
    assert "up to 2 years ahead" in str(form.errors["date"])
    with pytest.raises(PlannedSessionRefused, match="up to 2 years ahead"):
        planned_session_create(
            club=club, event_name="Far", date=latest + dt.timedelta(days=1), start=dt.time(19)
        )
    assert planned_session_create(club=club, event_name="Near", date=latest, start=dt.time(19))


def test_the_planning_page_refuses_the_last_day_of_the_calendar(client, club_admin):
    admin, _, club = club_admin
    client.force_login(admin)
    page = client.post(
        f"/clubs/{club.slug}/planned/",
        {"event_name": "Far", "date": "9999-12-31", "start": "23:59", "scoring": "MP"},
    )
    assert page.status_code == 200 and "up to 2 years ahead" in page.content.decode()
    assert not PlannedSession.objects.exists()


@pytest.mark.parametrize("date, start", EDGES)
def test_a_stored_session_at_the_calendars_edge_takes_no_page_down(client, club_admin, date, start):
    admin, _, club = club_admin
    member = MemberFactory(user=UserFactory())
    partner = MemberFactory()
    for someone in (member, partner):
        ClubRoleFactory(member=someone, club=club)
    planned = PlannedSession.objects.create(club=club, event_name="Edge", date=date, start=start)
    other = PlannedSession.objects.create(
        club=club, event_name="Edge 2", date=date, start=dt.time(12, 0)
    )
    HostExemptionRequest.objects.create(
        planned_session=other, member=member, partner=partner, created=timezone.now()
    )
    client.force_login(member.user)
    for path in ("/me/host-exemption/", "/api/v1/me/host-exemptions/"):
        assert client.get(path).status_code == 200, path
    answer = client.post(
        "/api/v1/me/host-exemptions/",
        {"planned_session": planned.pk, "partner_number": partner.national_number},
        content_type="application/json",
    )
    assert answer.status_code in {201, 400, 404}, answer.content  # 404: closed long ago
    client.force_login(admin)
    for path in (f"/clubs/{club.slug}/planned/", f"/clubs/{club.slug}/exemptions/"):
        assert client.get(path).status_code == 200, path
