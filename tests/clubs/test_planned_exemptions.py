"""Planned sessions and host exemptions from the administrator's side (S3.9, FAQ 10)."""

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from clubs.models import HostExemptionRequest, PlannedSession
from clubs.services import (
    ExemptionRefused,
    PlannedSessionRefused,
    exemption_decision_record,
    exemption_request_create,
    planned_session_create,
    planned_session_delete,
)
from grading.models import SessionGrade
from grading.uploads.services import upload_create
from members.models import Member
from tests.csvfiles import csv_bytes, mp_session_rows

TODAY = timezone.localdate


def test_publish_list_and_delete_upcoming_sessions(admin_client, club):
    url = reverse("clubs:planned", args=[club.slug])
    day = TODAY() + dt.timedelta(days=7)
    response = admin_client.post(
        url,
        {
            "event_name": "  Charity Pairs ",
            "date": day.isoformat(),
            "start": "19:30",
            "scoring": "MP",
        },
    )
    assert response.status_code == 302
    planned = PlannedSession.objects.get(club=club)
    assert (planned.event_name, planned.date, planned.start, planned.scoring) == (
        "Charity Pairs",
        day,
        dt.time(19, 30),
        "MP",
    )
    assert planned.created_by is not None
    past = planned_session_create(
        club=club, event_name="Old", date=TODAY() - dt.timedelta(1), start=dt.time(19, 30)
    )
    listed = admin_client.get(url).context["planned"]
    assert listed == [planned]  # past sessions are not listed
    admin_client.post(reverse("clubs:planned-delete", args=[club.slug, planned.pk]))
    assert not PlannedSession.objects.filter(pk=planned.pk).exists()
    response = admin_client.post(
        reverse("clubs:planned-delete", args=[club.slug, past.pk]), follow=True
    )
    assert PlannedSession.objects.filter(pk=past.pk).exists()
    assert "already been played" in response.content.decode()


def test_publishing_refuses_a_past_date_and_missing_fields(admin_client, club):
    url = reverse("clubs:planned", args=[club.slug])
    response = admin_client.post(
        url,
        {
            "event_name": "X",
            "start": "19:30",
            "scoring": "MP",
            "date": (TODAY() - dt.timedelta(1)).isoformat(),
        },
    )
    assert response.status_code == 200
    assert "today or later" in response.content.decode()
    response = admin_client.post(url, {"event_name": "", "date": "", "start": "", "scoring": "X"})
    assert set(response.context["form"].errors) == {"event_name", "date", "start", "scoring"}
    assert not PlannedSession.objects.exists()


def test_the_same_session_cannot_be_published_twice(admin_client, club):
    """Two planned sessions at one club, date and start would each take a host request: two
    host pairs for one session (S3.9). Found by review."""
    url = reverse("clubs:planned", args=[club.slug])
    data = {
        "event_name": "Dup",
        "date": (TODAY() + dt.timedelta(days=7)).isoformat(),
        "start": "19:30",
        "scoring": "MP",
    }
    assert admin_client.post(url, data).status_code == 302
    response = admin_client.post(url, data)
    assert response.status_code == 200 and "already published" in response.content.decode()
    assert response.context["form"].data["event_name"] == "Dup"  # the input is kept
    assert PlannedSession.objects.filter(club=club).count() == 1
    improvers = {**data, "event_name": "Improvers"}  # another event at the same time
    assert admin_client.post(url, improvers).status_code == 302
    assert PlannedSession.objects.filter(club=club).count() == 2


def test_delete_service_refuses_the_past(club):
    past = planned_session_create(
        club=club, event_name="Old", date=dt.date(2026, 1, 5), start=dt.time(19, 30)
    )
    with pytest.raises(PlannedSessionRefused):
        planned_session_delete(planned=past, today=dt.date(2026, 1, 6))
    planned_session_delete(planned=past, today=dt.date(2026, 1, 5))  # the day itself: allowed
    assert not PlannedSession.objects.exists()


@pytest.fixture
def requests(club):
    """Two planned sessions with a request each: one waiting, one already declined."""
    players = {
        n: Member.objects.create(national_number=n, name=f"Player {n}")
        for n in ("1001", "1002", "1003", "1004")
    }
    from clubs.services import club_role_set

    for member in players.values():
        club_role_set(club=club, member=member)
    soon = planned_session_create(
        club=club,
        event_name="MON Pairs",
        date=TODAY() + dt.timedelta(days=2),
        start=dt.time(19, 30),
    )
    later = planned_session_create(
        club=club,
        event_name="MON Pairs",
        date=TODAY() + dt.timedelta(days=9),
        start=dt.time(19, 30),
    )
    start = timezone.make_aware(dt.datetime.combine(soon.date, soon.start))
    waiting = exemption_request_create(
        member=players["1001"],
        partner=players["1002"],
        planned_session=soon,
        now=start - dt.timedelta(hours=2, minutes=10),
    )
    declined = exemption_request_create(
        member=players["1003"], partner=players["1004"], planned_session=later, now=timezone.now()
    )
    exemption_decision_record(request=declined, approve=False, user=None, now=timezone.now())
    return waiting, declined


