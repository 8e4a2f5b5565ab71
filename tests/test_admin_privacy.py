"""S13: "see another member's private grade" is no one's right, staff included. The staff admin
lists no grade row of a member who keeps their grade private, reaches none by its id, and does
not set anyone's privacy (each member sets their own)."""

import pytest
from django.urls import reverse

from grading.models import CurrentGrade, PartnershipGrade, SessionGrade
from grading.uploads.services import upload_create
from members.models import Member
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import ClubFactory, UserFactory

SECRET = 61.2345  # shown as 61.23 wherever a grade is shown


@pytest.fixture
def private(db, django_capture_on_commit_callbacks, client):
    """A graded session in which player 1003 (pair 2, with 1004) keeps their grade private;
    the client is signed in as staff."""
    with django_capture_on_commit_callbacks(execute=True):
        upload_create(club=ClubFactory(), filename="mon.csv", data=csv_bytes(mp_session_rows()))
    member = Member.objects.get(national_number="1003")
    member.grade_private = True
    member.save(update_fields=["grade_private"])
    CurrentGrade.objects.filter(member=member).update(grade=SECRET)
    SessionGrade.objects.filter(member=member).update(session_grade=SECRET, grade_after=SECRET)
    PartnershipGrade.objects.filter(member_a=member).update(grade=SECRET)
    PartnershipGrade.objects.filter(member_b=member).update(grade=SECRET)
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    return member


@pytest.mark.parametrize("model", ["currentgrade", "sessiongrade", "partnershipgrade"])
def test_staff_lists_show_no_private_grade(private, client, model):
    page = client.get(reverse(f"admin:grading_{model}_changelist"))
    assert page.status_code == 200
    assert "61.23" not in page.content.decode()
    assert "Player 1001" in page.content.decode()  # the others' rows are there


@pytest.mark.parametrize("model", [CurrentGrade, SessionGrade])
def test_staff_cannot_open_a_private_grade_by_its_id(private, client, model):
    row = model.objects.filter(member=private).first()
    page = client.get(reverse(f"admin:grading_{model._meta.model_name}_change", args=[row.pk]))
    assert "61.23" not in page.content.decode() and page.status_code in (302, 404)


def test_staff_do_not_set_a_members_privacy(private, client):
    url = reverse("admin:members_member_change", args=[private.pk])
    page = client.get(url).content.decode()
    assert 'name="grade_private"' not in page
    client.post(url, {"national_number": "1003", "name": "Player 1003", "grade_private": ""})
    private.refresh_from_db()
    assert private.grade_private


def test_staff_do_not_see_the_rows_of_a_private_members_partner(private, client):
    """Found by review: a public partner's row gives the private grade away (its par, SOpp and
    grade before: pair grade = par - 50 + SOpp)."""
    partner = SessionGrade.objects.get(member__national_number="1004")
    assert partner.partner == private
    page = client.get(reverse("admin:grading_sessiongrade_change", args=[partner.pk]))
    assert page.status_code in (302, 404)
    listed = client.get(reverse("admin:grading_sessiongrade_changelist")).content.decode()
    assert "Player 1004" not in listed and "Player 1001" in listed
