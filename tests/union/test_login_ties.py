"""Who may act for a member (S14.25, S15): a file makes no one a member of a club, a login is
tied to a member only by an invitation to the email the register holds for them or by their home
club; sign-ups go to the home club's administrators (a count on each club page and an email),
and to the staff page when no one there can answer; every member sees each session stored under
their number with the club that sent it and can report one they did not play."""

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from clubs.models import ClubRole
from clubs.selectors.home import member_home_club_id
from grading.models import SessionVersion
from grading.staff.register import register_load
from grading.uploads.services import session_withdraw, upload_create
from members.accounts.services import (
    AccountRefused,
    invitation_create,
    sign_up_decide,
    sign_up_request_create,
)
from members.models import Member, SessionReport, SignUpRequest
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import ClubFactory, MemberFactory, UserFactory

VICTIM = "424242"
SITE = "http://testserver/"


@pytest.fixture
def world(db, django_capture_on_commit_callbacks):
    """The victim's home club (on the register, with an administrator) and an attacker's club
    that uploaded a session naming the victim."""
    home = ClubFactory(name="Home", national_number="100")
    rogue = ClubFactory(name="Rogue", national_number="666")
    register_load(
        data=(
            "membership_number,first_name,surname,email,clubs,status\n"
            f"{VICTIM},Vic,Tim,vic@example.org,100,active\n"
        ).encode()
    )
    users = {}
    for name, club in (("home_admin", home), ("rogue_admin", rogue)):
        users[name] = UserFactory(username=name)
        member = MemberFactory(user=users[name], register_email=f"{name}@example.org")
        ClubRole.objects.create(club=club, member=member, role="admin")
    numbers = [(VICTIM, "900002")] + [(str(900010 + 2 * i), str(900011 + 2 * i)) for i in range(7)]
    with django_capture_on_commit_callbacks(execute=True):
        upload_create(
            club=rogue, filename="crafted.csv", data=csv_bytes(mp_session_rows(numbers=numbers))
        )
    return {
        "home": home,
        "rogue": rogue,
        "users": users,
        "victim": Member.objects.get(national_number=VICTIM),
    }


def test_the_home_club_is_the_registers_first_club_not_where_a_file_put_them(world):
    assert member_home_club_id(member_id=world["victim"].pk) == world["home"].pk
    rogue_role = ClubRole.objects.get(club=world["rogue"], member=world["victim"])
    assert not rogue_role.registered and not rogue_role.home


def test_a_club_that_uploaded_a_member_cannot_invite_them_to_its_own_address(world):
    with pytest.raises(AccountRefused, match="home club"):
        invitation_create(
            member=world["victim"],
            email="attacker@example.org",
            site_url=SITE,
            club=world["rogue"],
            invited_by=world["users"]["rogue_admin"],
        )
    # to the register's address anyone who may invite may send it: it reaches the member
    invitation = invitation_create(
        member=world["victim"],
        email="vic@example.org",
        site_url=SITE,
        club=world["rogue"],
        invited_by=world["users"]["rogue_admin"],
    )
    assert invitation.email == "vic@example.org"
    # the home club may invite to another address (the member asked it to)
    invitation_create(
        member=world["victim"],
        email="vic@home.example.org",
        site_url=SITE,
        club=world["home"],
        invited_by=world["users"]["home_admin"],
    )


def test_without_a_register_the_club_where_they_played_most_is_home(
    db, django_capture_on_commit_callbacks
):
    a, b = ClubFactory(), ClubFactory()
    numbers = [("555001", "555002")] + [
        (str(556000 + 2 * i), str(556001 + 2 * i)) for i in range(7)
    ]
    with django_capture_on_commit_callbacks(execute=True):
        for club, days in ((a, 1), (b, 2), (b, 3)):
            rows = mp_session_rows(numbers=numbers, date=f"2026-11-{days:02d}", event_id=f"E{days}")
            upload_create(club=club, filename=f"{days}.csv", data=csv_bytes(rows))
    member = Member.objects.get(national_number="555001")
    assert member_home_club_id(member_id=member.pk) == b.pk


