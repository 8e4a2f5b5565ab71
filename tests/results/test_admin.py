"""The staff admin of what issue 28 added: the record of the emails after grading (read-only,
without the figures they carried: S7, S13) and a club's strata and estimates (read-only: the
club's administrators set them on the club's results page)."""

import pytest
from django.urls import reverse

from clubs.models import ClubEstimate, ClubStrata
from grading.models import SessionGrade, SessionVersion
from members.models import Member, ResultsEmail
from tests.factories import MemberFactory, UserFactory

pytestmark = pytest.mark.django_db

SECRET = "61.23"


@pytest.fixture
def staff(client):
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    return client


@pytest.fixture
def emailed(howell):
    """An email after grading recorded for player 5001, who keeps their grade private."""
    member = Member.objects.get(national_number="5001")
    member.grade_private = True
    member.save(update_fields=["grade_private"])
    version = SessionVersion.objects.get(session=howell)
    assert SessionGrade.objects.filter(member=member, version=version).exists()
    return ResultsEmail.objects.create(
        member=member,
        version=version,
        status=ResultsEmail.Status.SENT,
        claim="c0ffee",
        figures={"session_grade": SECRET, "grade_after": SECRET, "place": "1"},
    )


def test_staff_list_the_emails_sent_without_the_figures_they_carried(staff, emailed):
    listed = staff.get(reverse("admin:members_resultsemail_changelist"))
    assert listed.status_code == 200
    assert "5001" in listed.content.decode()
    page = staff.get(reverse("admin:members_resultsemail_change", args=[emailed.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    assert "Sent" in text
    assert SECRET not in text and "c0ffee" not in text


def test_the_record_of_an_email_is_never_added_changed_or_deleted_by_staff(staff, emailed):
    assert staff.get(reverse("admin:members_resultsemail_add")).status_code == 403
    staff.post(
        reverse("admin:members_resultsemail_change", args=[emailed.pk]),
        {"status": "failed", "attempts": "0"},
    )
    staff.post(reverse("admin:members_resultsemail_delete", args=[emailed.pk]), {"post": "yes"})
    emailed.refresh_from_db()  # still there (a deleted row would let the email go again)
    assert emailed.status == ResultsEmail.Status.SENT


def test_staff_see_a_clubs_strata_and_estimates_and_change_neither(staff, club):
    strata = ClubStrata.objects.create(club=club, limits=[50.0, 45.0])
    estimate = ClubEstimate.objects.create(club=club, member=MemberFactory(), grade=47.5)
    for model, row, shown in (("clubstrata", strata, "45.0"), ("clubestimate", estimate, "47.5")):
        listed = staff.get(reverse(f"admin:clubs_{model}_changelist")).content.decode()
        assert shown in listed and club.name in listed
        assert staff.get(reverse(f"admin:clubs_{model}_add")).status_code == 403
        staff.post(reverse(f"admin:clubs_{model}_delete", args=[row.pk]), {"post": "yes"})
    assert ClubStrata.objects.get().limits == [50.0, 45.0]
    assert ClubEstimate.objects.get().grade == 47.5


def test_the_clubs_list_shows_its_results_switches(staff, club):
    club.results_public = True
    club.save(update_fields=["results_public"])
    listed = staff.get(reverse("admin:clubs_club_changelist") + "?results_public__exact=1")
    assert club.name in listed.content.decode()
    hidden = staff.get(reverse("admin:clubs_club_changelist") + "?results_public__exact=0")
    assert club.name not in hidden.content.decode()
