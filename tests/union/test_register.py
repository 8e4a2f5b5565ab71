"""The member register (S15): loaded all or nothing with every problem by line, a reload of the
same list writes nothing, later lists update names, emails, clubs and status, members missing
from a list are kept; a club's Members page lists the register's members (home club first) and
invites those with an email and no login in one step, from a task."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from clubs.models import ClubRole
from clubs.services import club_register
from grading.models import AuditEvent
from grading.staff.register import register_load
from members.models import Invitation, Member
from tests.factories import ClubFactory, MemberFactory, UserFactory

HEADER = "membership_number,first_name,surname,email,clubs,status\n"


def register(*lines: str) -> bytes:
    return (HEADER + "\n".join(lines) + "\n").encode()


FIRST = register(
    "1001,Ann,Smith,ann@example.org,100;200,active",
    "1002,Bob,Jones,,100,active",
    "1003,Cat,Brown,cat@example.org,200,lapsed",
)


@pytest.fixture
def clubs(db):
    return ClubFactory(name="Hundred", national_number="100"), ClubFactory(
        name="Two Hundred", national_number="200"
    )


@pytest.mark.django_db
def test_every_problem_is_given_by_line_and_nothing_is_loaded(clubs):
    bad = register(
        "1001,Ann,Smith,ann@example.org,100,active",
        "abc!,Bob,Jones,,100,active",
        "1003,,,not-an-email,100,sleeping",
        "1001,Ann,Again,,x1,active",
    )
    summary = register_load(data=bad)
    assert not summary.ok and not Member.objects.exists() and not ClubRole.objects.exists()
    text = "\n".join(summary.problems)
    assert "Line 3: 'abc!' is not a membership number." in text
    assert "Line 4: give the member's first name or surname." in text
    assert "Line 4: 'not-an-email' is not an email address." in text
    assert "Line 4: status 'sleeping' is neither active nor lapsed." in text
    assert "Line 5: membership number 1001 is also on line 2." in text
    assert "Line 5: 'x1' is not a club number." in text
    assert summary.problem_count == 6


@pytest.mark.django_db
def test_a_missing_column_is_named():
    summary = register_load(data=b"membership_number,first_name,surname\n1,A,B\n")
    assert summary.problems == [
        "Line 1: the header row has no column clubs, status. The columns are membership_"
        "number, first_name, surname, email, clubs, status (email may be left out)."
    ]


@pytest.mark.django_db
def test_a_load_adds_members_with_their_home_club_first(clubs):
    hundred, two_hundred = clubs
    summary = register_load(data=FIRST)
    assert (summary.added, summary.changed, summary.unchanged, summary.lapsed) == (3, 0, 0, 1)
    ann = Member.objects.get(national_number="1001")
    assert (ann.name, ann.register_email, ann.register_status) == (
        "Ann Smith",
        "ann@example.org",
        "active",
    )
    roles = {(r.club.national_number, r.registered, r.home) for r in ann.club_roles.all()}
    assert roles == {("100", True, True), ("200", True, False)}
    assert AuditEvent.objects.filter(action="register", details__added=3).count() == 1


@pytest.mark.django_db
def test_loading_the_same_list_again_writes_nothing(clubs):
    register_load(data=FIRST)
    with CaptureQueriesContext(connection) as queries:
        summary = register_load(data=FIRST)
    writes = [
        q["sql"]
        for q in queries.captured_queries
        if q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))
    ]
    assert writes == []
    assert (summary.added, summary.changed, summary.unchanged) == (0, 0, 3)
    assert summary.text().startswith("Nothing changed")


@pytest.mark.django_db
def test_a_later_list_updates_and_keeps_those_it_leaves_out(clubs):
    register_load(data=FIRST)
    later = register(
        "1001,Ann,Smith-Jones,ann@new.example.org,200,active",
        "1002,Bob,Jones,,100,lapsed",
    )
    summary = register_load(data=later)
    assert (summary.added, summary.changed, summary.unchanged, summary.lapsed) == (0, 2, 0, 1)
    ann = Member.objects.get(national_number="1001")
    assert (ann.name, ann.register_email) == ("Ann Smith-Jones", "ann@new.example.org")
    roles = {(r.club.national_number, r.registered, r.home) for r in ann.club_roles.all()}
    assert roles == {("100", False, False), ("200", True, True)}
    assert Member.objects.get(national_number="1002").register_status == "lapsed"
    cat = Member.objects.get(national_number="1003")  # missing from the list: kept as it was
    assert cat.register_status == "lapsed" and cat.club_roles.filter(registered=True).exists()


@pytest.mark.django_db
def test_a_club_registered_after_the_list_takes_its_members_from_it():
    register_load(data=FIRST)
    assert not ClubRole.objects.exists()
    club = club_register(name="Hundred", national_number="0100", user=None)
    assert set(club.roles.values_list("member__national_number", "home")) == {
        ("1001", True),
        ("1002", True),
    }


@pytest.mark.django_db
def test_the_command_loads_and_refuses_with_every_problem(tmp_path, clubs):
    good = tmp_path / "register.csv"
    good.write_bytes(FIRST)
    out = StringIO()
    call_command("load_register", str(good), stdout=out)
    assert "3 added, 0 changed, 0 unchanged, 1 newly lapsed" in out.getvalue()
    bad = tmp_path / "bad.csv"
    bad.write_bytes(register("1,A,B,,100,maybe"))
    err = StringIO()
    with pytest.raises(CommandError, match="1 problem"):
        call_command("load_register", str(bad), stdout=StringIO(), stderr=err)
    assert "Line 2: status 'maybe'" in err.getvalue()


@pytest.mark.django_db
def test_the_register_page_loads_the_list_for_staff(client, clubs):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(UserFactory(is_staff=True))
    response = client.post(
        reverse("staff-register"), {"file": SimpleUploadedFile("register.csv", FIRST)}
    )
    page = response.content.decode()
    assert response.status_code == 200 and 'data-testid="added">3<' in page
    assert Member.objects.count() == 3


@pytest.mark.django_db
def test_the_members_page_lists_home_club_members_first_and_invites_the_register(
    client, clubs, mailoutbox, django_capture_on_commit_callbacks
):
    hundred, _ = clubs
    register_load(data=FIRST)
    played = MemberFactory(name="Aaron Visitor")
    ClubRole.objects.create(club=hundred, member=played)
    admin = MemberFactory(user=UserFactory(username="admin"))
    ClubRole.objects.create(club=hundred, member=admin, role="admin")
    client.force_login(admin.user)
    page = client.get(reverse("club_members:members", args=[hundred.slug])).content.decode()
    assert page.index("Ann Smith") < page.index("Aaron Visitor")
    assert "Invite 1 member" in page  # Ann: an email and no login; Bob has no email
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("club_members:invite-register", args=[hundred.slug]))
    assert response.status_code == 302
    assert [m.to for m in mailoutbox] == [["ann@example.org"]]
    assert Invitation.objects.get().member.national_number == "1001"
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("club_members:invite-register", args=[hundred.slug]))
    assert len(mailoutbox) == 1  # invited once: an invitation is open


@pytest.mark.django_db
def test_the_register_bench_loads_new_unchanged_and_renamed_and_leaves_nothing():
    from grading.lab.registerbench import register_bench

    figures = register_bench(members=300)
    assert figures["first"].startswith("300 added")
    assert figures["unchanged"].startswith("Nothing changed")
    assert figures["tenth_renamed"].startswith("0 added, 30 changed")
    assert not Member.objects.exists()  # rolled back
