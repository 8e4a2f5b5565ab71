"""Host exemptions (S3.9, FAQ 10): the rules of the request, and the approval at grading."""

import datetime as dt

import pytest
from django.utils import timezone

from clubs.models import HostExemptionRequest
from clubs.services import (
    ExemptionRefused,
    exemption_decide,
    exemption_request_create,
    planned_session_create,
)
from grading.ledger.replay.check import ledger_check
from grading.models import LedgerEntry, SessionGrade
from grading.uploads.services import upload_create
from members.services import member_get_or_create
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import ClubFactory, ClubRoleFactory

START = dt.time(19, 30)
DATE = dt.date(2026, 11, 16)


def at(hour: int, minute: int) -> dt.datetime:
    return timezone.make_aware(dt.datetime.combine(DATE, dt.time(hour, minute)))


@pytest.fixture
def setting(db):
    club = ClubFactory(slug="riverside", national_number="1101")
    host, _ = member_get_or_create(number="1001", name="Host")
    partner, _ = member_get_or_create(number="1002", name="Partner")
    ClubRoleFactory(club=club, member=host)
    planned = planned_session_create(club=club, event_name="MON Pairs", date=DATE, start=START)
    return club, host, partner, planned


def test_request_until_thirty_minutes_after_the_start(setting):
    club, host, partner, planned = setting
    request = exemption_request_create(
        member=host, partner=partner, planned_session=planned, now=at(20, 0)
    )
    assert request.status == HostExemptionRequest.Status.WAITING


def test_request_after_the_deadline_is_refused(setting):
    club, host, partner, planned = setting
    with pytest.raises(ExemptionRefused, match="Too late.*20:00"):
        exemption_request_create(
            member=host, partner=partner, planned_session=planned, now=at(20, 1)
        )
    assert not HostExemptionRequest.objects.exists()


def test_second_request_for_a_session_is_refused(setting):
    club, host, partner, planned = setting
    exemption_request_create(member=host, partner=partner, planned_session=planned, now=at(18, 0))
    with pytest.raises(ExemptionRefused, match="already has a host request"):
        exemption_request_create(
            member=partner, partner=host, planned_session=planned, now=at(18, 5)
        )


def test_non_member_and_self_partner_are_refused(setting):
    club, host, partner, planned = setting
    with pytest.raises(ExemptionRefused, match="not a member"):
        exemption_request_create(
            member=partner, partner=host, planned_session=planned, now=at(18, 0)
        )
    with pytest.raises(ExemptionRefused, match="cannot partner yourself"):
        exemption_request_create(member=host, partner=host, planned_session=planned, now=at(18, 0))


def test_approved_pair_is_not_graded_and_still_counts_as_opponents(
    setting, django_capture_on_commit_callbacks, django_user_model
):
    club, host, partner, planned = setting
    request = exemption_request_create(
        member=host, partner=partner, planned_session=planned, now=at(18, 0)
    )
    admin = django_user_model.objects.create_user("admin")
    exemption_decide(request=request, approve=True, user=admin, now=at(18, 10))
    with django_capture_on_commit_callbacks(execute=True):
        upload_create(club=club, filename="mon.csv", data=csv_bytes(mp_session_rows()))

    assert LedgerEntry.objects.get().host_pair == "1"
    hosts = SessionGrade.objects.filter(member__national_number__in=["1001", "1002"])
    assert [g.session_grade for g in hosts] == [None, None]
    assert all("host" in g.reason for g in hosts)
    other = SessionGrade.objects.get(member__national_number="1003")
    assert other.session_grade is not None
    assert other.sopp == pytest.approx(42)  # the hosts count at their grade, 42
    assert ledger_check() == []


def test_declined_request_changes_nothing_at_grading(
    setting, django_capture_on_commit_callbacks, django_user_model
):
    club, host, partner, planned = setting
    request = exemption_request_create(
        member=host, partner=partner, planned_session=planned, now=at(18, 0)
    )
    exemption_decide(request=request, approve=False, user=None, now=at(18, 10))
    with django_capture_on_commit_callbacks(execute=True):
        upload_create(club=club, filename="mon.csv", data=csv_bytes(mp_session_rows()))
    assert LedgerEntry.objects.get().host_pair == ""
    assert SessionGrade.objects.get(member__national_number="1001").session_grade is not None


def test_an_approval_exempts_the_pair_in_its_own_session_only(
    setting, django_capture_on_commit_callbacks, django_user_model
):
    """S3.9: one host pair per session. The club runs 14:00 and 19:30 on the same day; the
    pair's approval is for the 19:30 session, and they also play at 14:00, where they are
    graded."""
    club, host, partner, planned = setting
    planned_session_create(club=club, event_name="MON Pairs", date=DATE, start=dt.time(14, 0))
    request = exemption_request_create(
        member=host, partner=partner, planned_session=planned, now=at(18, 0)
    )
    exemption_decide(request=request, approve=True, user=None, now=at(18, 10))
    afternoon = mp_session_rows(session=1, start="14:00")
    evening = mp_session_rows(session=2, start="19:30")
    with django_capture_on_commit_callbacks(execute=True):
        upload_create(club=club, filename="mon.csv", data=csv_bytes(afternoon, evening))
    hosts = {e.version.session.number: e.host_pair for e in LedgerEntry.objects.all()}
    assert hosts == {1: "", 2: "1"}
    graded = SessionGrade.objects.filter(member__national_number="1001")
    assert {g.version.session.number: g.session_grade is not None for g in graded} == {
        1: True,
        2: False,
    }
