"""Two numbers, one person (S15): a merge moves every result of the merged number to the
survivor, refolds the ledger, leaves both numbers finding the member, re-links the login and is
audited; two numbers that played in the same session are refused.

The merge is checked against a ledger built as if the person had always had the surviving
number: the same sessions uploaded a second time by players of disjoint numbers (a parallel
world, 2xxxxx for 1xxxxx) in which the person plays as one number from the start. Worlds that
share no player grade independently, so each figure after the merge equals its twin's."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from grading.ledger.replay.check import ledger_check
from grading.models import AuditEvent, CurrentGrade, PairResult, PartnershipGrade, SessionGrade
from grading.staff.merge import MergeRefused, members_merge
from grading.uploads.services import upload_create
from members.accounts.union import member_by_number
from members.models import Member
from members.services import member_get_or_create
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import ClubFactory, UserFactory

DAYS = ["2026-09-01", "2026-09-08", "2026-09-15", "2026-09-22"]


def session_numbers(world: int, day: int, person: str) -> list[tuple[str, str]]:
    """Eight pairs; the person (``person``) partners 01 0002 in every session."""
    base = world * 100000
    others = [(str(base + 10 + 2 * i + day), str(base + 11 + 2 * i + day)) for i in range(7)]
    return [(person, str(base + 2))] + others


def upload_world(club, world: int, persons: list[str], capture) -> None:
    for day, (date, person) in enumerate(zip(DAYS, persons, strict=True)):
        rows = mp_session_rows(
            numbers=session_numbers(world, day, person),
            date=date,
            event_id=f"W{world}D{day}",
            scores=[55.0 + day, 60.0, 52.5, 50.0, 47.5, 45.0, 44.0, 43.5],
        )
        with capture(execute=True):
            upload_create(club=club, filename=f"w{world}d{day}.csv", data=csv_bytes(rows))


def twin(number: str) -> str:
    return str(int(number) + 100000)


def figures(world: int) -> dict:
    """Every stored grade of a world, keyed by the world-1 numbers."""

    def key(number):
        return str(int(number) - (world - 1) * 100000)

    low, high = str(world * 100000), str(world * 100000 + 99999)
    in_world = {"member__national_number__gte": low, "member__national_number__lte": high}
    current = {
        key(g.member.national_number): (
            round(g.grade, 9),
            g.status,
            g.boards_in_window,
            round(g.initial_grade, 9),
        )
        for g in CurrentGrade.objects.filter(**in_world).select_related("member")
    }
    sessions = sorted(
        (
            key(g.member.national_number),
            g.date,
            round(g.session_grade or 0, 9),
            round(g.grade_before, 9),
            round(g.sopp or 0, 9),
        )
        for g in SessionGrade.objects.filter(**in_world).select_related("member")
    )
    pairs = sorted(
        (key(p.member_a.national_number), key(p.member_b.national_number), round(p.grade, 9))
        for p in PartnershipGrade.objects.filter(
            member_a__national_number__gte=low, member_a__national_number__lte=high
        ).select_related("member_a", "member_b")
    )
    return {"current": current, "sessions": sessions, "pairs": pairs}


@pytest.mark.django_db
def test_a_merge_gives_the_ledger_of_a_person_who_always_had_the_surviving_number(
    django_capture_on_commit_callbacks,
):
    club = ClubFactory()
    # World 1: the person played as 100001 twice, then as 100099 (their number replaced).
    upload_world(
        club, 1, ["100001", "100001", "100099", "100099"], django_capture_on_commit_callbacks
    )
    # World 2: the same sessions, the person as 200099 throughout.
    upload_world(club, 2, ["200099"] * 4, django_capture_on_commit_callbacks)
    person = Member.objects.get(national_number="100001")
    person.user = UserFactory(username="person")
    person.save()
    staff = UserFactory(username="staff", is_staff=True)
    with django_capture_on_commit_callbacks(execute=True):
        result = members_merge(merged="100001", survivor="100099", user=staff, reason="replaced")
    assert (result.versions, result.pair_rows) == (2, 2)
    assert figures(1) == figures(2)
    assert "100001" not in figures(1)["current"]
    assert ledger_check() == []
    survivor = Member.objects.get(national_number="100099")
    assert survivor.user.username == "person"  # the login follows the person
    assert member_by_number("100001") == survivor == member_by_number("100099")
    assert member_get_or_create(number="100001", name="")[0] == survivor  # later files too
    assert not PairResult.objects.filter(player1__national_number="100001").exists()
    event = AuditEvent.objects.get(action="merge")
    assert event.actor == "staff" and event.details["reason"] == "replaced"


@pytest.mark.django_db
def test_two_numbers_in_the_same_session_are_refused(django_capture_on_commit_callbacks):
    club = ClubFactory()
    upload_world(club, 1, ["100001"] * 4, django_capture_on_commit_callbacks)
    before = figures(1)
    with pytest.raises(MergeRefused, match="same session"):
        members_merge(merged="100001", survivor="100002", reason="typo")  # partners
    assert figures(1) == before
    assert Member.objects.get(national_number="100001").merged_into is None
    with pytest.raises(MergeRefused, match="No member"):
        members_merge(merged="100001", survivor="999999", reason="typo")


@pytest.mark.django_db
def test_the_merge_page_and_command(client, django_capture_on_commit_callbacks):
    club = ClubFactory()
    upload_world(
        club, 1, ["100001", "100001", "100099", "100099"], django_capture_on_commit_callbacks
    )
    client.force_login(UserFactory(is_staff=True))
    page = client.post(
        reverse("staff-merge"), {"merged": "100001", "survivor": "100002", "reason": "x"}
    )
    assert "played in the same session" in page.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("staff-merge"), {"merged": "100001", "survivor": "100099", "reason": "x"}
        )
    assert response.status_code == 302
    assert Member.objects.get(national_number="100001").merged_into.national_number == "100099"
    with pytest.raises(CommandError, match="already merged"):
        call_command("merge_members", "100001", "100099", "--reason", "again", stdout=StringIO())


@pytest.mark.django_db
def test_the_merged_numbers_public_page_is_the_survivors(
    client, django_capture_on_commit_callbacks
):
    club = ClubFactory()
    upload_world(
        club, 1, ["100001", "100001", "100099", "100099"], django_capture_on_commit_callbacks
    )
    with django_capture_on_commit_callbacks(execute=True):
        members_merge(merged="100001", survivor="100099", reason="replaced")
    response = client.get(reverse("members:public", args=["100001"]))
    assert response.status_code == 301 and response.url.endswith("/members/100099/")
