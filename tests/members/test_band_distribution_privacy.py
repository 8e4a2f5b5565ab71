"""The public band distribution must not reveal a private member's band (S7).

S7: a private grade appears in "no band distribution broken down by name", and aggregates
include private grades "only in counts and averages, never in a way that reveals one person's
grade". A club whose every published member is on the top list, plus one private member: if
the private grade were counted in its band, the band's count minus the top list's members in
that band would name the private member's band. So the public distribution counts published
grades by band and private grades only as one total, suppressed when fewer than 5 (as the club
administrators' band page does, docs/decisions.md "Club pages (issue 7)").
"""

from collections import Counter

import pytest

from grading.models import CurrentGrade
from members.selectors import public as public_lists
from tests.factories import ClubFactory, ClubRoleFactory, MemberFactory
from tests.members.conftest import url

BANDS_BY_GRADE = {49.5: "Eight", 53.5: "Ten", 57.5: "Queen"}


def _graded(club, grade: float, *, private: bool = False):
    member = MemberFactory(grade_private=private)
    ClubRoleFactory(club=club, member=member)
    return CurrentGrade.objects.create(
        member=member,
        grade=grade,
        status="E",
        band=BANDS_BY_GRADE[grade],
        initial_grade=42,
        as_of="2026-01-01",
    )


@pytest.fixture
def small_club(db):
    """8 published grades in Eight, 5 in Ten (all on the club's top list) and one private."""
    club = ClubFactory(slug="smallclub")
    for _ in range(8):
        _graded(club, 49.5)
    for _ in range(5):
        _graded(club, 53.5)
    secret = _graded(club, 49.5, private=True)
    return club, secret


def _public_views(client, slug: str):
    """Everything an anonymous visitor can read about band counts."""
    return (
        client.get(url("api-bands")).json(),
        client.get(url("bands"), {"club": slug}).content.decode(),
        client.get(url("bands")).content.decode(),
    )


def test_band_counts_match_the_top_list_so_the_private_member_is_not_counted(client, small_club):
    club, secret = small_club
    top = client.get(url("api-top"), {"club": club.slug}).json()
    assert len(top) == 13  # every published member of the club is on the list
    on_top = Counter(row["band"]["name"] for row in top)
    api = client.get(url("api-bands")).json()
    mine = next(d for d in api if d["slug"] == club.slug)
    counts = {b["band"]: b["count"] for b in mine["bands"]}
    assert counts["Eight"] == on_top["Eight"] == 8  # was 9: the private grade showed through
    assert counts["Ten"] == on_top["Ten"] == 5
    assert mine["total"] == 13
    # the private grade is counted apart, in one total, itself a group smaller than 5 (S7)
    assert mine["private"] is None and mine["private_text"] == "fewer than 5"
    national = api[0]
    assert {b["band"]: b["count"] for b in national["bands"]}["Eight"] == 8


def test_private_members_band_cannot_be_told_from_public_pages(client, small_club):
    club, secret = small_club
    before = _public_views(client, club.slug)
    secret.grade, secret.band = 57.5, "Queen"  # the private member moves to another band
    secret.save()
    after = _public_views(client, club.slug)
    assert before == after


def test_five_private_grades_show_as_one_total_never_by_band(client, small_club):
    club, _ = small_club
    for grade in (49.5, 53.5, 53.5, 57.5):
        _graded(club, grade, private=True)
    national, clubs = public_lists.band_distributions()
    mine = next(d for d in clubs if d.slug == club.slug)
    assert mine.private == 5 and mine.private_text == "5"
    counts = {b.band.name: b.count for b in mine.bands}
    assert (counts["Eight"], counts["Ten"], counts["Queen"]) == (8, 5, 0)
    assert mine.total == 13 and national.private == 5
    body = client.get(url("bands"), {"club": club.slug}).content.decode()
    assert 'data-testid="private-total"' in body


def test_world_distribution_counts_only_published_grades(client, graded):
    national, clubs = public_lists.band_distributions()
    published = Counter(
        CurrentGrade.objects.filter(status__in=["E", "M"], member__grade_private=False).values_list(
            "band", flat=True
        )
    )
    for b in national.bands:
        n = published.get(b.band.name, 0)
        assert b.count == (None if 0 < n < 5 else n), b.band.name
    assert national.private is None  # one private member in the world: fewer than 5
    body = client.get(url("bands")).content.decode()
    assert "private grades included" not in body
