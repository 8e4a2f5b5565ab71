"""Putting a bulk refold's rows in place (issue 18; S5.4): each table merged with the fold's
rows, gathered first in a staging table, by three set-based statements: the rows the fold no
longer gives deleted, the rows whose columns differ updated in place, the new rows inserted.

Why a merge and not "delete everything, insert everything": the database's cost is the rows
written, not the rows compared. A replay with the same parameter set writes nothing at all; a
change of set updates each row in place, its keys unchanged, so PostgreSQL checks no foreign
key again (a row inserted is checked against every table it refers to, at commit) and keeps
the row in its page where there is room (no index entry written: the session grades, pair
results and history rows leave half of each page free for it, migration 0017). Readers see
the old rows until the refold's transaction commits: no table is truncated or locked against
reading. A table with no row yet (the national builder's first fill) takes the fold's rows
with one INSERT (issue 31).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Sequence

from grading.common.pgcopy import copy_columns, table_copy
from grading.engine.ngs.decay import band
from grading.engine.ngs.foldout import STATUSES, CurrentOut, HistoriesOut, PartnershipsOut
from grading.engine.ngs.ledger import CHECK_TOLERANCE
from grading.engine.ngs.types import Status
from grading.ledger.store import CURRENT_GRADE_FIELDS
from grading.ledger.subjects import HISTORY, LIVE, SUBJECT
from grading.models import CurrentGrade, PartnershipGrade
from members.models import Member

__all__ = ["current_place", "merge", "partnerships_place", "subjects_place"]

CURRENT = CurrentGrade._meta.db_table
PARTNERSHIPS = PartnershipGrade._meta.db_table
_PARTNERSHIP_FIELDS = (
    "grade",
    "first_value",
    "boards_in_window",
    "boards_together",
    "sessions_together",
    "last_played",
    "shown",
    "as_of",
    "seq",
)
DIFF = "refold_diff"
# the fold's history columns as COPYed (HistoriesOut.entry_<name>, its array type)
_RAW_HISTORY = (
    ("subject", "i"),
    ("seq", "i"),
    ("pos", "i"),
    ("date", "i"),
    ("boards", "i"),
    ("grade", "d"),
    ("factor", "d"),
    ("partner", "i"),
    ("pad", "d"),
)
MEMBERS = Member._meta.db_table
_HISTORY_FIELDS = ("version_id", "pos", "date", "boards", "grade", "factor", "partner", "pad")


def nan_none(x: float) -> float | None:
    return None if math.isnan(x) else x


def day_of(ordinal: int, cache: dict[int, dt.date]) -> dt.date | None:
    if ordinal <= 0:
        return None
    day = cache.get(ordinal)
    if day is None:
        day = cache[ordinal] = dt.date.fromordinal(ordinal)
    return day


# Two figures closer than ``replay --check``'s tolerance are the same grade: the compiled fold
# and the step-by-step engine sum in other orders and differ in the last bits, and a refold that
# rewrote every such row (most of a database graded upload by upload: 9,627 of 13,794 session
# grades in the region bench) would do its whole write for nothing.
SAME = CHECK_TOLERANCE

_floats: dict[str, frozenset[str]] = {}


def float_columns(cursor, table: str) -> frozenset[str]:
    """The double-precision columns of ``table`` (read once a process)."""
    if table not in _floats:
        cursor.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = %s "
            "AND data_type IN ('double precision', 'real')",
            [table.strip('"')],
        )
        _floats[table] = frozenset(name for (name,) in cursor.fetchall())
    return _floats[table]


def differs(mine: str, theirs: str, columns: Sequence[str], floats: frozenset[str]) -> str:
    """SQL: whether a row ``mine`` differs from ``theirs`` (table aliases) in ``columns``,
    figures in ``floats`` only by more than :data:`SAME` (or by being missing on one side)."""
    tests = []
    for c in columns:
        a, b = f"{mine}.{c}", f"{theirs}.{c}"
        if c in floats:
            tests.append(
                f"({a} IS DISTINCT FROM {b} AND "
                f"(({a} IS NULL) <> ({b} IS NULL) OR NOT abs({a} - {b}) <= {SAME!r}))"
            )
        else:
            tests.append(f"{a} IS DISTINCT FROM {b}")
    return "(" + " OR ".join(tests) + ")" if tests else "FALSE"


def merge(
    cursor,
    target: str,
    source: str,
    key: Sequence[str],
    values: Sequence[str],
    *,
    scope: str = "TRUE",
    delete: bool = True,
    params: dict | None = None,
) -> dict[str, int]:
    """Make the rows of ``target`` within ``scope`` (an expression on its columns) those of
    ``source`` (a table, or a parenthesised query naming its columns, with ``params``),
    matched on ``key``. One full join finds what differs (``differs``: a figure by more than
    :data:`SAME`; kept in a temporary table: nothing, for a replay with the same set); then
    the rows the fold no longer gives are deleted (unless not ``delete``), the rows that
    differ updated in the order they lie in the table (``_update``), the new ones inserted.
    Returns the rows deleted, updated and inserted.

    A target with no row in ``scope`` (a first fill: the national builder's refold) takes
    ``source``'s rows with one INSERT, without the join and the temporary copy of every row
    (issue 31)."""
    k0 = key[0]
    columns = ", ".join((*key, *values))
    cursor.execute(f"SELECT EXISTS (SELECT 1 FROM {target} WHERE {scope})")
    if not cursor.fetchone()[0]:
        cursor.execute(f"INSERT INTO {target} ({columns}) SELECT {columns} FROM {source} s", params)
        return {"deleted": 0, "updated": 0, "inserted": cursor.rowcount}
    on = " AND ".join(f"t.{c} = s.{c}" for c in key)
    changed = differs("t", "s", values, float_columns(cursor, target))
    cursor.execute(f"DROP TABLE IF EXISTS {DIFF}")
    cursor.execute(
        f"CREATE TEMPORARY TABLE {DIFF} ON COMMIT DROP AS SELECT "
        + ", ".join(f"COALESCE(s.{c}, t.{c}) AS {c}" for c in key)
        + f", {', '.join(f's.{c}' for c in values)}, t.{k0} IS NULL AS fresh, "
        f"s.{k0} IS NULL AS gone, t.ctid AS tid FROM (SELECT ctid, {', '.join((*key, *values))} "
        f"FROM {target} WHERE {scope}) t FULL JOIN {source} s ON {on} "
        f"WHERE t.{k0} IS NULL OR s.{k0} IS NULL OR {changed}",
        params,
    )
    cursor.execute(
        f"SELECT count(*) FILTER (WHERE gone), count(*) FILTER (WHERE NOT gone AND NOT fresh), "
        f"count(*) FILTER (WHERE fresh) FROM {DIFF}"
    )
    gone, changed, fresh = cursor.fetchone()
    out = {"deleted": 0, "updated": changed, "inserted": fresh}
    if not (gone or changed or fresh):
        return out
    cursor.execute(f"ANALYZE {DIFF}")
    on = " AND ".join(f"t.{c} = d.{c}" for c in key)
    if gone and delete:
        cursor.execute(f"DELETE FROM {target} t USING {DIFF} d WHERE d.gone AND {on}")
        out["deleted"] = cursor.rowcount
    if changed:
        _update(cursor, target, key, values, changed)
    if fresh:
        cursor.execute(f"INSERT INTO {target} ({columns}) SELECT {columns} FROM {DIFF} WHERE fresh")
    return out


def _update(cursor, target: str, key: Sequence[str], values: Sequence[str], changed: int) -> None:
    """The ``changed`` rows of the diff written to ``target``, in the order they lie in it.

    Each diff row carries the place of the stored row it was compared with (its ``ctid``);
    the UPDATE reads the diff sorted by that place and finds each row there (a TID scan), so
    it goes through the table's pages once, front to back. Joined on the key instead, the
    rows were visited in the order of the join the planner chose: a hash join's (nationally
    in batches) or a merge join sorted on the key's columns in whichever order it preferred.
    On the national database, after a VACUUM, it sorted the session grades on (member,
    version): each of the table's 0.67 million pages was read, dirtied and written back about
    ten times over: 318 s, against 86 s by place (docs/benchmarks.md, session 18).

    A place is only a hint: a row is updated only if the row at that place still has the
    diff's key. The refold holds the ledger lock, under which every writer of these tables
    runs, so the places hold; should a row have moved all the same, fewer rows are updated
    than changed, and the rows are written again matched on their key."""
    sets = ", ".join(f"{c} = d.{c}" for c in values)
    # the key compared in a form no index can use: the planner must go by the place
    mine, theirs = (", ".join(f"{alias}.{c}" for c in key) for alias in ("t", "d"))
    same_key = f"({mine}) IS NOT DISTINCT FROM ({theirs})"
    cursor.execute("SET LOCAL enable_hashjoin = off")
    cursor.execute("SET LOCAL enable_mergejoin = off")
    cursor.execute(
        f"UPDATE {target} t SET {sets} FROM (SELECT * FROM {DIFF} WHERE NOT gone AND NOT fresh "
        f"ORDER BY tid) d WHERE t.ctid = d.tid AND {same_key}"
    )
    updated = cursor.rowcount
    # back to what the session had, for the statements after this one
    cursor.execute("RESET enable_hashjoin")
    cursor.execute("RESET enable_mergejoin")
    if updated != changed:
        on = " AND ".join(f"t.{c} = d.{c}" for c in key)
        cursor.execute(
            f"UPDATE {target} t SET {sets} FROM {DIFF} d WHERE NOT d.gone AND NOT d.fresh AND {on}"
        )


def _staged(cursor, name: str, like: str, columns: Sequence[str], rows) -> str:
    """A temporary table of ``like``'s ``columns`` (dropped at commit), filled by COPY."""
    cursor.execute(f"DROP TABLE IF EXISTS {name}")
    cursor.execute(
        f"CREATE TEMPORARY TABLE {name} ON COMMIT DROP AS SELECT {', '.join(columns)} "
        f"FROM {like} WITH NO DATA"
    )
    table_copy(cursor, name, columns, rows)
    cursor.execute(f"ANALYZE {name}")
    return name


