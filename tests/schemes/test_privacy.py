"""Privacy (S7) of PPI and Brambledown from every viewpoint: the owner, another member, a club
administrator, staff and anonymous; in the partials' selectors, the partials and the API."""

import json
from io import StringIO

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.management import call_command
from django.template.loader import render_to_string
from rest_framework.test import APIClient

from clubs.models import ClubRole
from grading.models import BrambledownGrade, PPIRating, SessionVersion
from grading.schemes.brambledown.update import brambledown_regrade_club
from grading.schemes.selectors import club_schemes, member_schemes
from grading.uploads.services import upload_create
from members.models import Member
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import ClubFactory, ClubRoleFactory, MemberFactory, UserFactory

DATES = ["2026-07-06", "2026-07-20", "2026-08-03", "2026-08-17", "2026-09-07"]
NEWCOMERS = [("2001", "2002"), ("2003", "2004")]


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    """Built once for the module, committed (grading runs as each upload commits), and
    flushed afterwards; each test runs in its own transaction on top of it."""
    with django_db_blocker.unblock():
        club = ClubFactory(slug="riverside", national_number="1101", keeps_brambledown=True)
        for i, day in enumerate(DATES):
            scores = [62.5, 55.0, 52.5, 50.0, 47.5, 45.0, 44.0, 43.5][i:] + [50.0] * i
            data = csv_bytes(mp_session_rows(event_id=f"E{i}", date=day, scores=scores))
            upload_create(club=club, filename=f"e{i}.csv", data=data)
        data = csv_bytes(
            mp_session_rows(event_id="NEW", date="2026-09-08", scores=[55, 45], numbers=NEWCOMERS)
        )
        upload_create(club=club, filename="new.csv", data=data)
        assert SessionVersion.objects.filter(state="graded").count() == 6
        brambledown_regrade_club(club=club, quarter="2026Q3")
        owner = Member.objects.get(national_number="1001")
        owner.user = UserFactory(username="owner")
        owner.grade_private = True
        owner.save()
        other = Member.objects.get(national_number="1003")
        other.user = UserFactory(username="other")
        other.save()
        newcomer = Member.objects.get(national_number="2001")
        newcomer.user = UserFactory(username="newcomer")
        newcomer.save()
        admin = ClubRoleFactory(
            club=club,
            role=ClubRole.Role.ADMIN,
            member=MemberFactory(user=UserFactory(username="admin")),
        )
        staff = UserFactory(username="staff", is_staff=True)
        yield {
            "owner": owner,
            "other": other,
            "newcomer": newcomer,
            "admin": admin.member.user,
            "staff": staff,
            "anonymous": AnonymousUser(),
            "club": club,
        }
        call_command("flush", "--noinput", verbosity=0)


@pytest.fixture(autouse=True)
def _db(db):
    """Every test here reads the module's world inside its own transaction."""


OTHERS = ["other", "admin", "staff", "anonymous"]


def test_the_owner_sees_their_private_figures(world):
    owner = world["owner"]
    for viewer in (owner, owner.user):
        seen = member_schemes(member=owner, viewer=viewer)
        assert seen.own
        assert seen.ppi.ppi is not None and seen.ppi.suit is not None and seen.ppi.chart
        (bd,) = seen.brambledown
        assert bd.grade is not None and bd.on_b_list and bd.chart


@pytest.mark.parametrize("who", OTHERS)
def test_a_private_member_is_private_to_everyone_else(world, who):
    seen = member_schemes(member=world["owner"], viewer=world[who])
    assert not seen.own
    assert (seen.ppi.ppi, seen.ppi.text, seen.ppi.chart) == (None, "Private", None)
    (bd,) = seen.brambledown
    assert (bd.grade, bd.text, bd.chart, bd.on_b_list) == (None, "Private", None, False)
    html = render_to_string("schemes/ppi_card.html", {"schemes": seen})
    html += render_to_string("schemes/brambledown_card.html", {"schemes": seen})
    assert "Private" in html and "ppi-chart" not in html and "bd-chart" not in html


@pytest.mark.parametrize("who", OTHERS)
def test_a_public_member_is_shown_to_everyone(world, who):
    seen = member_schemes(member=world["other"], viewer=world[who])
    assert seen.ppi.ppi is not None and seen.ppi.boards == 120 and not seen.ppi.provisional
    assert seen.brambledown[0].grade is not None
    html = render_to_string("schemes/ppi_card.html", {"schemes": seen})
    assert seen.ppi.text in html and seen.ppi.suit.symbol in html and "ppi-chart" in html
    html = render_to_string("schemes/brambledown_card.html", {"schemes": seen})
    assert str(seen.brambledown[0].grade) in html and "B list" in html


def test_ppi_under_50_boards_is_shown_only_to_its_owner(world):
    newcomer = world["newcomer"]
    own = member_schemes(member=newcomer, viewer=newcomer.user)
    assert own.ppi.ppi is not None and own.ppi.provisional and own.ppi.boards_to_show == 26
    assert own.brambledown[0].text == "New" and own.brambledown[0].performances_needed == 2
    assert "26 more boards needed" in render_to_string("schemes/ppi_card.html", {"schemes": own})
    for who in OTHERS:
        seen = member_schemes(member=newcomer, viewer=world[who])
        assert (seen.ppi.ppi, seen.ppi.text) == (None, "Not yet shown")


