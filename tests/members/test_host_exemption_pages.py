"""The host-exemption form (S3.9, FAQ 10): the rules' messages, the states, and the approved
pair excluded when the results arrive."""

import datetime as dt

import pytest
from django.test import Client
from django.utils import timezone

from clubs.models import HostExemptionRequest
from clubs.services import exemption_decide, planned_session_create
from grading.engine.ngs import Reason
from grading.models import SessionGrade
from members.selectors import exemptions
from members.selectors import history as histories
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import ClubFactory
from tests.members.conftest import url

TONIGHT = dt.time(23, 59)


@pytest.fixture
def planned(graded):
    return planned_session_create(
        club=graded.riverside,
        event_name="MON Pairs",
        date=timezone.localdate() + dt.timedelta(days=1),
        start=dt.time(19, 30),
    )


def post(client, planned, **data):
    return client.post(url("host-exemption"), {"planned_session": planned.pk, **data}, follow=True)


def test_request_by_membership_number_is_sent_and_shown_waiting(me_client, graded, planned):
    body = post(me_client, planned, partner_number=f"0{graded.people.partner}").content.decode()
    request = HostExemptionRequest.objects.get()
    assert (request.member, request.partner.national_number) == (graded.me, graded.people.partner)
    assert "Your request has been sent" in body and "Waiting for the club" in body


def test_request_naming_a_partner_from_the_list(me_client, graded, planned):
    partner = graded.member(graded.people.public)
    post(me_client, planned, partner=partner.pk)
    assert HostExemptionRequest.objects.get().partner == partner


@pytest.mark.parametrize(
    "case, message",
    [
        ("second", "You have already asked to host this session with"),
        ("self", "you cannot partner yourself"),
        ("late", "not open to a host request"),
        ("unknown partner", "No member has the number 4242"),
        ("no partner", "Name your partner"),
    ],
)
def test_refusals_are_shown_with_their_message(me_client, graded, planned, case, message):
    data = {"partner_number": graded.people.partner}
    if case == "second":
        post(me_client, planned, **data)
    elif case == "self":
        data = {"partner_number": graded.people.me}
    elif case == "late":
        planned.date, planned.start = timezone.localdate(), dt.time(0, 0)
        planned.save()
        if timezone.localtime().time() < dt.time(0, 31):
            pytest.skip("within 30 minutes of midnight the session is still open")
    elif case == "unknown partner":
        data = {"partner_number": "4242"}
    else:
        data = {}
    before = HostExemptionRequest.objects.count()
    body = post(me_client, planned, **data).content.decode()
    assert message in body.replace("&#x27;", "'")
    assert HostExemptionRequest.objects.count() == before


def test_only_the_members_clubs_future_sessions_can_be_chosen(me_client, graded, planned):
    elsewhere = planned_session_create(
        club=ClubFactory(), event_name="Elsewhere", date=planned.date, start=dt.time(19, 0)
    )
    yesterday = planned_session_create(
        club=graded.riverside,
        event_name="Gone",
        date=timezone.localdate() - dt.timedelta(days=1),
        start=dt.time(19, 0),
    )
    choices = set(exemptions.planned_sessions_open(member=graded.me, now=timezone.now()))
    assert planned in choices and elsewhere not in choices and yesterday not in choices
    body = post(me_client, elsewhere, partner_number=graded.people.partner).content.decode()
    assert "not open to a host request" in body
    assert not HostExemptionRequest.objects.exists()


def test_states_and_the_approved_pair_is_not_graded(me_client, graded, sender):
    """S3.9: approval applies when the results arrive; the history then says host."""
    today = timezone.localdate()
    planned = planned_session_create(
        club=graded.riverside, event_name="MON Pairs", date=today, start=TONIGHT
    )
    post(me_client, planned, partner_number=graded.people.partner)
    request = HostExemptionRequest.objects.get()
    exemption_decide(request=request, approve=True, user=graded.admin_user, now=timezone.now())
    body = me_client.get(url("host-exemption")).content.decode()
    assert "Approved" in body
    numbers = [(graded.people.me, graded.people.partner)] + [
        (str(3001 + 2 * i), str(3002 + 2 * i)) for i in range(7)
    ]
    sender(
        graded.riverside,
        csv_bytes(
            mp_session_rows(event_id="MON", date=today.isoformat(), numbers=numbers, start="23:59")
        ),
        "tonight.csv",
    )
    mine = SessionGrade.objects.get(member=graded.me, date=today)
    assert mine.session_grade is None and mine.reason == Reason.HOST
    history = histories.history_decorate(
        member=graded.me, rows=histories.history_rows(member=graded.me)
    )
    assert history[0].date == today and history[0].flags == ["host: not graded"]


