"""Public pages (S7): top published grades, band distribution with small groups suppressed."""

from collections import Counter

import pytest

from grading.engine.ngs import shown
from grading.models import CurrentGrade
from members.models import Member
from members.selectors import public as public_lists
from tests.factories import ClubFactory, ClubRoleFactory, MemberFactory
from tests.members.conftest import url


def test_top_grades_are_public_and_not_provisional_best_first(client, graded):
    rows = client.get(url("api-top")).json()
    expected = list(
        CurrentGrade.objects.filter(member__grade_private=False, status__in=["E", "M"])
        .order_by("-grade", "member__name")
        .values_list("member__national_number", flat=True)
    )
    assert [r["number"] for r in rows] == expected
    assert graded.people.private not in expected and graded.people.newcomers[0] not in expected
    assert [r["grade"] for r in rows] == sorted((r["grade"] for r in rows), reverse=True)
    body = client.get(url("top")).content.decode()
    assert body.count('data-testid="top-row"') == len(expected)
    best = CurrentGrade.objects.get(member__national_number=expected[0])
    assert f"{shown(best.grade):.2f}" in body


def test_top_grades_per_club(client, graded):
    rows = client.get(url("api-top"), {"club": "hilltop"}).json()
    hilltop = set(graded.hilltop.roles.values_list("member__national_number", flat=True))
    assert rows and {r["number"] for r in rows} <= hilltop
    assert graded.people.me in {r["number"] for r in rows}
    assert client.get(url("top"), {"club": "nowhere"}).status_code == 404


def test_band_distribution_counts_published_grades_and_suppresses_small_groups(client, graded):
    """S7: a private grade is counted, but not in its band: beside the public top lists a band
    count would tell which band the one member missing from them is in."""
    national, clubs = public_lists.band_distributions()
    expected = Counter(
        CurrentGrade.objects.filter(status__in=["E", "M"], member__grade_private=False).values_list(
            "band", flat=True
        )
    )
    for b in national.bands:
        n = expected.get(b.band.name, 0)
        assert b.count == (None if 0 < n < 5 else n), b.band.name
    assert any(b.count is None for b in national.bands) == any(0 < n < 5 for n in expected.values())
    body = client.get(url("bands")).content.decode()
    assert "fewer than 5" in body and 'id="bands-national-data"' in body
    assert "vendor/plotly-basic/plotly-basic.min.js" in body
    api = client.get(url("api-bands")).json()
    assert api[0]["name"].startswith("All clubs") and {d["slug"] for d in api[1:]} >= {
        "riverside",
        "hilltop",
    }
    assert all(
        b["count"] is None or b["count"] == 0 or b["count"] >= 5 for d in api for b in d["bands"]
    )


@pytest.mark.django_db
def test_bands_of_a_larger_club_are_shown_when_five_or_more():
    club = ClubFactory()
    for i in range(6):
        member = MemberFactory(grade_private=i == 0)
        ClubRoleFactory(club=club, member=member)
        CurrentGrade.objects.create(
            member=member,
            grade=50.0 + i / 10,
            status="E",
            band="Eight",
            initial_grade=42,
            as_of="2026-01-01",
        )
    _, clubs = public_lists.band_distributions()
    mine = next(d for d in clubs if d.slug == club.slug)
    eight = next(b for b in mine.bands if b.band.name == "Eight")
    assert eight.count == 5 and mine.total == 5 and mine.private is None  # 1 private: "<5"
    from members.charts import band_chart

    fig = band_chart(mine)
    assert fig["data"][0]["y"][fig["data"][0]["x"].index("Eight")] == 5


def test_search_by_name_finds_published_grades_only(client, graded):
    """Issue 19: members find another member by name; private and provisional grades are not
    found (S7), in the page and the API."""
    public = Member.objects.get(national_number=graded.people.public)
    public.name = "Harriet Quillfeather"
    public.save()
    graded.private.name = "Quentin Quillfeather"
    graded.private.save()
    newcomer = graded.member(graded.people.newcomers[0])
    newcomer.name = "Una Quillfeather"
    newcomer.save()
    body = client.get(url("search"), {"q": "quillfeather"}).content.decode()
    assert "Harriet Quillfeather" in body
    assert "Quentin" not in body and "Una" not in body
    found = client.get(url("api-search"), {"q": "QUILLFEATHER harriet"}).json()
    assert [r["number"] for r in found] == [graded.people.public]
    assert client.get(url("api-search"), {"q": "quentin"}).json() == []
    assert "at least two letters" in client.get(url("search"), {"q": "q"}).content.decode()
    assert client.get(url("api-search")).status_code == 400
