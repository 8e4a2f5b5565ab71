"""The session's results page (S16): ranking, travellers scored by the engine, the player's
scorecard, who may see it (S13), a withdrawn version, and where it is linked from."""

import re

import pytest
from django.urls import reverse

from clubs.models import ClubRole
from grading.models import PairResult, SessionVersion
from members.models import Member
from tests.factories import ClubFactory, ClubRoleFactory, MemberFactory, UserFactory
from tests.results.conftest import PLAYED
from tests.results.world import numbers, session_file, upload_session

pytestmark = pytest.mark.django_db


def _login_as_player(client, number: str) -> Member:
    member = Member.objects.get(national_number=number)
    member.user = UserFactory()
    member.save()
    client.force_login(member.user)
    return member


def test_the_ranking_gives_every_pair_its_place_from_the_files_scores(client, club_admin, howell):
    client.force_login(club_admin[0])
    page = client.get(reverse("results:session", args=[howell.pk]))
    assert page.status_code == 200
    lines = [line for _, group in page.context["r"].groups for line in group]
    pairs = PairResult.objects.filter(version=howell.live_version)
    assert len(lines) == pairs.count() == 7
    values = [line.value for line in lines]
    assert values == sorted(values, reverse=True)
    assert lines[0].place.rstrip("=") == "1"
    best = pairs.order_by("-score").first()
    assert f"{best.score:.2f}%" in page.content.decode()


def test_a_players_scorecard_adds_up_to_the_score_in_the_ranking(client, howell):
    """The engine's match points on the pair's boards, as a percentage of their tops, give the
    pair's session score the file carries (S2.2, S2.3)."""
    member = _login_as_player(client, "5001")
    page = client.get(reverse("results:session", args=[howell.pk]))
    r = page.context["r"]
    pair = PairResult.objects.get(version=howell.live_version, player1=member)
    assert r.my_pair == pair.pair_id and r.card.pair_id == pair.pair_id
    assert len(r.card.rows) == pair.boards
    total = sum(row.earned.value for row in r.card.rows)
    top = sum(row.earned.top for row in r.card.rows)
    assert float(total * 100 / top) == pytest.approx(pair.score, abs=0.01)
    html = page.content.decode()
    assert "Your scorecard" in html
    explain = reverse("members:explain", args=[howell.pk])
    assert f'href="{explain}" data-testid="explain-link"' in html
    row = r.card.rows[0]
    assert row.opponents and row.contract and row.declarer


def test_every_board_has_its_traveller_with_match_points_on_each_side(client, club_admin, howell):
    client.force_login(club_admin[0])
    r = client.get(reverse("results:session", args=[howell.pk])).context["r"]
    assert r.travellers
    for traveller in r.travellers:
        tops = {row.ns.top for row in traveller.rows}
        assert len(tops) == 1
        for row in traveller.rows:
            assert row.ns.value + row.ew.value == row.ns.top  # each comparison shared out


def test_who_sees_the_results(client, club_admin, howell):
    url = reverse("results:session", args=[howell.pk])
    assert client.get(url).status_code == 302  # anonymous: to the login page
    stranger = UserFactory()
    MemberFactory(user=stranger)
    client.force_login(stranger)
    assert client.get(url).status_code == 403
    # A member of the club sees it.
    club_member = UserFactory()
    ClubRoleFactory(member=MemberFactory(user=club_member), club=howell.event.club)
    client.force_login(club_member)
    assert client.get(url).status_code == 200
    # A player from another club sees it too.
    player = Member.objects.get(national_number="5003")
    ClubRole.objects.filter(member=player).delete()
    ClubRoleFactory(member=player, club=ClubFactory())
    player.user = UserFactory()
    player.save()
    client.force_login(player.user)
    assert client.get(url).status_code == 200
    # Staff do.
    client.force_login(UserFactory(is_staff=True))
    assert client.get(url).status_code == 200
    # A club that publishes its results: anyone.
    client.logout()
    club = howell.event.club
    club.results_public = True
    club.save()
    assert client.get(url).status_code == 200


def test_a_withdrawn_version_shows_the_current_results_with_a_note(
    client, club_admin, howell, django_capture_on_commit_callbacks
):
    corrected = session_file(players=numbers(7), date=PLAYED, seed=8)
    upload_session(howell.event.club, django_capture_on_commit_callbacks, corrected, "v2.xml")
    howell.refresh_from_db()
    assert howell.live_version.number == 2
    client.force_login(club_admin[0])
    old = client.get(reverse("results:session-version", args=[howell.pk, 1]))
    assert old.status_code == 200
    assert old.context["r"].version.number == 2
    assert 'data-testid="replaced-note"' in old.content.decode()
    current = client.get(reverse("results:session-version", args=[howell.pk, 2]))
    assert 'data-testid="replaced-note"' not in current.content.decode()


def test_a_session_not_graded_has_no_results_page(client, club_admin, howell):
    SessionVersion.objects.filter(pk=howell.live_version_id).update(state="not_graded")
    client.force_login(club_admin[0])
    assert client.get(reverse("results:session", args=[howell.pk])).status_code == 404
    assert client.get(reverse("results:session", args=[howell.pk + 999])).status_code == 404


def test_the_results_are_linked_from_history_explain_and_the_clubs_sessions(
    client, club_admin, howell
):
    url = reverse("results:session", args=[howell.pk])
    client.force_login(club_admin[0])
    assert (
        url in client.get(reverse("clubs:sessions", args=[howell.event.club.slug])).content.decode()
    )
    member = _login_as_player(client, "5005")
    assert url in client.get(reverse("members:sessions")).content.decode()
    grade = member.session_grades.get()
    assert (
        url
        in client.get(reverse("members:explain", args=[grade.version.session_id])).content.decode()
    )


