"""Every club page, export and endpoint: the club's administrators and staff only (S13)."""

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.factories import ClubRoleFactory, MemberFactory, UserFactory

# An upcoming date within the 2 years a session may be planned ahead (S14.26).
AHEAD = timezone.localdate() + dt.timedelta(days=300)


def urls(club, planned_pk=0, request_pk=0, session_pk=0):
    slug = club.slug
    return {
        "get": [
            reverse("clubs:dashboard", args=[slug]),
            reverse("clubs:grades", args=[slug]),
            reverse("clubs:grades-export", args=[slug, "csv"]),
            reverse("clubs:grades-export", args=[slug, "xlsx"]),
            reverse("clubs:sessions", args=[slug]),
            reverse("clubs:session", args=[slug, session_pk]),
            reverse("clubs:bands", args=[slug]),
            reverse("clubs:planned", args=[slug]),
            reverse("clubs:exemptions", args=[slug]),
            reverse("clubs:handicaps", args=[slug]) + "?r1p1=1001&r1p2=1002",
            reverse("clubs:handicaps-print", args=[slug]) + "?r1p1=1001&r1p2=1002",
            reverse("clubs:handicaps-export", args=[slug, "csv"]) + "?r1p1=1001&r1p2=1002",
            reverse("clubs:handicaps-export", args=[slug, "xlsx"]) + "?r1p1=1001&r1p2=1002",
            reverse("clubs:handicaps-export", args=[slug, "ebuscore"]),
            reverse("clubs:handicaps-export", args=[slug, "scorebridge"]),
            reverse("clubs:handicaps-export", args=[slug, "own"]),
        ],
        "post": [
            (
                reverse("clubs:planned", args=[slug]),
                {
                    "event_name": "X",
                    "date": f"{AHEAD - dt.timedelta(days=1)}",
                    "start": "19:30",
                    "scoring": "MP",
                },
            ),
            (reverse("clubs:planned-delete", args=[slug, planned_pk]), {}),
            (reverse("clubs:exemption-decide", args=[slug, request_pk]), {"decision": "approve"}),
        ],
        "api": reverse("clubs-api:member-search", args=[slug]) + "?q=Player",
    }


@pytest.fixture
def setting(graded):
    """The graded club with a planned session and a waiting host request."""
    import datetime as dt

    from django.utils import timezone

    from clubs.services import exemption_request_create, planned_session_create
    from grading.models import Session
    from members.models import Member

    planned = planned_session_create(
        club=graded, event_name="Monday Pairs", date=AHEAD, start=dt.time(19, 30)
    )
    request = exemption_request_create(
        member=Member.objects.get(national_number="1001"),
        partner=Member.objects.get(national_number="1002"),
        planned_session=planned,
        now=timezone.now(),
    )
    session = Session.objects.filter(event__club=graded).first()
    ids = (planned.pk, request.pk, session.pk)
    return graded, urls(graded, *ids), ids


def state(club):
    from clubs.models import HostExemptionRequest, PlannedSession

    return (
        sorted(PlannedSession.objects.filter(club=club).values_list("pk", flat=True)),
        list(HostExemptionRequest.objects.values_list("status", flat=True)),
    )


def refused_everything(client, club, paths, expected_status):
    before = state(club)
    for url in paths["get"]:
        response = client.get(url)
        assert response.status_code == expected_status, url
        assert b"Player 1001" not in response.content
    for url, data in paths["post"]:
        assert client.post(url, data).status_code == expected_status, url
    assert state(club) == before


def test_anonymous_is_sent_to_log_in(client, setting):
    club, paths, _ = setting
    refused_everything(client, club, paths, 302)
    response = client.get(paths["get"][0])
    assert response.url.startswith("/accounts/login/?next=/clubs/")
    assert client.get(paths["api"]).status_code in (401, 403)


def test_a_member_of_the_club_is_refused(client, setting):
    club, paths, _ = setting
    user = UserFactory()
    ClubRoleFactory(club=club, member=MemberFactory(user=user))
    client.force_login(user)
    refused_everything(client, club, paths, 403)
    assert client.get(paths["api"]).status_code == 403


def test_an_administrator_of_another_club_is_refused(client, setting):
    club, paths, _ = setting
    user = UserFactory()
    ClubRoleFactory(member=MemberFactory(user=user), role="admin")  # admin of a new club
    client.force_login(user)
    refused_everything(client, club, paths, 403)
    assert client.get(paths["api"]).status_code == 403


@pytest.mark.parametrize("who", ["admin", "staff"])
def test_the_administrator_and_staff_may(client, club_admin, setting, who):
    club, paths, _ = setting
    if who == "admin":
        client.force_login(club_admin[0])
    else:
        client.force_login(UserFactory(is_staff=True))
    for url in paths["get"]:
        assert client.get(url).status_code == 200, url
    assert client.get(paths["api"]).json()["results"]
    create, delete, decide = paths["post"]
    assert client.post(*decide).status_code == 302
    assert client.post(*create).status_code == 302
    assert client.post(*delete).status_code == 302
    from clubs.models import HostExemptionRequest, PlannedSession

    assert HostExemptionRequest.objects.count() == 0  # went with its planned session
    assert PlannedSession.objects.filter(club=club, event_name="X").exists()


def test_another_clubs_objects_are_not_found_through_this_club(client, setting, other_club):
    club, paths, ids = setting
    user = UserFactory()
    ClubRoleFactory(club=other_club, member=MemberFactory(user=user), role="admin")
    client.force_login(user)
    foreign = urls(other_club, *ids)  # this club's objects under the other club's address
    assert client.get(foreign["get"][5]).status_code == 404
    assert client.post(*foreign["post"][1]).status_code == 404
    assert client.post(*foreign["post"][2]).status_code == 404
