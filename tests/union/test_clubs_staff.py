"""Staff register clubs and appoint their administrators from the product's own pages (S15,
S13); a file naming a club the product does not know is refused at the club's page and shown
on the staff page; staff's own import still registers the club it names, and says so."""

import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

from clubs.models import Club, ClubRole
from grading.models import AuditEvent, Upload
from grading.uploads.services import upload_create
from members.models import Invitation, Member
from tests.factories import ClubFactory, MemberFactory, UserFactory

SAMPLE = (
    Path(__file__).resolve().parent.parent / "fixtures/usebio/ukbridge-club/mp-pairs.usebio.xml"
)  # names club number 458128, "Sample Bridge Club 5"


@pytest.fixture
def staff(db):
    return UserFactory(username="staff", is_staff=True)


def link_in(mail) -> str:
    return re.search(r"https?://\S+", mail.body).group(0)


@pytest.mark.django_db
def test_staff_register_a_club_and_a_second_club_with_its_number_is_refused(client, staff):
    client.force_login(staff)
    response = client.post(
        reverse("staff-club-new"),
        {"name": "Tunbridge Wells BC", "national_number": "00 1234", "county": "Kent"},
    )
    club = Club.objects.get(name="Tunbridge Wells BC")
    assert response.status_code == 302 and response.url == reverse("staff-club", args=[club.slug])
    assert (club.national_number, club.county) == ("1234", "Kent")
    assert AuditEvent.objects.filter(action="club", actor="staff").count() == 1
    again = client.post(reverse("staff-club-new"), {"name": "Other", "national_number": "1234"})
    assert again.status_code == 200 and "already Tunbridge Wells BC" in again.content.decode()
    assert Club.objects.count() == 1


@pytest.mark.django_db
def test_the_clubs_list_finds_a_club_by_name_number_or_county(client, staff):
    acol = ClubFactory(name="Acol Club", national_number="77", county="Surrey")
    ClubFactory(name="Other Club", national_number="88", county="Devon")
    ClubRole.objects.create(club=acol, member=MemberFactory(name="Ada Admin"), role="admin")
    ClubRole.objects.create(club=acol, member=MemberFactory())
    Upload.objects.create(club=acol, filename="a.csv", status=Upload.Status.GRADED)
    client.force_login(staff)
    for query in ("acol", "77", "surrey"):
        page = client.get(reverse("staff-clubs"), {"q": query}).content.decode()
        assert "Acol Club" in page and "Other Club" not in page, query
    row = page.split("Acol Club")[1].split("</tr>")[0]
    assert "Ada Admin" in row and "<td>2</td>" in row and "never" not in row


@pytest.mark.django_db
def test_staff_edit_a_club_keeps_its_address(client, staff):
    club = ClubFactory(name="Old", national_number="55")
    client.force_login(staff)
    client.post(
        reverse("staff-club", args=[club.slug]),
        {"name": "New name", "national_number": "56", "county": "Kent", "keeps_brambledown": "on"},
    )
    club.refresh_from_db()
    assert (club.name, club.national_number, club.county, club.keeps_brambledown) == (
        "New name",
        "56",
        "Kent",
        True,
    )
    assert client.get(reverse("clubs:dashboard", args=[club.slug])).status_code == 200


@pytest.mark.django_db
def test_an_appointed_administrator_follows_the_emailed_link_and_becomes_administrator(
    client, staff, mailoutbox, django_capture_on_commit_callbacks
):
    club = ClubFactory(name="Acol Club")
    member = MemberFactory(national_number="123456", name="Ann Admin")
    client.force_login(staff)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("staff-club-admin", args=[club.slug]),
            {"number": "123456", "email": "ann@example.org"},
        )
    invitation = Invitation.objects.get(member=member)
    assert invitation.role == "admin" and invitation.club == club
    assert len(mailoutbox) == 1 and "administer Acol Club" in mailoutbox[0].subject
    assert not ClubRole.objects.filter(club=club, role="admin").exists()  # not before accepting
    client.logout()
    link = link_in(mailoutbox[0])
    response = client.post(
        link,
        {
            "username": "ann",
            "password1": "a-long-pass-phrase-1",
            "password2": "a-long-pass-phrase-1",
        },
    )
    assert response.status_code == 302
    member.refresh_from_db()
    assert member.user.username == "ann"
    assert ClubRole.objects.get(club=club, member=member).role == "admin"
    assert AuditEvent.objects.filter(action="club-admin", details__how="invitation accepted")
    assert client.get(reverse("uploads", args=[club.slug])).status_code == 200


