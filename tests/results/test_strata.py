"""Strata on the results page (S16, seed 000 on stratifying Swiss events: "pairs whose average
grade is below a level"): placed by the average grade at the start of the session (S3.2), a
private or provisional grade replaced by the club's estimate (S8, FAQ 36) or else the pair in
the strongest stratum, an unknown player at the S3.8 figure; and no private grade readable
from any of it (S7, S14.14)."""

import re

import pytest
from django.urls import reverse

from clubs.models import ClubStrata
from grading.common.stale import member_pages_invalidate
from grading.models import CurrentGrade, PairResult, SessionGrade
from grading.results.services import club_estimate_set, club_strata_set
from members.models import Member
from tests.results.conftest import PLAYED
from tests.results.world import numbers, session_file, upload_session

pytestmark = pytest.mark.django_db


def starts(session, grades: dict[str, float]) -> None:
    """The players' grades at the start of the session, and grades that are published now, as
    a refold would leave them (their pages, the results pages among them, render afresh)."""
    for number, grade in grades.items():
        SessionGrade.objects.filter(
            version=session.live_version, member__national_number=number
        ).update(grade_before=grade)
    CurrentGrade.objects.filter(member__national_number__in=grades).update(status="E")
    member_pages_invalidate(numbers=grades)


def strata_page(client, session) -> dict[str, list[float]]:
    """Each pair's strata as the ranking shows them (read from the page, kept or not)."""
    page = client.get(reverse("results:session", args=[session.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    ranking = text[
        text.index('id="ranking"') : text.index("</section>", text.index('id="ranking"'))
    ]
    rows = re.findall(r'<tr[^>]*data-pair="([^"]+)">(.*?)</tr>', ranking, re.S)
    return {
        pair: [float(limit) for limit in re.findall(r"below ([0-9.]+)</span>", row)]
        for pair, row in rows
    }


def pair_of(session, number: str) -> str:
    return PairResult.objects.get(
        version=session.live_version, player1__national_number=number
    ).pair_id


def everyone_at(grade: float) -> dict[str, float]:
    return {str(n): grade for n in range(5001, 5015)}


def test_a_pair_exactly_on_a_limit_is_not_below_it(client, club_admin, howell):
    club_strata_set(club=howell.event.club, event_id=None, limits=[50.0])
    starts(howell, {**everyone_at(55.0), "5001": 49.0, "5002": 51.0})
    client.force_login(club_admin[0])
    assert strata_page(client, howell)[pair_of(howell, "5001")] == []
    starts(howell, {"5002": 50.98})  # average 49.99
    assert strata_page(client, howell)[pair_of(howell, "5001")] == [50.0]


def test_a_pair_below_two_limits_is_in_both_strata_and_ranked_in_each(client, club_admin, howell):
    club_strata_set(club=howell.event.club, event_id=None, limits=[45.0, 50.0])
    starts(howell, {**everyone_at(55.0), "5001": 44.0, "5002": 44.0, "5003": 47.0, "5004": 47.0})
    client.force_login(club_admin[0])
    page = client.get(reverse("results:session", args=[howell.pk]))
    r = page.context["r"]
    assert r.limits == [50.0, 45.0]
    below50, below45 = r.strata
    in50 = {line.pair_id for _, lines in below50.groups for line in lines}
    in45 = {line.pair_id for _, lines in below45.groups for line in lines}
    assert in50 == {pair_of(howell, "5001"), pair_of(howell, "5003")}
    assert in45 == {pair_of(howell, "5001")}
    places = [line.place for _, lines in below50.groups for line in lines]
    assert sorted(p.rstrip("=") for p in places) in (["1", "2"], ["1", "1"])


def test_a_private_member_without_an_estimate_puts_the_pair_in_the_strongest_stratum(
    client, club_admin, howell
):
    club_strata_set(club=howell.event.club, event_id=None, limits=[50.0])
    starts(howell, {**everyone_at(55.0), "5003": 50.0, "5004": 40.0})
    Member.objects.filter(national_number="5004").update(grade_private=True)
    client.force_login(club_admin[0])
    # Their true average (45) is below 50, but nothing may tell it: the open field only.
    assert strata_page(client, howell)[pair_of(howell, "5003")] == []


def test_a_private_member_with_an_estimate_is_placed_by_the_estimate(client, club_admin, howell):
    club = howell.event.club
    club_strata_set(club=club, event_id=None, limits=[50.0])
    starts(howell, {**everyone_at(55.0), "5003": 50.0, "5004": 40.0})
    private = Member.objects.get(national_number="5004")
    private.grade_private = True
    private.save()
    client.force_login(club_admin[0])
    club_estimate_set(club=club, member=private, grade=56.0)  # average 53: not below 50
    assert strata_page(client, howell)[pair_of(howell, "5003")] == []
    club_estimate_set(club=club, member=private, grade=48.0)  # average 49: below 50
    assert strata_page(client, howell)[pair_of(howell, "5003")] == [50.0]


def test_a_provisional_member_is_placed_by_the_estimate_too(client, club_admin, howell):
    club = howell.event.club
    club_strata_set(club=club, event_id=None, limits=[50.0])
    starts(howell, {**everyone_at(55.0), "5005": 40.0, "5006": 40.0})
    CurrentGrade.objects.filter(member__national_number="5006").update(status="P")
    client.force_login(club_admin[0])
    assert strata_page(client, howell)[pair_of(howell, "5005")] == []
    club_estimate_set(club=club, member=Member.objects.get(national_number="5006"), grade=45.0)
    assert strata_page(client, howell)[pair_of(howell, "5005")] == [50.0]


@pytest.fixture
def visited(club_admin, django_capture_on_commit_callbacks):
    """Six pairs of members (5001-5012), all at 50.0 at the start, and a pair of visitors."""
    session = upload_session(
        club_admin[2],
        django_capture_on_commit_callbacks,
        session_file(players=numbers(6) + [(None, None)], date=PLAYED),
    )
    starts(session, {str(n): 50.0 for n in range(5001, 5013)})
    return session


def test_an_unknown_player_is_placed_at_the_s38_figure(client, club_admin, visited):
    session = visited
    visitors = PairResult.objects.get(version=session.live_version, known=False)
    s_u = visitors.score - 50.0  # match points: the score term is p - 50 (S3.3)
    h_u = s_u + (12 * 50.0 + 2 * s_u) / 12  # S3.8: SoF_group over the M = 12 known players
    client.force_login(club_admin[0])
    club_strata_set(club=session.event.club, event_id=None, limits=[round(h_u + 0.01, 2)])
    assert strata_page(client, session)[visitors.pair_id] != []
    club_strata_set(club=session.event.club, event_id=None, limits=[round(h_u - 0.01, 2)])
    assert strata_page(client, session)[visitors.pair_id] == []


def test_an_events_own_strata_replace_the_clubs_for_all_events(client, club_admin, howell):
    club = howell.event.club
    club_strata_set(club=club, event_id=None, limits=[50.0])
    club_strata_set(club=club, event_id=howell.event_id, limits=[60.0, 40.0])
    client.force_login(club_admin[0])
    page = client.get(reverse("results:session", args=[howell.pk]))
    assert page.context["r"].limits == [60.0, 40.0]
    club_strata_set(club=club, event_id=howell.event_id, limits=[])
    assert ClubStrata.objects.filter(club=club).count() == 1
    page = client.get(reverse("results:session", args=[howell.pk]))
    assert page.context["r"].limits == [50.0]


def _without_token(html: str) -> str:
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)


@pytest.mark.parametrize("viewer", ["5003", "5001", "admin"])  # the partner, an opponent, admin
def test_nothing_on_the_page_moves_with_a_private_grade(client, club_admin, howell, viewer):
    """S7, S14.14: the private member's grade at the start (and now) can be anything: the
    ranking, strata, scorecard and travellers shown to their partner, an opponent and the
    club's administrator are the same, byte for byte."""
    club_strata_set(club=howell.event.club, event_id=None, limits=[52.0, 48.0])
    starts(howell, everyone_at(50.0))
    Member.objects.filter(national_number="5004").update(grade_private=True)
    if viewer == "admin":
        client.force_login(club_admin[0])
    else:
        member = Member.objects.get(national_number=viewer)
        from tests.factories import UserFactory

        member.user = UserFactory()
        member.save()
        client.force_login(member.user)
    pages = []
    for grade in (30.0, 50.0, 70.0):
        starts(howell, {"5004": grade})
        CurrentGrade.objects.filter(member__national_number="5004").update(grade=grade)
        pages.append(
            _without_token(
                client.get(reverse("results:session", args=[howell.pk])).content.decode()
            )
        )
    assert pages[0] == pages[1] == pages[2]


def test_the_administrator_sets_strata_and_estimates_on_the_results_settings_page(
    client, club_admin, howell
):
    club = howell.event.club
    url = reverse("results:club-settings", args=[club.slug])
    client.force_login(club_admin[0])
    assert client.get(url).status_code == 200
    done = client.post(url, {"form": "strata", "event": "", "limit1": "45", "limit2": "50"})
    assert done.status_code == 302
    assert ClubStrata.objects.get(club=club, event=None).limits == [50.0, 45.0]
    refused = client.post(url, {"form": "strata", "event": "", "limit1": "95"})
    assert "between 20 and 80" in refused.content.decode()
    same = client.post(url, {"form": "strata", "event": "", "limit1": "45", "limit2": "45"})
    assert "the same" in same.content.decode()
    private = Member.objects.get(national_number="5004")
    private.grade_private = True
    private.save()
    club_member_roles = private.club_roles.filter(club=club)
    if not club_member_roles.exists():
        from tests.factories import ClubRoleFactory

        ClubRoleFactory(member=private, club=club)
    listed = client.get(url).content.decode()
    assert private.name in listed  # waiting for an estimate, named, never graded
    client.post(url, {"form": "estimate", "number": "5004", "grade": "47.5"})
    assert club.estimates.get(member=private).grade == 47.5
    other = client.post(url, {"form": "estimate", "number": "99999", "grade": "47.5"})
    assert "No member of the club" in other.content.decode()
    # Someone who does not administer the club may not.
    from tests.factories import UserFactory

    client.force_login(UserFactory())
    assert client.get(url).status_code == 403


def test_an_unknown_pairs_stratum_does_not_move_with_a_private_grade(client, club_admin, visited):
    """S7, S14.14: the S3.8 figure of a visiting pair averages the known players' grades, so it
    is worked out from the figures the strata may use. A private grade without an estimate puts
    the visitors in the strongest stratum, whatever the limit; with an estimate, the estimate
    stands in. Either way, the private grade moves nothing on the page."""
    session = visited
    Member.objects.filter(national_number="5004").update(grade_private=True)
    visitors = PairResult.objects.get(version=session.live_version, known=False).pair_id
    client.force_login(club_admin[0])
    club_strata_set(club=session.event.club, event_id=None, limits=[79.0, 21.0])

    def pages() -> list[str]:
        seen = []
        for grade in (30.0, 50.0, 70.0):
            starts(session, {"5004": grade})
            Member.objects.filter(national_number="5004").update(grade_private=True)
            page = client.get(reverse("results:session", args=[session.pk]))
            assert 'data-testid="ranking"' in page.content.decode()
            seen.append(_without_token(page.content.decode()))
        return seen

    without = pages()
    assert without[0] == without[1] == without[2]
    assert strata_page(client, session)[visitors] == []  # no estimate: the whole field only

    club_estimate_set(
        club=session.event.club, member=Member.objects.get(national_number="5004"), grade=50.0
    )
    with_estimate = pages()
    assert with_estimate[0] == with_estimate[1] == with_estimate[2]
    assert strata_page(client, session)[visitors] == [79.0]  # placed, by the estimate
