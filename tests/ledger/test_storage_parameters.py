"""The tables' PostgreSQL storage parameters as the migrations set them (grading/migrations/
_table_parameters.py): room on each page for a refold's in-place rewrites (0017, 0019; fillfactor 50,
docs/decisions.md), and autovacuum's visits to the PPI points after a fixed count of new
points, so the chart's index-only scan keeps finding their pages marked (0022)."""

from __future__ import annotations

import pytest
from django.db import connection

REWRITTEN_IN_PLACE = (
    "grading_sessiongrade",
    "grading_pairresult",
    "grading_ledgerhistory",
    "grading_partnershipgrade",
    "grading_ledgersubject",
)


def _options(table: str) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = %s", [table])
        (options,) = cursor.fetchone()
    return set(options or ())


@pytest.mark.parametrize("table", REWRITTEN_IN_PLACE)
def test_the_tables_a_refold_rewrites_leave_half_of_each_page_free(postgres, table):
    assert "fillfactor=50" in _options(table)


def test_autovacuum_visits_the_ppi_points_after_20000_new_ones(postgres):
    assert _options("grading_ppipoint") == {
        "autovacuum_vacuum_insert_threshold=20000",
        "autovacuum_vacuum_insert_scale_factor=0",
    }


def test_a_table_the_migrations_leave_alone_has_no_parameters(postgres):
    """The checks above can fail: a table nobody set reads as empty."""
    assert _options("grading_ppirating") == set()
