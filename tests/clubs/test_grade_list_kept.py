"""The club's grade list is kept rendered under the club's ``pages_version`` (members/pagecache.py)
and never outlives what it shows: every write that changes a grade, a privacy setting, a member
or a role of the club bumps the club's version in its own transaction, and the next request
shows the change (S7, S13)."""

import datetime as dt
import re

import pytest
from django.urls import reverse

from clubs.models import Club, ClubRole
from clubs.services import club_role_set
from grading.common.stale import club_pages_invalidate
from grading.ledger.refresh import grades_refresh
from grading.ledger.replay.check import ledger_refold
from grading.models import CurrentGrade, SessionVersion
from grading.staff.services import parameters_change
from grading.uploads.services import session_withdraw, upload_create
from members import pagecache
from members.models import Member
from members.services import member_privacy_set
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import MemberFactory, UserFactory

# Two sessions of 160 boards: every player's grade is published (Evolving) at once (S4).
BOARDS = 160


@pytest.fixture
def upload(club, django_capture_on_commit_callbacks):
    def send(data: bytes, *, grade: bool = True, at=None):
        with django_capture_on_commit_callbacks(execute=grade):
            return upload_create(
                club=at or club, filename="results.csv", data=data, check_club=False
            )

    return send


@pytest.fixture
def played(upload, club):
    first = mp_session_rows(date="2026-10-26", event_id="SAT", boards=BOARDS)
    upload(csv_bytes(first + mp_session_rows(date="2026-11-02", boards=BOARDS)))
    return club


def grades_url(club, query: str = "") -> str:
    return reverse("clubs:grades", args=[club.slug]) + query


