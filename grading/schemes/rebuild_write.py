"""The rebuild's writes: every table of the schemes replaced in bulk, with PostgreSQL COPY
(``grading.ledger.subjects.table_copy``; SQLite, the settings' default without a server, takes
the same rows through ``executemany``). Called inside the rebuild's transaction."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from django.db import connection

from grading.ledger.subjects import table_copy
from grading.models import (
    BrambledownClubState,
    BrambledownGrade,
    BrambledownListEntry,
    BrambledownPoint,
    BrambledownQuarter,
    BrambledownRating,
    PPIPoint,
    PPIRating,
    SchemeHead,
)
from grading.models.schemes import SchemeEntry

# Every table the schemes write, in the order written.
TABLES = {
    "scheme_entries": SchemeEntry,
    "scheme_head": SchemeHead,
    "ppi_ratings": PPIRating,
    "ppi_points": PPIPoint,
    "bd_clubs": BrambledownClubState,
    "bd_quarters": BrambledownQuarter,
    "bd_lists": BrambledownListEntry,
    "bd_ratings": BrambledownRating,
    "bd_grades": BrambledownGrade,
    "bd_points": BrambledownPoint,
}

# The columns each table is written with (the primary key is the table's own sequence).
COLUMNS = {
    "scheme_entries": ("seq", "operation", "version_id", "host_pair", "created"),
    "scheme_head": ("id", "ppi_seq"),
    "ppi_ratings": (
        "member_id",
        "ppi",
        "boards",
        "months",
        "recent_boards",
        "shown",
        "active",
        "suit",
        "as_of",
        "seq",
    ),
    "ppi_points": (
        "member_id",
        "version_id",
        "seq",
        "date",
        "ppi",
        "boards",
        "total_boards",
        "mode",
    ),
    "bd_clubs": ("club_id", "regraded", "open_quarter", "snapshot", "sessions", "updated"),
    "bd_quarters": ("club_id", "quarter", "sessions", "changes", "closed"),
    "bd_lists": (
        "club_id",
        "quarter",
        "kind",
        "rank",
        "member_id",
        "partner_id",
        "grade",
        "member_grade",
        "partner_grade",
        "tournaments",
        "in_quarter",
        "partners",
    ),
    "bd_ratings": (
        "club_id",
        "version_id",
        "member_id",
        "partner_id",
        "date",
        "pair_id",
        "percent",
        "field_average",
        "ppr",
        "own",
        "partner_grade",
        "ipr",
    ),
    "bd_grades": (
        "club_id",
        "member_id",
        "grade",
        "performances",
        "quarter_iprs",
        "tournaments",
        "quarter",
        "on_a_list",
        "on_b_list",
        "last_date",
    ),
    "bd_points": ("club_id", "member_id", "date", "quarter", "grade", "reason"),
}

JSON_COLUMNS = {"months", "snapshot", "changes"}


def as_json(value) -> str:
    """A JSON column's value as COPY (and SQLite) take it: its text."""
    return json.dumps(value, separators=(",", ":"))


def tables_clear() -> None:
    """Empty every table of the schemes (one statement on PostgreSQL)."""
    names = [model._meta.db_table for model in TABLES.values()]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f"TRUNCATE {', '.join(names)}")
        else:
            for name in names:
                cursor.execute(f"DELETE FROM {name}")


def table_write(name: str, rows: Iterable[Sequence]) -> int:
    """``rows`` (in :data:`COLUMNS` order) into the table ``name``. Returns the rows written."""
    with connection.cursor() as cursor:
        return table_copy(cursor, TABLES[name]._meta.db_table, COLUMNS[name], rows)