@pytest.mark.parametrize("who", OTHERS + ["owner"])
def test_club_lists_leave_private_and_unshown_members_out_for_every_viewer(world, who):
    lists = club_schemes(club=world["club"], viewer=world[who])
    top = [row.number for row in lists.ppi_top]
    assert "1001" not in top and "1003" in top and "2001" not in top
    assert len(top) == 15
    assert lists.quarter == "2026Q3" and lists.open_quarter == "2026Q4"
    assert "1001" not in [row.number for row in lists.b_list] and len(lists.b_list) == 15
    assert all("1001" not in row.numbers for row in lists.pairs_list)
    assert len(lists.pairs_list) == 7 and lists.withheld == 2
    assert lists.can_administer == (who in ("admin", "staff"))
    html = render_to_string("schemes/club_ppi_top.html", {"club_schemes": lists})
    html += render_to_string("schemes/club_brambledown_lists.html", {"club_schemes": lists})
    assert "Player 1001" not in html and "Player 1003" in html


def test_a_club_without_brambledown_shows_no_lists(world):
    club = world["club"]
    club.keeps_brambledown = False
    club.save()
    lists = club_schemes(club=club, viewer=world["admin"])
    assert not lists.keeps_brambledown and not lists.b_list
    assert (
        render_to_string("schemes/club_brambledown_lists.html", {"club_schemes": lists}).strip()
        == ""
    )
    assert member_schemes(member=world["other"], viewer=None).brambledown == []


def client_for(user) -> APIClient:
    client = APIClient()
    if user is not None and user.is_authenticated:
        client.force_authenticate(user)
    return client


def test_api_me_gives_own_figures_even_when_private(world):
    response = client_for(world["owner"].user).get("/api/v1/me/schemes/")
    assert response.status_code == 200
    data = response.json()
    assert data["number"] == "1001" and data["private"] is True
    assert data["ppi"]["ppi"] is not None and len(data["ppi"]["history"]) == 5
    assert data["brambledown"][0]["grade"] is not None
    assert [p["reason"] for p in data["brambledown"][0]["history"]] == ["new", "regrade"]


def test_api_me_needs_a_login_and_a_member(world):
    assert client_for(None).get("/api/v1/me/schemes/").status_code in (401, 403)
    assert client_for(world["staff"]).get("/api/v1/me/schemes/").status_code == 404


@pytest.mark.parametrize(
    "who,status",
    [("admin", 200), ("staff", 200), ("other", 403), ("owner", 403), ("anonymous", 403)],
)
def test_api_club_lists_for_administrators_only(world, who, status):
    user = world[who].user if who in ("owner", "other") else world[who]
    response = client_for(user).get("/api/v1/clubs/riverside/schemes/")
    if who == "anonymous":
        assert response.status_code in (401, 403)
        return
    assert response.status_code == status
    if status == 200:
        text = json.dumps(response.json())
        data = response.json()
        assert "1001" not in text and "1003" in text
        assert data["quarter"] == "2026Q3" and data["withheld"] == 2
        assert len(data["b_list"]) == 15 and len(data["pairs_list"]) == 7


# The operator's listing is not a published list: like ``grades`` for the NGS it includes
# private figures (S13: an operator's command).


def grades_output(*args) -> str:
    out = StringIO()
    call_command("grades", *args, stdout=out)
    return out.getvalue()


def test_grades_scheme_ppi(world):
    lines = grades_output("--scheme", "ppi").splitlines()
    assert lines[0] == "number,name,ppi,boards,recent_boards,shown,active,suit"
    assert len(lines) == 1 + 20
    row = next(line for line in lines if line.startswith("1001,"))
    ppi = PPIRating.objects.get(member__national_number="1001")
    assert row == f"1001,Player 1001,{round(ppi.ppi, 2)},120,120,True,True,{ppi.suit}"
    assert (
        grades_output("--scheme", "ppi", "--member", "2001")
        .splitlines()[1]
        .endswith(
            ",24,24,False,False," + PPIRating.objects.get(member__national_number="2001").suit
        )
    )
    data = json.loads(grades_output("--scheme", "ppi", "--format", "json", "--as-of", "2027-06-01"))
    assert {r["active"] for r in data} == {False} and {r["recent_boards"] for r in data} == {0}


def test_grades_scheme_brambledown(world):
    lines = grades_output("--scheme", "brambledown").splitlines()
    assert lines[0] == "club,number,name,grade,tournaments,a_list,b_list"
    assert len(lines) == 1 + 20
    grade = BrambledownGrade.objects.get(member__national_number="1001")
    assert f"riverside,1001,Player 1001,{grade.grade},5,False,True" in lines
    assert "riverside,2001,Player 2001,,1,False,False" in lines


def test_grades_default_is_still_the_ngs(world):
    lines = grades_output().splitlines()
    assert lines[0] == "number,name,grade,status,band,boards_in_window"
    assert lines == grades_output("--scheme", "ngs").splitlines()