def test_requests_listed_waiting_first_with_time_against_the_deadline(admin_client, club, requests):
    waiting, declined = requests
    response = admin_client.get(reverse("clubs:exemptions", args=[club.slug]))
    rows = response.context["rows"]
    assert [r.request for r in rows] == [waiting, declined]
    # Asked 2 h 10 min before the 19:30 start: 2 h 40 min before the 20:00 deadline.
    assert rows[0].before_deadline == dt.timedelta(hours=2, minutes=40)
    assert rows[0].deadline.strftime("%H:%M") == "20:00"
    assert "asked 2 h 40 min before it" in response.content.decode()
    dashboard = admin_client.get(reverse("clubs:dashboard", args=[club.slug]))
    assert [r.request for r in dashboard.context["pending"]] == [waiting]


def test_approve_then_decline_records_who_and_when(admin_client, club, club_admin, requests):
    waiting, _ = requests
    url = reverse("clubs:exemption-decide", args=[club.slug, waiting.pk])
    admin_client.post(url, {"decision": "approve"})
    waiting.refresh_from_db()
    assert waiting.status == "approved" and waiting.decided_by == club_admin[0]
    assert waiting.decided_at is not None
    admin_client.post(url, {"decision": "decline"})
    waiting.refresh_from_db()
    assert waiting.status == "declined"
    response = admin_client.post(url, {"decision": "maybe"}, follow=True)
    assert "Choose approve or decline" in response.content.decode()


def test_approved_pair_is_not_graded_when_results_arrive_and_decision_then_locks(
    admin_client, club, requests, django_capture_on_commit_callbacks
):
    waiting, _ = requests
    admin_client.post(
        reverse("clubs:exemption-decide", args=[club.slug, waiting.pk]), {"decision": "approve"}
    )
    date = waiting.planned_session.date.isoformat()
    with django_capture_on_commit_callbacks(execute=True):
        # The planned session is two days ahead (requests close after its start): its results
        # arrive here as if it had been played.
        upload_create(
            club=club,
            filename="mon.csv",
            data=csv_bytes(mp_session_rows(date=date)),
            check_club=False,
            future_dates=True,
        )
    hosts = SessionGrade.objects.filter(member__national_number__in=["1001", "1002"])
    assert [g.session_grade for g in hosts] == [None, None]
    assert all("host" in g.reason for g in hosts)
    # Results are in: the decision can no longer change, and the page says so.
    with pytest.raises(ExemptionRefused, match="already in"):
        exemption_decision_record(request=waiting, approve=False, user=None, now=timezone.now())
    response = admin_client.post(
        reverse("clubs:exemption-decide", args=[club.slug, waiting.pk]),
        {"decision": "decline"},
        follow=True,
    )
    assert "can no longer change" in response.content.decode()
    assert HostExemptionRequest.objects.get(pk=waiting.pk).status == "approved"
    assert "results in: applied" in response.content.decode()


def test_a_request_still_waiting_when_results_arrive_says_it_was_not_applied(
    admin_client, club, requests, django_capture_on_commit_callbacks
):
    """Found by review: it stayed "Waiting for the club" beside "results in: applied"."""
    waiting, _ = requests
    date = waiting.planned_session.date.isoformat()
    with django_capture_on_commit_callbacks(execute=True):
        upload_create(
            club=club,
            filename="mon.csv",
            data=csv_bytes(mp_session_rows(date=date)),
            check_club=False,
            future_dates=True,
        )
    page = admin_client.get(reverse("clubs:exemptions", args=[club.slug])).content.decode()
    assert "results in before a decision: graded as usual" in page
    assert "results in: applied" not in page
    hosts = SessionGrade.objects.filter(member__national_number__in=["1001", "1002"])
    assert all(g.session_grade is not None for g in hosts)


def test_planned_and_exemption_pages_queries(
    admin_client, club, requests, django_assert_max_num_queries
):
    with django_assert_max_num_queries(8):
        admin_client.get(reverse("clubs:planned", args=[club.slug]))
    with django_assert_max_num_queries(8):
        admin_client.get(reverse("clubs:exemptions", args=[club.slug]))