def test_a_file_without_travellers_shows_the_ranking_and_says_so(
    client, club_admin, django_capture_on_commit_callbacks
):
    from grading.uploads.services import upload_create
    from tests.csvfiles import csv_bytes, mp_session_rows

    club = club_admin[2]
    with django_capture_on_commit_callbacks(execute=True):
        upload = upload_create(
            club=club, filename="r.csv", data=csv_bytes(mp_session_rows()), check_club=False
        )
    session = upload.versions.get().session
    client.force_login(club_admin[0])
    page = client.get(reverse("results:session", args=[session.pk]))
    assert page.status_code == 200
    assert "no travellers" in page.content.decode()
    assert re.search(r"62\.50%", page.content.decode())


def test_the_players_grades_are_read_only_for_a_club_with_strata(club_admin, howell):
    """The ranking needs the players' names; their grades only place the pairs in strata."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from grading.models import CurrentGrade
    from grading.results import selectors
    from grading.results.services import club_strata_set

    grades = CurrentGrade._meta.db_table

    def page_queries() -> list[str]:
        session = selectors.session_for_results(session_id=howell.pk)
        with CaptureQueriesContext(connection) as seen:
            r = selectors.session_results(session=session, user=club_admin[0])
        assert [line for _, lines in r.groups for line in lines]
        return [q["sql"] for q in seen.captured_queries]

    assert not any(grades in sql for sql in page_queries())
    club_strata_set(club=howell.event.club, event_id=None, limits=[50.0])
    with_strata = page_queries()
    pairs = [sql for sql in with_strata if PairResult._meta.db_table in sql.split("WHERE")[0]]
    assert any(grades in sql for sql in pairs)
    # One join, not a query per player.
    assert sum(sql.lstrip().startswith("SELECT") and grades in sql for sql in with_strata) == 1


def _ranking_row(html: str, pair_id: str) -> str:
    return re.search(rf'<tr[^>]*data-pair="{re.escape(pair_id)}">(.*?)</tr>', html, re.S).group(0)


def test_a_kept_results_page_marks_each_viewers_own_pair(client, howell):
    """The page is kept rendered, yet every player still sees their own pair marked and their
    own scorecard, never the player who asked before them."""
    first = _login_as_player(client, "5001")
    client.get(reverse("results:session", args=[howell.pk]))  # kept
    second = _login_as_player(client, "5003")
    html = client.get(reverse("results:session", args=[howell.pk])).content.decode()
    theirs = PairResult.objects.get(version=howell.live_version, player1=second).pair_id
    others = PairResult.objects.get(version=howell.live_version, player1=first).pair_id
    assert "(you)" in _ranking_row(html, theirs) and 'class="mine"' in _ranking_row(html, theirs)
    assert "(you)" not in _ranking_row(html, others)
    assert f"Pair {theirs}:" in html and "Your scorecard" in html


def test_a_kept_results_page_shows_a_players_new_name(client, club_admin, howell):
    """A name the union's register changes is on the page at once (the member's pages are
    renewed, the results pages among them)."""
    from grading.common.stale import member_pages_invalidate

    client.force_login(club_admin[0])
    client.get(reverse("results:session", args=[howell.pk]))  # kept
    Member.objects.filter(national_number="5001").update(name="Renamed Player")
    member_pages_invalidate(numbers=["5001"])
    html = client.get(reverse("results:session", args=[howell.pk])).content.decode()
    assert "Renamed Player" in html


def test_a_kept_results_page_costs_a_few_queries(client, django_assert_max_num_queries, howell):
    """Read back, the page reads the session, who sat where (and whether what it shows of them
    changed) and the viewer's membership: no ranking, strata or scorecard is worked out."""
    _login_as_player(client, "5001")
    url = reverse("results:session", args=[howell.pk])
    client.get(url)
    with django_assert_max_num_queries(5):  # session, user, member, seats, the login's session
        page = client.get(url)
    assert page.status_code == 200 and "Your scorecard" in page.content.decode()


def test_the_results_pages_reads_are_the_orms_and_compiled_once(howell):
    """The session and its seats, read on every request of the page, are compiled once per
    process (grading/common/compiled.py) and give what the ORM gives: the session with its
    club and live version, and the seats' tuples in order; an unknown or huge id, nothing."""
    from grading.results import selectors

    got = selectors.session_for_results(session_id=howell.pk)
    expected = selectors._session_query(howell.pk).get()
    assert (got.pk, got.event.club.pk, got.live_version.pk) == (
        expected.pk,
        expected.event.club.pk,
        expected.live_version.pk,
    )
    assert got.live_version.state == expected.live_version.state
    seats = selectors.version_seats(version=got.live_version)
    orm = list(selectors._seats_query(got.live_version.pk))
    assert len(seats) == PairResult.objects.filter(version=got.live_version).count() > 1
    assert [tuple(s) for s in seats] == orm
    assert all(s.player1_pages is not None for s in seats if s.player1_id is not None)
    for compiled in (selectors._session_of, selectors._seats_of):
        assert compiled._compiled()[1] is not None  # compiled, not the ORM every time
    assert selectors.session_for_results(session_id=howell.pk + 10_000) is None
    assert selectors.session_for_results(session_id=2**40) is None