def listed(client, club, query: str = "") -> dict[str, list[str]]:
    """{number: [name, grade or pill, band, status, handicap 100, handicap 50, role]}."""
    html = client.get(grades_url(club, query)).content.decode()
    table = html.split('data-testid="grade-list"', 1)[1].split("</table>", 1)[0]
    rows = {}
    for row in re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>", 1)[1], re.S):
        cells = [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        if len(cells) == 8:
            rows[cells[0]] = cells[1:]
    return rows


def main_of(response) -> str:
    """The page without its navigation (whose log-out form has a fresh CSRF token each time)."""
    return response.content.decode().split("<main", 1)[1]


def grade_of(number: str) -> str:
    return f"{CurrentGrade.objects.get(member__national_number=number).grade:.2f}"


def test_a_kept_list_is_served_without_reading_the_grades(
    admin_client, played, django_assert_max_num_queries
):
    first = main_of(admin_client.get(grades_url(played)))
    assert listed(admin_client, played)["1001"][1] == grade_of("1001")
    # The session, the user (with their membership and whether they administer a club) and
    # the clubs they administer (the navigation's, this one among them), and the count of
    # sign-ups waiting for the club's answer in its header (S15): none of the rows.
    with django_assert_max_num_queries(4):
        assert main_of(admin_client.get(grades_url(played))) == first
    CurrentGrade.objects.filter(member__national_number="1001").update(grade=61.2345)
    assert listed(admin_client, played)["1001"][1] != "61.23"  # so the list really is kept...
    club_pages_invalidate(club_ids=[played.pk])
    assert listed(admin_client, played)["1001"][1] == "61.23"  # ...until the club's version moves


def test_a_graded_upload_and_a_withdrawal_show_at_once(admin_client, played, upload):
    before = listed(admin_client, played)["1001"]
    upload(
        csv_bytes(
            mp_session_rows(
                date="2026-11-09", event_id="TUE", scores=[70, 55, 52.5, 50, 47.5, 45, 44, 36]
            )
        )
    )
    after = listed(admin_client, played)["1001"]
    assert after[1] == grade_of("1001") != before[1]
    session_withdraw(version=SessionVersion.objects.get(session__event__event_id="TUE"))
    assert listed(admin_client, played)["1001"][1] == grade_of("1001") == before[1]


def test_a_member_graded_at_another_club_shows_at_once(admin_client, played, other_club, upload):
    """1001 plays at another club: their grade moves on this club's list too."""
    before = listed(admin_client, played)["1001"][1]
    away = mp_session_rows(
        date="2026-11-10", event_id="AWAY", scores=[30, 55, 52.5, 50, 47.5, 45, 44, 70]
    )
    upload(csv_bytes(away), at=other_club)
    assert listed(admin_client, played)["1001"][1] == grade_of("1001") != before


def test_players_new_to_the_club_show_before_their_session_is_graded(admin_client, played, upload):
    assert "3001" not in listed(admin_client, played)
    numbers = [(str(3001 + 2 * i), str(3002 + 2 * i)) for i in range(8)]
    upload(
        csv_bytes(mp_session_rows(date="2026-11-09", event_id="NEW", numbers=numbers)), grade=False
    )
    assert listed(admin_client, played)["3001"][1] == "No grade"


def test_a_privacy_change_shows_at_once(admin_client, played):
    assert listed(admin_client, played)["1003"][1] == grade_of("1003")
    member_privacy_set(member=Member.objects.get(national_number="1003"), private=True)
    # Grade, band and status: the status column says why, as the exports do (issue 30).
    assert listed(admin_client, played)["1003"][1:4] == ["Private", "", "Private"]
    member_privacy_set(member=Member.objects.get(national_number="1003"), private=False)
    assert listed(admin_client, played)["1003"][1] == grade_of("1003")


def test_membership_and_role_changes_show_at_once(admin_client, played):
    listed(admin_client, played)
    newcomer = MemberFactory(national_number="4242", name="Nadia Newcomer")
    club_role_set(club=played, member=newcomer)
    assert listed(admin_client, played)["4242"][:2] == ["Nadia Newcomer", "No grade"]
    club_role_set(club=played, member=Member.objects.get(national_number="1002"), role="admin")
    assert listed(admin_client, played)["1002"][-1] == "Administrator"


@pytest.mark.parametrize("write", ["refold", "refresh", "parameters"])
def test_wholesale_recomputations_bump_every_club(
    played, other_club, write, django_capture_on_commit_callbacks
):
    before = dict(Club.objects.values_list("pk", "pages_version"))
    with django_capture_on_commit_callbacks(execute=False):
        {
            "refold": lambda: ledger_refold(),
            "refresh": lambda: grades_refresh(today=dt.date(2026, 12, 1)),
            "parameters": lambda: parameters_change(
                params_name="fr18-factors", reason="FR 18's estimates"
            ),
        }[write]()
    after = dict(Club.objects.values_list("pk", "pages_version"))
    assert after.keys() == before.keys() and all(after[k] != before[k] for k in before)


def test_a_grading_step_bumps_only_the_clubs_of_its_players(played, other_club, upload):
    untouched = Club.objects.get(pk=other_club.pk).pages_version
    mine = Club.objects.get(pk=played.pk).pages_version
    upload(csv_bytes(mp_session_rows(date="2026-11-09", event_id="TUE")))
    assert Club.objects.get(pk=played.pk).pages_version != mine
    assert Club.objects.get(pk=other_club.pk).pages_version == untouched


def test_staff_edits_in_the_admin_show_at_once(admin_client, played, client):
    listed(admin_client, played)
    staff = UserFactory(is_staff=True, is_superuser=True)
    staff_client = type(client)()
    staff_client.force_login(staff)
    member = Member.objects.get(national_number="1005")
    response = staff_client.post(
        reverse("admin:members_member_change", args=[member.pk]),
        {"national_number": "1005", "name": "Renamed Player"},
    )
    assert response.status_code == 302
    assert listed(admin_client, played)["1005"][0] == "Renamed Player"
    role = ClubRole.objects.get(club=played, member=member)
    response = staff_client.post(
        reverse("admin:clubs_clubrole_change", args=[role.pk]),
        {"club": played.pk, "member": member.pk, "role": "admin"},
    )
    assert response.status_code == 302
    assert listed(admin_client, played)["1005"][-1] == "Administrator"


def test_the_list_is_the_same_for_every_viewer_and_names_none(admin_client, played, club_admin):
    """Rendered without the request: an administrator and staff read the same content, and it
    holds nothing of either (privacy is decided per member by grading.privacy, S7)."""
    mine = admin_client.get(grades_url(played)).content.decode()
    staff = UserFactory(is_staff=True, username="staff-viewer")
    admin_client.force_login(staff)
    theirs = admin_client.get(grades_url(played)).content.decode()
    content = mine.split('<form method="get" class="card toolbar"', 1)[1]
    assert content == theirs.split('<form method="get" class="card toolbar"', 1)[1]
    assert club_admin[0].username not in content and "staff-viewer" not in content


def test_each_filter_and_sort_is_kept_apart_and_a_search_is_not_kept(admin_client, played):
    everyone = listed(admin_client, played)
    assert set(listed(admin_client, played, "?status=P")) == set()
    descending = sorted(everyone, key=lambda n: (len(n), n), reverse=True)
    assert list(listed(admin_client, played, "?sort=-number")) == descending
    assert set(listed(admin_client, played)) == set(everyone)
    assert set(listed(admin_client, played, "?q=1001")) == {"1001"}
    Member.objects.filter(national_number="1001").update(name="Searched Again")
    assert listed(admin_client, played, "?q=1001")["1001"][0] == "Searched Again"


@pytest.mark.parametrize(
    "query, kept",
    [
        ("", True),
        ("sort=-grade", True),
        ("q=&status=M&recent=on&sort=name", True),
        ("status=private", True),
        ("q=1001", False),
        ("sort=grade&sort=name", False),
        ("sort=height", False),
        ("status=M&utm_source=x", False),
        ("recent=1", False),
        ("q=" + "&q=" * 300, False),
    ],
)
def test_only_the_lists_own_queries_are_kept(query, kept):
    """So the lists one club can make the cache hold are bounded by the form's choices."""
    from clubs.forms import GRADE_LIST_QUERIES

    assert (pagecache.choice_query(query, GRADE_LIST_QUERIES) is not None) == kept


def test_the_date_and_the_club_are_part_of_the_key(played, other_club, monkeypatch):
    built = []

    def build():
        built.append(1)
        return "content"

    pagecache.club_page_content(club=played, page="grades", build=build)
    pagecache.club_page_content(club=played, page="grades", build=build)
    assert len(built) == 1
    pagecache.club_page_content(club=other_club, page="grades", build=build)
    assert len(built) == 2
    monkeypatch.setattr(pagecache.timezone, "localdate", lambda: dt.date(2030, 1, 1))
    pagecache.club_page_content(club=played, page="grades", build=build)
    assert len(built) == 3


def test_a_cache_that_is_down_only_means_rendering_every_time(admin_client, played, monkeypatch):
    def down(*args, **kwargs):
        raise ConnectionError("Redis is restarting")

    monkeypatch.setattr(pagecache.cache, "get", down)
    monkeypatch.setattr(pagecache.cache, "set", down)
    assert listed(admin_client, played)["1001"][1] == grade_of("1001")