def test_a_sign_up_goes_to_the_home_club_only(
    world, client, mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        sign_up = sign_up_request_create(number=VICTIM, name="Attacker", email="att@example.org")
    assert sign_up.club == world["home"]
    assert [m.to for m in mailoutbox] == [["home_admin@example.org"]]  # each administrator
    assert VICTIM in mailoutbox[0].body
    with pytest.raises(AccountRefused, match="home club"):
        sign_up_decide(
            sign_up=sign_up,
            approve=True,
            decided_by=world["users"]["rogue_admin"],
            club=world["rogue"],
            site_url=SITE,
        )
    client.force_login(world["users"]["rogue_admin"])
    page = client.get(reverse("club_members:members", args=[world["rogue"].slug]))
    assert "att@example.org" not in page.content.decode()
    client.force_login(world["users"]["home_admin"])
    page = client.get(reverse("clubs:dashboard", args=[world["home"].slug])).content.decode()
    assert "1 sign-up waiting for your answer" in page
    assert "1 sign-up waiting" in client.get(reverse("dashboard")).content.decode()


def test_the_approved_members_email_says_approved(
    world, mailoutbox, django_capture_on_commit_callbacks
):
    sign_up = sign_up_request_create(number=VICTIM, name="Vic", email="vic@example.org")
    with django_capture_on_commit_callbacks(execute=True):
        sign_up_decide(
            sign_up=sign_up,
            approve=True,
            decided_by=world["users"]["home_admin"],
            club=world["home"],
            site_url=SITE,
        )
    email = mailoutbox[-1]
    assert "approved" in email.subject and "invited" not in email.body


def test_sign_ups_with_no_one_to_answer_or_waiting_a_week_are_on_the_staff_page(world, client):
    orphan_club = ClubFactory(name="Nobody Home")
    orphan = MemberFactory(national_number="313131")
    ClubRole.objects.create(club=orphan_club, member=orphan)
    sign_up_request_create(number="313131", name="Orphan", email="orphan@example.org")
    old = sign_up_request_create(number=VICTIM, name="Slow", email="slow@example.org")
    client.force_login(UserFactory(is_staff=True))
    page = client.get(reverse("staff-home")).content.decode()
    assert "orphan@example.org" in page and "slow@example.org" not in page
    SignUpRequest.objects.filter(pk=old.pk).update(created=timezone.now() - dt.timedelta(days=8))
    page = client.get(reverse("staff-home")).content.decode()
    assert "slow@example.org" in page and "Nobody Home" in page


def test_a_withdrawn_upload_leaves_no_one_on_the_clubs_list(world):
    version = SessionVersion.objects.get()
    session_withdraw(version=version)
    assert not ClubRole.objects.filter(club=world["rogue"], member=world["victim"]).exists()
    assert ClubRole.objects.filter(club=world["rogue"], role="admin").exists()  # kept
    assert ClubRole.objects.filter(club=world["home"], member=world["victim"]).exists()


def test_a_member_sees_the_club_that_sent_a_session_and_reports_it(world, client):
    victim = world["victim"]
    victim.user = UserFactory(username="vic")
    victim.save()
    client.force_login(victim.user)
    page = client.get(reverse("members:sessions-clubs")).content.decode()
    assert "Rogue" in page
    version = SessionVersion.objects.get()
    client.post(reverse("members:session-report", args=[version.pk]), {"note": "never there"})
    assert SessionReport.objects.get().member == victim
    other = UserFactory(username="other")
    MemberFactory(user=other)
    client.force_login(other)
    client.post(reverse("members:session-report", args=[version.pk]))
    assert SessionReport.objects.count() == 1  # not a session under their number
    staff = UserFactory(is_staff=True)
    client.force_login(staff)
    page = client.get(reverse("staff-home")).content.decode()
    assert "never there" in page


def test_a_quick_withdrawal_naming_other_clubs_members_is_on_the_staff_page(world, client):
    session_withdraw(version=SessionVersion.objects.get(), user=world["users"]["rogue_admin"])
    client.force_login(UserFactory(is_staff=True))
    page = client.get(reverse("staff-home")).content.decode()
    section = page.split('data-testid="quick-withdrawals"')[1].split("</section>")[0]
    assert VICTIM in section and "rogue_admin" in section


def test_an_invitation_list_naming_a_member_of_another_home_club_is_refused_whole(
    world, client, mailoutbox
):
    client.force_login(world["users"]["rogue_admin"])
    response = client.post(
        reverse("club_members:invite-list", args=[world["rogue"].slug]),
        {"text": f"{VICTIM},attacker@example.org\n"},
    )
    assert response.status_code == 200
    assert "is not the home club of 424242" in response.content.decode()
    assert not mailoutbox and not world["victim"].invitations.exists()


def test_staff_answer_a_sign_up_no_club_can(
    world, client, mailoutbox, django_capture_on_commit_callbacks
):
    orphan = MemberFactory(national_number="313131")
    ClubRole.objects.create(club=ClubFactory(name="Nobody Home"), member=orphan)
    sign_up = sign_up_request_create(number="313131", name="Orphan", email="orphan@example.org")
    client.force_login(UserFactory(is_staff=True))
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("staff-sign-up-decide", args=[sign_up.pk]), {"decision": "approve"})
    sign_up.refresh_from_db()
    assert sign_up.status == "approved"
    assert mailoutbox[-1].to == ["orphan@example.org"] and "approved" in mailoutbox[-1].subject
