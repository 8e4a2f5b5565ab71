"""The rebuild's writes: every table of the schemes replaced in bulk, with PostgreSQL COPY
(``grading.common.pgcopy.table_copy``; SQLite, the settings' default without a server, takes
the same rows through ``executemany``). Called inside the rebuild's transaction."""

from __future__ import annotations

import json
import struct
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager

from django.db import connection

from grading.common.pgcopy import DATE_EPOCH, copy_binary, table_copy
from grading.models import (
    BrambledownClubState,
    BrambledownGrade,
    BrambledownListEntry,
    BrambledownMemberState,
    BrambledownPairState,
    BrambledownPoint,
    BrambledownQuarter,
    BrambledownRating,
    PPIPoint,
    PPIRating,
    SchemeHead,
)
from grading.models.schemes import SchemeEntry
from grading.schemes.brambledown.state import PAIR_FIELDS, PLAYER_FIELDS, ROW_EXTRA
from grading.schemes.brambledown.tables import GRADE_FIELDS

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
    "bd_members": BrambledownMemberState,
    "bd_pairs": BrambledownPairState,
}

# The columns each table is written with (the primary key is the table's own sequence).
COLUMNS = {
    "scheme_entries": ("seq", "operation", "version_id", "host_pair", "created"),
    "scheme_head": ("id", "ppi_seq", "steps_seq"),
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
    "bd_clubs": (
        "club_id",
        "regraded",
        "open_quarter",
        "snapshot",
        "sessions",
        "updated",
        "last_key",
        "recorded",
        "seq",
        "latest",
    ),
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
    "bd_grades": ("club_id", "member_id", *GRADE_FIELDS),
    "bd_points": ("club_id", "member_id", "date", "quarter", "grade", "reason"),
    "bd_members": ("club_id", "number", *PLAYER_FIELDS, *ROW_EXTRA),
    "bd_pairs": ("club_id", "first", "second", *PAIR_FIELDS, *ROW_EXTRA),
}

JSON_COLUMNS = {
    "months",
    "snapshot",
    "changes",
    "last_key",
    "first_iprs",
    "quarter_iprs",
    "quarters",
    "partners",
    "history",
}


_ENCODE = json.JSONEncoder(separators=(",", ":")).encode  # (one encoder, not one a value)


def as_json(value) -> str:
    """A JSON column's value as COPY (and SQLite) take it: its text."""
    return _ENCODE(value)


def tables_clear() -> None:
    """Empty every table of the schemes (one statement on PostgreSQL)."""
    names = [model._meta.db_table for model in TABLES.values()]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # Checks deferred by earlier writes in the transaction would refuse the TRUNCATE.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute(f"TRUNCATE {', '.join(names)}")
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        else:
            for name in names:
                cursor.execute(f"DELETE FROM {name}")


def table_write(name: str, rows: Iterable[Sequence]) -> int:
    """``rows`` (in :data:`COLUMNS` order) into the table ``name``. Returns the rows written."""
    with connection.cursor() as cursor:
        return table_copy(cursor, TABLES[name]._meta.db_table, COLUMNS[name], rows)


# A ``PPIPoint`` row as binary COPY lays it out (``COLUMNS["ppi_points"]``): the field count,
# then each field's length and value (bigint member, version and seq; date as days since
# 2000-01-01; double ppi; integer boards and total; the empty text ``mode``).
_POINT = struct.Struct(">h iq iq iq ii id ii ii i")
_POINT_NO_VERSION = struct.Struct(">h iq i iq ii id ii ii i")


def ppi_points_write(rows: Iterable[Sequence]) -> int:
    """PPI history points (:data:`COLUMNS` order) into their table. On PostgreSQL by binary
    COPY, packed by ``struct`` (a nation's history is millions of points: text COPY formats
    each field in Python); an empty ``mode`` only. Elsewhere as :func:`table_write`."""
    if connection.vendor != "postgresql":
        return table_write("ppi_points", rows)
    pack, bare = _POINT.pack, _POINT_NO_VERSION.pack
    packed = []
    for member, version, seq, date, ppi, boards, total, mode in rows:
        if mode:
            raise ValueError("ppi_points_write writes an empty mode only")
        day = date.toordinal() - DATE_EPOCH
        if version is None:
            packed.append(bare(8, 8, member, -1, 8, seq, 4, day, 8, ppi, 4, boards, 4, total, 0))
        else:
            packed.append(
                pack(8, 8, member, 8, version, 8, seq, 4, day, 8, ppi, 4, boards, 4, total, 0)
            )
    if not packed:
        return 0
    with connection.cursor() as cursor:
        copy_binary(
            cursor.cursor, TABLES["ppi_points"]._meta.db_table, packed, COLUMNS["ppi_points"]
        )
    return len(packed)


@contextmanager
def indexes_built_once() -> Iterator[None]:
    """On PostgreSQL, the tables' foreign keys, unique constraints and indexes (the primary
    keys aside) are dropped while the rows are copied and made again after: each index is
    built by one sort and each key checked by one query over the table, instead of one index
    insertion per row per index and one deferred check per row at commit (millions of rows).
    Elsewhere (SQLite), nothing is dropped."""
    if connection.vendor != "postgresql":
        yield
        return
    names = [model._meta.db_table for model in TABLES.values()]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid), contype "
            "FROM pg_constraint WHERE contype IN ('f', 'u') "
            "AND conrelid::regclass::text = ANY(%s) ORDER BY contype",  # keys first
            [names],
        )
        constraints = cursor.fetchall()
        cursor.execute(
            "SELECT i.indexname, i.indexdef FROM pg_indexes i WHERE i.tablename = ANY(%s) "
            "AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)",
            [names],
        )
        indexes = cursor.fetchall()
        for table, name, _, _ in constraints:
            cursor.execute(f'ALTER TABLE {table} DROP CONSTRAINT "{name}"')
        for name, _ in indexes:
            cursor.execute(f'DROP INDEX "{name}"')
    yield
    with connection.cursor() as cursor:
        for _, definition in indexes:
            cursor.execute(definition)
        for table, name, definition, _ in reversed(constraints):  # unique ones, then keys
            cursor.execute(f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {definition}')
