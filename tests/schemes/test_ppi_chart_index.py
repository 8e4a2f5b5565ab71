"""The grade card's PPI chart reads a member's points from one index alone (docs/decisions.md,
"The PPI chart's points are read from an index alone"): on PostgreSQL the chart's own query
(``ppi_chart_points``) is answered by an index-only scan of ``ppi_chart``, in the order the chart
draws (date of play, then fold order), and gives what the table holds."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection

from grading.engine.ppi.bulk import PPIBulkFold
from grading.models import PPIPoint
from grading.schemes.rebuild import run as rebuild_run
from grading.schemes.rebuild.run import schemes_rebuild
from grading.schemes.selectors import ppi_chart_points
from members.models import Member
from tests.csvfiles import csv_bytes, mp_session_rows


def _two_sessions_late_one_last(upload, club):
    upload(csv_bytes(mp_session_rows(event_id="P2", date="2026-05-11")), target=club)
    upload(csv_bytes(mp_session_rows(event_id="P1", date="2026-05-04")), target=club)  # late
    return Member.objects.get(national_number="1001")


def _plan(queryset, **options) -> str:
    """The query's plan (``options``: EXPLAIN's), the table being tiny: the planner made to
    show which index could answer it (no sequential or bitmap scan), as it does for a
    national table."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_bitmapscan = off")
        return queryset.explain(**options)


def _heap_fetches(queryset) -> int:
    """How many rows the chart's index-only scan had to look up in the table (those on
    pages not marked visible to all)."""
    plan = _plan(queryset, analyze=True)
    fetches = [line for line in plan.splitlines() if "Heap Fetches:" in line]
    assert fetches, plan
    return int(fetches[0].split("Heap Fetches:")[1])


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


@pytest.mark.parametrize("fold", ["compiled when built", "Python"])
def test_after_the_schemes_rebuild_the_chart_reads_no_page_of_the_table(
    postgres, club, upload, monkeypatch, fold
):
    """The rebuild writes the points frozen, their pages marked visible to all: the index alone
    answers the chart as soon as the rebuild is done, not after a VACUUM, whichever fold wrote
    them. Points written by the uploads' steps are not marked yet: the chart looks each up in
    the table."""
    if fold == "Python":  # (as on a machine where PPI's library is not built)
        monkeypatch.setattr(
            rebuild_run, "ppi_bulk_fold", lambda numbers: PPIBulkFold(keep_history=False)
        )
    member = _two_sessions_late_one_last(upload, club)
    assert _heap_fetches(ppi_chart_points(member=member)) == 2  # (the check can fail)

    schemes_rebuild()

    assert _heap_fetches(ppi_chart_points(member=member)) == 0
    assert len(ppi_chart_points(member=member)) == 2
