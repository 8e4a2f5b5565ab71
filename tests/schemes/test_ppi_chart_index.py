"""The grade card's PPI chart reads a member's points from one index alone (docs/decisions.md,
"The PPI chart's points are read from an index alone"): on PostgreSQL the chart's own query
(``ppi_chart_points``) is answered by an index-only scan of ``ppi_chart``, in the order the chart
draws (date of play, then fold order), and gives what the table holds."""

from __future__ import annotations

import datetime as dt

from django.db import connection

from grading.models import PPIPoint
from grading.schemes.selectors import ppi_chart_points
from members.models import Member
from tests.csvfiles import csv_bytes, mp_session_rows


def _two_sessions_late_one_last(upload, club):
    upload(csv_bytes(mp_session_rows(event_id="P2", date="2026-05-11")), target=club)
    upload(csv_bytes(mp_session_rows(event_id="P1", date="2026-05-04")), target=club)  # late
    return Member.objects.get(national_number="1001")


def _plan(queryset) -> str:
    """The query's plan, the table being tiny: the planner made to show which index could
    answer it (no sequential or bitmap scan), as it does for a national table."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_bitmapscan = off")
        return queryset.explain()


def test_the_chart_s_points_come_from_the_index_alone(postgres, club, upload):
    member = _two_sessions_late_one_last(upload, club)
    plan = _plan(ppi_chart_points(member=member))
    assert "Index Only Scan using ppi_chart" in plan


def test_the_chart_s_points_are_by_date_of_play_then_fold_order(club, upload):
    member = _two_sessions_late_one_last(upload, club)

    points = list(ppi_chart_points(member=member))

    stored = sorted(
        PPIPoint.objects.filter(member=member).values_list("date", "seq", "ppi"),
        key=lambda p: (p[0], p[1]),
    )
    assert points == [(date, ppi) for date, _, ppi in stored]
    assert [date for date, _ in points] == [dt.date(2026, 5, 4), dt.date(2026, 5, 11)]


def test_a_query_the_index_does_not_cover_is_not_planned_index_only(postgres, club, upload):
    """The plan check above can fail: a column the index does not hold needs the table."""
    member = _two_sessions_late_one_last(upload, club)
    plan = _plan(ppi_chart_points(member=member).values_list("date", "ppi", "boards"))
    assert "Index Only Scan" not in plan
    assert "ppi_chart" in plan or "ppi_point_once_per_event" in plan
