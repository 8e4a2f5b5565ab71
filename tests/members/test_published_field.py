"""S14.25 (issue 32 item 2, the figures): a club administrator uploads a crafted session of a
member who keeps their grade private, and five members who publish theirs. The club's pages
showed the grading's strength of field, and six times it less the five published grades at the
start was the private grade. The strength of field on club pages (and every figure built from
it: the series chart, the forecast's recent field) is now over published grades only, saying
how many players are not counted."""

import re

import pytest
from django.urls import reverse

from grading.models import SessionGrade
from grading.privacy import published_grade_q
from members.models import Member
from members.selectors import forecast as forecasts
from tests.csvfiles import csv_bytes, mp_session_rows


@pytest.fixture
def crafted(graded, sender):
    public = list(
        Member.objects.filter(published_grade_q(), current_grade__isnull=False)
        .exclude(pk=graded.private.pk)
        .order_by("national_number")
        .values_list("national_number", flat=True)[:5]
    )
    assert len(public) == 5, "the world has five members who publish their grade"
    numbers = [(graded.people.private, public[0]), (public[1], public[2]), (public[3], public[4])]
    rows = mp_session_rows(
        event_id="CRAFT", date="2026-10-27", scores=[55.0, 50.0, 45.0], numbers=numbers
    )
    sender(graded.riverside, csv_bytes(rows), "craft.csv")
    grades = SessionGrade.objects.filter(version__session__event__event_id="CRAFT")
    version = grades.first().version
    assert version.sof is not None
    start = dict(grades.values_list("member__national_number", "grade_before"))
    return version, start[graded.people.private], [start[n] for n in public]


def _shown_sof(body: str) -> float:
    match = re.search(r'data-testid="session-sof">([0-9.]+)', body)
    assert match, "the session page shows a strength of field"
    return float(match.group(1))


def test_a_crafted_session_does_not_give_the_private_grade_on_the_club_page(
    client, graded, crafted
):
    version, private, published = crafted
    client.force_login(graded.admin_user)
    page = reverse("clubs:session", args=[graded.riverside.slug, version.session_id])
    body = client.get(page).content.decode()
    shown = _shown_sof(body)
    # before: the grading's SoF, and 6 x SoF less the five published grades was the private one
    assert 6 * version.sof - sum(published) == pytest.approx(private)
    assert shown == pytest.approx(sum(published) / 5, abs=0.005)
    assert abs(6 * shown - sum(published) - private) > 0.05
    assert f"{version.sof:.2f}" not in body or f"{version.sof:.2f}" == f"{shown:.2f}"
    assert "1 player not counted" in body
    for name in ("clubs:sessions", "clubs:dashboard"):
        listing = client.get(reverse(name, args=[graded.riverside.slug])).content.decode()
        assert f"{version.sof:.2f}" not in listing or f"{version.sof:.2f}" == f"{shown:.2f}"


def test_the_forecasts_recent_field_is_over_published_grades(graded, crafted):
    """The administrator, a member of the club, reads the series' recent field on the forecast:
    a series of one crafted session gave its SoF."""
    version, private, published = crafted
    admin = Member.objects.get(user=graded.admin_user)
    series = {s.event: s for s in forecasts.club_series(member=admin)}
    craft = next(s for name, s in series.items() if "CRAFT" in name)
    assert craft.sessions == 1
    assert craft.sof == pytest.approx(sum(published) / 5)
    assert craft.sof != pytest.approx(version.sof)


def test_a_field_of_published_grades_shows_the_gradings_own_sof(client, graded, sender):
    """Nothing changes where every player publishes their grade: the average is the SoF."""
    public = list(
        Member.objects.filter(published_grade_q(), current_grade__isnull=False)
        .order_by("national_number")
        .values_list("national_number", flat=True)[:6]
    )
    numbers = [(public[0], public[1]), (public[2], public[3]), (public[4], public[5])]
    rows = mp_session_rows(
        event_id="OPEN6", date="2026-10-28", scores=[55.0, 50.0, 45.0], numbers=numbers
    )
    sender(graded.riverside, csv_bytes(rows), "open6.csv")
    version = SessionGrade.objects.filter(version__session__event__event_id="OPEN6").first().version
    client.force_login(graded.admin_user)
    page = reverse("clubs:session", args=[graded.riverside.slug, version.session_id])
    body = client.get(page).content.decode()
    assert _shown_sof(body) == pytest.approx(version.sof, abs=0.005)
    assert "not counted" not in body
