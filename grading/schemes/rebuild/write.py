"""The rebuild's writes: every table of the schemes replaced in bulk, with PostgreSQL COPY
(``grading.common.pgcopy.table_copy``; SQLite, the settings' default without a server, takes
the same rows through ``executemany``). Called inside the rebuild's transaction."""

from __future__ import annotations

import datetime as dt
import json
from array import array
from collections.abc import Container, Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import compress

from django.db import connection

from grading.common.pgcopy import DATE_EPOCH, copy_columns, table_copy
from grading.engine.ppi.cbulk import PointColumns
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


_ENCODER = json.JSONEncoder(separators=(",", ":"), check_circular=False)


def _chunks_encoder():
    """The C encoder ``JSONEncoder.encode`` makes afresh at every call, made once (a quarters
    column: 1.69 us a call through ``encode``, 0.74 us through this; a national rebuild
    encodes 2.9 million such columns); None where this Python's ``json`` has none or makes it
    otherwise (``as_json`` then asks ``JSONEncoder.encode``)."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return None
    try:
        chunks = make(
            None,
            _ENCODER.default,
            json.encoder.encode_basestring_ascii,
            None,
            ":",
            ",",
            False,
            False,
            True,
        )
        sample = {"a": [1.5, "é", None, True, [2, -0.1]], "b": 3}
        if "".join(chunks(sample, 0)) != _ENCODER.encode(sample):
            return None
    except Exception:  # another signature: the plain encoder
        return None
    return chunks


_CHUNKS = _chunks_encoder()


def as_json(value) -> str:
    """A JSON column's value as COPY (and SQLite) take it: its text (compact separators)."""
    if _CHUNKS is None:
        return _ENCODER.encode(value)
    return "".join(_CHUNKS(value, 0))


_KEYS: dict[str, str] = {}  # a key's text and its colon, made once (1.84 against 3.04 us an entry)


def object_text(fields: dict, texts: Container[str]) -> str:
    """A JSON object's text in ``as_json``'s form, its values under the keys in ``texts``
    being JSON texts already (made once for two places: a member's row and its snapshot's
    entry)."""
    parts = []
    for k, v in fields.items():
        key = _KEYS.get(k)
        if key is None:
            key = _KEYS[k] = as_json(k) + ":"
        parts.append(key + (v if k in texts else as_json(v)))
    return "{" + ",".join(parts) + "}"


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


def ppi_points_write(
    points: Sequence[tuple[str, int, float, int, int]],
    members: dict[str, int],
    events: dict[int, tuple[int, dt.date]],
    *,
    frozen: bool = False,
) -> int:
    """A chunk of PPI's history points, as ``PPIBulkFold.points_take`` gives them (``(number,
    seq, ppi, boards, total boards)``), into their table in that order (the log's, as the
    steps append them): ``members`` the member id of each number (a number without one is not
    stored), ``events`` each event's version and date by its seq; the ``mode`` empty. Returns
    the rows written. ``frozen`` (the table emptied earlier in this transaction, with nothing
    open since: the rebuild's): the rows are written frozen and their pages marked visible to
    all, so that the chart's index-only scan (migration 0021) reads no page of the table once
    the rebuild commits, without waiting for a VACUUM.

    On PostgreSQL the points become columns by a few passes at C speed (``zip``, ``map``,
    ``array``) and go by binary COPY from those columns (``copy_columns``): a nation's 12.5
    million points are never made into rows, nor packed, one Python call at a time. Elsewhere
    (SQLite) as rows, by :func:`table_write`."""
    if not points:
        return 0
    numbers, seqs, ppis, boards, totals = zip(*points, strict=True)
    ids: Sequence[int | None] = list(map(members.get, numbers))
    return _points_write(ids, seqs, ppis, boards, totals, events, None, frozen)


def ppi_columns_write(
    points: PointColumns,
    member_of: Sequence[int],
    events: dict[int, tuple[int, dt.date]],
    *,
    frozen: bool = False,
) -> int:
    """:func:`ppi_points_write` for the compiled fold's points (``CPPIFold.points_take``),
    columns whose members are the fold's ids: ``member_of`` the member id of each fold id (-1:
    a number with no member, left out). Returns the rows written."""
    if not points.member:
        return 0
    ids = array("q", map(member_of.__getitem__, points.member))
    return _points_write(ids, *points[1:], events, -1, frozen)


def _points_write(ids, seqs, ppis, boards, totals, events, absent, frozen) -> int:
    """The points' columns written (``absent``: the member id of a number with no member,
    whose points are left out)."""
    if absent in ids:
        kept = [member != absent for member in ids]
        ids, seqs, ppis, boards, totals = (
            tuple(compress(column, kept)) for column in (ids, seqs, ppis, boards, totals)
        )
    if connection.vendor != "postgresql":
        return table_write(
            "ppi_points",
            (
                (member, events[seq][0], seq, events[seq][1], ppi, n, total, "")
                for member, seq, ppi, n, total in zip(ids, seqs, ppis, boards, totals, strict=True)
            ),
        )
    version_of = {seq: version for seq, (version, _) in events.items()}
    day_of = {seq: date.toordinal() - DATE_EPOCH for seq, (_, date) in events.items()}
    columns = [  # (an array of the same type is copied whole: a memcpy)
        array("q", ids),
        array("q", map(version_of.__getitem__, seqs)),
        array("q", seqs),
        array("i", map(day_of.__getitem__, seqs)),  # a date: days since 2000-01-01
        array("d", ppis),
        array("i", boards),
        array("i", totals),
    ]
    with connection.cursor() as cursor:
        return copy_columns(
            cursor.cursor,
            TABLES["ppi_points"]._meta.db_table,
            columns,
            names=COLUMNS["ppi_points"],  # ... "total_boards", "mode": the empty text last
            empty_texts=1,
            freeze=frozen,
        )


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
