"""The club's results settings page (S16): who is listed as needing an estimate, and an
estimate entered under a member's merged (old) number (S15)."""

import datetime as dt

import pytest
from django.urls import reverse

from clubs.models import ClubEstimate
from grading.models import CurrentGrade
from grading.privacy import NO_GRADE, grade_withheld_reason
from grading.results.settings_reads import members_needing_estimates
from members.models import Member
from tests.factories import ClubRoleFactory, MemberFactory

pytestmark = pytest.mark.django_db


def graded(member: Member, status: str) -> Member:
    CurrentGrade.objects.create(
        member=member, grade=51.0, status=status, band="", initial_grade=50.0, as_of=dt.date.today()
    )
    return member


def test_the_members_needing_an_estimate_are_those_whose_grade_is_withheld(club_admin):
    """The query picks what ``grade_withheld_reason`` would (S7), less those with an estimate
    and those with no grade at all (nothing to estimate)."""
    club = club_admin[2]
    members = {
        "private": graded(MemberFactory(grade_private=True), "M"),
        "private, no grade": MemberFactory(grade_private=True),
        "provisional": graded(MemberFactory(), "P"),
        "published": graded(MemberFactory(), "E"),
        "out of date": graded(MemberFactory(), "O"),
        "no grade": MemberFactory(),
        "estimated": graded(MemberFactory(grade_private=True), "P"),
    }
    for member in members.values():
        ClubRoleFactory(club=club, member=member)
    graded(MemberFactory(grade_private=True), "M")  # not a member of the club
    ClubEstimate.objects.create(club=club, member=members["estimated"], grade=47.0)
    listed = members_needing_estimates(club=club)
    assert {number for _, number, _ in listed} == {
        members[k].national_number for k in ("private", "private, no grade", "provisional")
    }
    for name, number, why in listed:
        member = Member.objects.select_related("current_grade").get(national_number=number)
        assert (name, why) == (member.name, grade_withheld_reason(member))
        assert why != NO_GRADE


def test_an_estimate_under_a_merged_number_is_the_survivors(client, club_admin):
    """S15: both numbers find the member; the form said no member had the old one."""
    user, _, club = club_admin
    survivor = graded(MemberFactory(national_number="7002", grade_private=True), "M")
    MemberFactory(national_number="7001", merged_into=survivor)
    ClubRoleFactory(club=club, member=survivor)
    client.force_login(user)
    url = reverse("results:club-settings", args=[club.slug])
    done = client.post(url, {"form": "estimate", "number": " 07001", "grade": "47.5"})
    assert done.status_code == 302
    assert ClubEstimate.objects.get(club=club).member == survivor
    # A number of no member of the club is still refused.
    outsider = MemberFactory(national_number="7003")
    refused = client.post(url, {"form": "estimate", "number": "7003", "grade": "47.5"})
    assert "No member of the club has number 7003" in refused.content.decode()
    assert not ClubEstimate.objects.filter(member=outsider).exists()