def current_place(cursor, out: CurrentOut, seq: int) -> dict[str, int]:
    """Every current grade as of the ledger's reference date (``store_grades``' columns)."""
    as_of = dt.date.fromordinal(out.as_of) if out.as_of > 0 else None
    days: dict[int, dt.date] = {}
    rows = (
        (
            out.member[i],
            out.grade[i],
            STATUSES[out.status[i]].value,
            band(out.grade[i]),
            out.boards_in_window[i],
            out.sessions_in_window[i],
            nan_none(out.initial[i]),
            day_of(out.last_date[i], days),
            as_of,
            seq,
        )
        for i in range(len(out.member))
    )
    source = _staged(cursor, "refold_current", CURRENT, ("member_id", *CURRENT_GRADE_FIELDS), rows)
    return merge(cursor, CURRENT, source, ("member_id",), CURRENT_GRADE_FIELDS)


def partnerships_place(cursor, out: PartnershipsOut, seq: int) -> dict[str, int]:
    """Every partnership grade (``store_partnerships``' columns)."""
    as_of = dt.date.fromordinal(out.as_of) if out.as_of > 0 else None
    provisional = STATUSES.index(Status.PROVISIONAL)
    days: dict[int, dt.date] = {}
    rows = (
        (
            out.a[i],
            out.b[i],
            out.grade[i],
            nan_none(out.initial[i]),
            out.boards_in_window[i],
            out.boards_together[i],
            out.sessions_together[i],
            day_of(out.last_date[i], days),
            out.status[i] != provisional,
            as_of,
            seq,
        )
        for i in range(len(out.a))
    )
    key = ("member_a_id", "member_b_id")
    source = _staged(
        cursor, "refold_partnerships", PARTNERSHIPS, (*key, *_PARTNERSHIP_FIELDS), rows
    )
    return merge(cursor, PARTNERSHIPS, source, key, _PARTNERSHIP_FIELDS)