@pytest.mark.django_db
def test_a_member_with_a_login_accepts_the_role_signed_in_as_themselves(
    client, staff, mailoutbox, django_capture_on_commit_callbacks
):
    club = ClubFactory()
    member = MemberFactory(user=UserFactory(username="bob"))
    other = UserFactory(username="mallory")
    client.force_login(staff)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("staff-club-admin", args=[club.slug]),
            {"number": member.national_number, "email": "bob@example.org"},
        )
    link = link_in(mailoutbox[0])
    assert "/accounts/administrator/" in link
    client.force_login(other)
    client.post(link)
    assert not ClubRole.objects.filter(club=club, role="admin").exists()  # not for mallory
    client.force_login(member.user)
    assert client.post(link).status_code == 302
    assert ClubRole.objects.get(club=club, member=member).role == "admin"
    assert client.get(link).status_code == 410  # used once


@pytest.mark.django_db
def test_staff_remove_an_administrator_who_stays_a_member(client, staff):
    club = ClubFactory()
    member = MemberFactory()
    ClubRole.objects.create(club=club, member=member, role="admin")
    client.force_login(staff)
    client.post(reverse("staff-club-admin-remove", args=[club.slug, member.national_number]))
    assert ClubRole.objects.get(club=club, member=member).role == "member"
    assert AuditEvent.objects.filter(action="club-admin", details__how="removed by staff")


@pytest.mark.django_db
def test_a_non_staff_member_gets_the_products_not_allowed_page(client):
    client.force_login(UserFactory(username="member"))
    response = client.get(reverse("staff-clubs"))
    assert response.status_code == 403
    assert 'data-testid="error-403"' in response.content.decode()
    assert "admin/login" not in response.content.decode()


@pytest.mark.django_db
def test_a_file_for_a_club_number_not_registered_is_refused_and_shown_to_staff(client, staff):
    club = ClubFactory(name="Our Club", national_number="999")
    upload = upload_create(club=club, filename="x.xml", data=SAMPLE.read_bytes())
    assert upload.status == Upload.Status.REFUSED
    message = upload.problems[0]["message"]
    assert "458128" in message and "staff must register that club first" in message
    assert upload.summary["unknown_club"] == "458128"
    assert not Member.objects.exists()
    client.force_login(staff)
    page = client.get(reverse("staff-home")).content.decode()
    assert "458128" in page and "Sample Bridge Club 5" in page


@pytest.mark.django_db
def test_a_file_for_another_registered_club_keeps_its_own_message():
    ClubFactory(name="Them", national_number="458128")
    ours = ClubFactory(name="Us", national_number="999")
    upload = upload_create(club=ours, filename="x.xml", data=SAMPLE.read_bytes())
    assert upload.status == Upload.Status.REFUSED
    assert "Upload it from that club's page" in upload.problems[0]["message"]
    assert "unknown_club" not in upload.summary


@pytest.mark.django_db
def test_staff_import_registers_the_club_a_file_names_and_says_so():
    out = StringIO()
    call_command("import_results", str(SAMPLE), "--sync", stdout=out)
    club = Club.objects.get()
    assert club.national_number == "458128"
    assert "has been registered now as Sample Bridge Club 5" in out.getvalue()
    assert AuditEvent.objects.filter(action="club", details__number="458128").exists()


@pytest.mark.django_db
def test_a_person_appointed_at_two_clubs_becomes_administrator_of_both(
    client, staff, mailoutbox, django_capture_on_commit_callbacks
):
    first, second = ClubFactory(name="First"), ClubFactory(name="Second")
    member = MemberFactory(national_number="123456")
    client.force_login(staff)
    with django_capture_on_commit_callbacks(execute=True):
        for club in (first, second):
            client.post(
                reverse("staff-club-admin", args=[club.slug]),
                {"number": "123456", "email": "ann@example.org"},
            )
    first_link, second_link = link_in(mailoutbox[0]), link_in(mailoutbox[1])
    client.logout()
    client.post(
        first_link,
        {
            "username": "ann",
            "password1": "a-long-pass-phrase-1",
            "password2": "a-long-pass-phrase-1",
        },
    )
    member.refresh_from_db()
    assert client.post(second_link).status_code == 302  # signed in now: accepted as themselves
    assert set(
        ClubRole.objects.filter(member=member, role="admin").values_list("club__name", flat=True)
    ) == {"First", "Second"}


@pytest.mark.django_db
def test_the_api_refuses_a_file_for_a_club_not_registered(django_capture_on_commit_callbacks):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from rest_framework.test import APIClient

    club = ClubFactory(national_number="999")
    admin = MemberFactory(user=UserFactory(username="scorer"))
    ClubRole.objects.create(club=club, member=admin, role="admin")
    client = APIClient()
    client.force_authenticate(admin.user)
    with django_capture_on_commit_callbacks(execute=True):
        body = client.post(
            reverse("api-uploads", args=[club.slug]),
            {"file": SimpleUploadedFile("x.xml", SAMPLE.read_bytes(), "text/xml")},
        ).json()
    body = client.get(reverse("api-upload", args=[club.slug, body["id"]])).json()
    assert body["status"] == "refused"
    assert "staff must register that club first" in body["problems"][0]["message"]
    assert Upload.objects.get().summary["unknown_club"] == "458128"
