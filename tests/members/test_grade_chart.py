"""The grade chart (issue 19 item 2): for each date played, the grade at the end of that day
from everything known now, recomputed through the engine, so a late upload draws no
saw-tooth; its last point is the card's grade."""

import datetime as dt

import pytest

from grading.engine.ngs import shown
from grading.ledger.refresh import grades_as_of
from grading.models import SessionGrade
from members.selectors import card as cards
from tests.members.world import FIRST_MONDAY


def test_each_point_is_the_ledgers_grade_as_of_that_day(graded):
    card = cards.grade_card(member=graded.me)
    played = set(
        SessionGrade.objects.filter(
            member=graded.me, live=True, session_grade__isnull=False
        ).values_list("date", flat=True)
    )
    assert {p.date for p in card.points} >= played
    for point in card.points:
        # an independent path: the ledger's replay state asked for the same date
        expected = grades_as_of(as_of=point.date)[graded.people.me].grade
        assert point.grade == pytest.approx(expected, abs=1e-9), point.date
    assert shown(card.points[-1].grade) == card.grade


def test_a_late_upload_takes_its_place_by_date_of_play(graded):
    """The world's late upload is dated a week before every other session but graded last:
    its "grade after" was worked out from the grades of that moment; the chart's first point
    is the grade after that one session alone, as if it had come in on time."""
    late = SessionGrade.objects.get(
        member=graded.me, live=True, date=FIRST_MONDAY - dt.timedelta(weeks=1)
    )
    assert late.version.late
    first = cards.grade_card(member=graded.me).points[0]
    assert first.date == late.date
    assert first.grade != pytest.approx(late.grade_after, abs=0.005)
    assert first.grade == pytest.approx(grades_as_of(as_of=late.date)[graded.people.me].grade)


def test_the_points_are_kept_with_the_member_pages(graded, django_assert_max_num_queries):
    cards.grade_card(member=graded.me)
    graded.me.refresh_from_db()
    with django_assert_max_num_queries(6):
        again = cards.grade_card(member=graded.me)
    assert again.points


def test_sessions_in_window_counts_the_window_boards_in_window_counts(graded):
    """Both figures count the last 3 years' graded sessions (S14.8), not the 2000-board cut."""
    card = cards.grade_card(member=graded.me)
    rows = SessionGrade.objects.filter(member=graded.me, live=True, session_grade__isnull=False)
    assert card.sessions_in_window == rows.count()
    assert card.boards_in_window == sum(rows.values_list("boards", flat=True))