def subjects_stage_tables() -> dict[str, str]:
    """The staging tables ``subjects_stage`` fills (a base name -> its columns)."""
    kinds = {"i": "integer", "d": "double precision"}
    return {
        "subjects": "idx integer, key varchar(64), initial double precision",
        "history": ", ".join(f"{name} {kinds[code]}" for name, code in _RAW_HISTORY),
        "live": "version_id bigint, seq bigint, date date",
    }


def subjects_stage(side, batches: Iterable[HistoriesOut], numbers: list[str]) -> dict[str, str]:
    """The fold's subjects, history entries and live versions handed to ``side`` (a
    ``side.SideCopy`` or ``InlineCopy``, which creates ``subjects_stage_tables()``), to be taken in
    beside the refold's other merges; returns the staging tables' names for
    ``subjects_place``. ``batches``: the fold's histories, whole or in batches of subjects
    (``history_batches``: memory holds one batch), read in the side's thread. The history
    rows (21 million nationally) go as the fold's columns, by binary COPY built a block of
    columns at a time; the database finds each row's subject, version, date and partner."""
    names = side.open(subjects_stage_tables())
    side.submit(_subjects_copy, names, batches, numbers)
    return names


def _subjects_copy(
    cursor, names: dict[str, str], batches, numbers: list[str], *, freeze: bool
) -> None:
    days: dict[int, dt.date] = {}
    live = False
    for out in batches:
        keys = [
            numbers[a] if b < 0 else f"{numbers[a]}+{numbers[b]}"
            for a, b in zip(out.subject_a, out.subject_b, strict=True)
        ]
        table_copy(
            cursor,
            names["subjects"],
            ("idx", "key", "initial"),
            ((out.first_subject + i, key, out.subject_initial[i]) for i, key in enumerate(keys)),
            freeze=freeze,
        )
        columns = [getattr(out, f"entry_{name}") for name, _ in _RAW_HISTORY]
        copy_columns(cursor.cursor, names["history"], columns, freeze=freeze)
        if not live:  # the first batch holds the live versions
            live = True
            table_copy(
                cursor,
                names["live"],
                ("version_id", "seq", "date"),
                (
                    (int(v), s, day_of(d, days))
                    for v, s, d in zip(out.live_version, out.live_seq, out.live_date, strict=True)
                ),
                freeze=freeze,
            )