def test_declined_request_shows_declined(me_client, graded, planned):
    post(me_client, planned, partner_number=graded.people.partner)
    exemption_decide(
        request=HostExemptionRequest.objects.get(),
        approve=False,
        user=graded.admin_user,
        now=timezone.now(),
    )
    assert "Declined" in me_client.get(url("host-exemption")).content.decode()
    api = me_client.get(url("api-host-exemptions")).json()
    assert api["requests"][0]["status"] == "declined"


def test_api_request_and_refusal(me_client, graded, planned):
    data = {"planned_session": planned.pk, "partner_number": graded.people.partner}
    made = me_client.post(url("api-host-exemptions"), data, content_type="application/json")
    assert made.status_code == 201 and made.json()["status"] == "waiting"
    again = me_client.post(url("api-host-exemptions"), data, content_type="application/json")
    assert again.status_code == 400 and "You have already asked" in again.json()["detail"]


def test_a_member_cancels_a_pending_request(me_client, graded, planned):
    post(me_client, planned, partner_number=graded.people.partner)
    request = HostExemptionRequest.objects.get()
    body = me_client.get(url("host-exemption")).content.decode()
    assert 'data-testid="cancel-form"' in body
    body = me_client.post(url("host-exemption"), {"cancel": request.pk}, follow=True)
    assert "Your request has been cancelled" in body.content.decode()
    assert not HostExemptionRequest.objects.exists()
    # the session is open again, and a new request goes through
    post(me_client, planned, partner_number=graded.people.public)
    assert HostExemptionRequest.objects.get().partner.national_number == graded.people.public


def test_only_a_waiting_request_of_ones_own_can_be_cancelled(me_client, graded, planned):
    post(me_client, planned, partner_number=graded.people.partner)
    request = HostExemptionRequest.objects.get()
    partner = graded.member(graded.people.partner)
    partner.user = graded.other_user.__class__.objects.create(username="partner-login")
    partner.save()
    client = Client()
    client.force_login(partner.user)
    body = client.post(url("host-exemption"), {"cancel": request.pk}, follow=True)
    assert "not yours to cancel" in body.content.decode()
    assert "named you as partner" in body.content.decode()
    exemption_decide(request=request, approve=True, user=graded.admin_user, now=timezone.now())
    body = me_client.post(url("host-exemption"), {"cancel": request.pk}, follow=True)
    assert "already decided" in body.content.decode()
    assert HostExemptionRequest.objects.exists()


def test_sessions_asked_for_by_another_pair_or_closed_are_not_offered(graded, planned):
    other = planned_session_create(
        club=graded.riverside,
        event_name="Taken",
        date=planned.date,
        start=dt.time(14, 0),
    )
    HostExemptionRequest.objects.create(
        planned_session=other,
        member=graded.member(graded.people.public),
        partner=graded.member(graded.people.partner),
        created=timezone.now(),
    )
    now = timezone.now()
    offered = set(exemptions.planned_sessions_open(member=graded.me, now=now))
    assert planned in offered and other not in offered
    after = timezone.make_aware(dt.datetime.combine(planned.date, dt.time(20, 1)))
    assert planned not in set(exemptions.planned_sessions_open(member=graded.me, now=after))


def test_after_the_results_the_member_sees_applied(me_client, graded, sender):
    today = timezone.localdate()
    planned = planned_session_create(
        club=graded.riverside, event_name="MON Pairs", date=today, start=TONIGHT
    )
    post(me_client, planned, partner_number=graded.people.partner)
    exemption_decide(
        request=HostExemptionRequest.objects.get(),
        approve=True,
        user=graded.admin_user,
        now=timezone.now(),
    )
    numbers = [(graded.people.me, graded.people.partner)] + [
        (str(3001 + 2 * i), str(3002 + 2 * i)) for i in range(7)
    ]
    sender(
        graded.riverside,
        csv_bytes(
            mp_session_rows(event_id="MON", date=today.isoformat(), numbers=numbers, start="23:59")
        ),
        "tonight.csv",
    )
    body = me_client.get(url("host-exemption")).content.decode()
    assert "Results in: applied" in body
    assert 'data-testid="cancel-form"' not in body
    assert f"{today:%a} {today.day} {today:%b %Y}" in body