def subjects_place(cursor, staged: dict[str, str]) -> dict[str, int]:
    """The subject tables as the fold holds them (``subjects_copy``'s rows), from the
    staging tables ``subjects_stage`` filled: subjects matched on their key (a player's
    number, a partnership's "a+b"), so their ids stay and an unchanged history row is not
    written again."""
    subjects_raw, history_raw, live = staged["subjects"], staged["history"], staged["live"]
    for table in (subjects_raw, history_raw, live):
        cursor.execute(f"ANALYZE {table}")
    written = {}
    subjects = merge(cursor, SUBJECT, subjects_raw, ("key",), ("initial",), delete=False)
    for name, n in subjects.items():
        written[f"subjects_{name}"] = n
    # the history rows as the table's columns, merged straight from the query (not first
    # copied whole into a temporary table: 21 million rows nationally)
    history_rows = (
        "(SELECT ls.id AS subject_id, r.seq::bigint AS seq, l.version_id, "
        "r.pos::smallint AS pos, DATE '0001-01-01' + (r.date - 1) AS date, r.boards, r.grade, "
        "r.factor, COALESCE(m.national_number, '')::varchar(20) AS partner, "
        "NULLIF(r.pad, 'NaN') AS pad "
        f"FROM {history_raw} r JOIN {subjects_raw} rs ON rs.idx = r.subject "
        f"JOIN {SUBJECT} ls ON ls.key = rs.key JOIN {live} l ON l.seq = r.seq "
        f"LEFT JOIN {MEMBERS} m ON m.id = r.partner)"
    )
    history = merge(cursor, HISTORY, history_rows, ("subject_id", "seq"), _HISTORY_FIELDS)
    for name, n in history.items():
        written[f"history_{name}"] = n
    cursor.execute(
        f"DELETE FROM {SUBJECT} t WHERE NOT EXISTS "
        f"(SELECT 1 FROM {subjects_raw} s WHERE s.key = t.key)"
    )
    written["subjects_deleted"] = cursor.rowcount
    for name, n in merge(cursor, LIVE, live, ("version_id",), ("seq", "date")).items():
        written[f"live_{name}"] = n
    return written
