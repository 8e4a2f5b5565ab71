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

A change of set rewrites nearly every row: there ``rewrite`` writes each row found by its key,
with no comparison first (a full join of millions of rows, then its rows sorted by their place
in the table, as long as the writing itself nationally).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from contextlib import contextmanager

from grading.common.pgcopy import table_copy
from grading.engine.ngs.decay import band
from grading.engine.ngs.foldout import STATUSES, CurrentOut, PartnershipsOut
from grading.engine.ngs.ledger import CHECK_TOLERANCE
from grading.engine.ngs.types import Status
from grading.ledger.store import CURRENT_GRADE_FIELDS
from grading.models import CurrentGrade, PartnershipGrade

__all__ = [
    "current_place",
    "diff_apply",
    "diff_select",
    "merge",
    "partnerships_place",
    "rewrite",
    "tables_analyze",
]

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
    """Make the rows of ``target`` within ``scope`` (an expression on its columns, as ``t``) those of
    ``source`` (a table, or a parenthesised query naming its columns, with ``params``),
    matched on ``key``. One full join finds what differs (``differs``: a figure by more than
    :data:`SAME`; kept in a temporary table: nothing, for a replay with the same set); then
    the rows the fold no longer gives are deleted (unless not ``delete``), the rows that
    differ updated in the order they lie in the table (``_update``), the new ones inserted.
    Returns the rows deleted, updated and inserted.

    A target with no row in ``scope`` (a first fill: the national builder's refold) takes
    ``source``'s rows with one INSERT, without the join and the temporary copy of every row
    (issue 31)."""
    if is_empty(cursor, target, scope):
        return fill(cursor, target, source, (*key, *values), params)
    select = diff_select(cursor, target, source, key, values, scope=scope)
    counts = diff_make(cursor, DIFF, select, params)
    return diff_apply(cursor, target, DIFF, key, values, counts, delete=delete)


def is_empty(cursor, target: str, scope: str = "TRUE") -> bool:
    cursor.execute(f"SELECT EXISTS (SELECT 1 FROM {target} t WHERE {scope})")
    return not cursor.fetchone()[0]


def fill(cursor, target: str, source: str, columns: Sequence[str], params=None) -> dict[str, int]:
    """A first fill: ``source``'s rows into ``target`` with one INSERT."""
    names = ", ".join(columns)
    cursor.execute(f"INSERT INTO {target} ({names}) SELECT {names} FROM {source} s", params)
    return {"deleted": 0, "updated": 0, "inserted": cursor.rowcount}


def diff_select(
    cursor, target: str, source: str, key: Sequence[str], values: Sequence[str], *, scope="TRUE"
) -> str:
    """SQL: the diff of ``target`` (within ``scope``) and ``source`` on ``key``: each row
    the fold gives that is new (``fresh``) or differs, with the place (``tid``) of the stored
    row it was compared with, and each stored row the fold no longer gives (``gone``)."""
    k0 = key[0]
    on = " AND ".join(f"t.{c} = s.{c}" for c in key)
    changed = differs("t", "s", values, float_columns(cursor, target))
    return (
        "SELECT "
        + ", ".join(f"COALESCE(s.{c}, t.{c}) AS {c}" for c in key)
        + f", {', '.join(f's.{c}' for c in values)}, t.{k0} IS NULL AS fresh, "
        f"s.{k0} IS NULL AS gone, t.ctid AS tid FROM (SELECT ctid, {', '.join((*key, *values))} "
        f"FROM {target} t WHERE {scope}) t FULL JOIN {source} s ON {on} "
        f"WHERE t.{k0} IS NULL OR s.{k0} IS NULL OR {changed}"
    )


def diff_counts(cursor, diff: str) -> dict[str, int]:
    """The diff's rows gone, changed and fresh; analysed for the statements that read it."""
    cursor.execute(
        f"SELECT count(*) FILTER (WHERE gone), count(*) FILTER (WHERE NOT gone AND NOT fresh), "
        f"count(*) FILTER (WHERE fresh) FROM {diff}"
    )
    gone, changed, fresh = cursor.fetchone()
    if gone or changed or fresh:
        cursor.execute(f"ANALYZE {diff}")
    return {"gone": gone, "changed": changed, "fresh": fresh}


def diff_apply(
    cursor,
    target: str,
    diff: str,
    key: Sequence[str],
    values: Sequence[str],
    counts: dict[str, int],
    *,
    delete: bool = True,
) -> dict[str, int]:
    """``diff`` (``diff_make``'s table, ``counts`` its counts) written to ``target``: the rows
    gone deleted (unless not ``delete``), those changed updated where they lie, the new ones
    inserted. Returns the rows deleted, updated and inserted."""
    gone, changed, fresh = counts["gone"], counts["changed"], counts["fresh"]
    out = {"deleted": 0, "updated": changed, "inserted": fresh}
    on = " AND ".join(f"t.{c} = d.{c}" for c in key)
    if gone and delete:
        cursor.execute(f"DELETE FROM {target} t USING {diff} d WHERE d.gone AND {on}")
        out["deleted"] = cursor.rowcount
    if changed:
        _update(cursor, target, key, values, changed, diff=diff)
    if fresh:
        columns = ", ".join((*key, *values))
        cursor.execute(f"INSERT INTO {target} ({columns}) SELECT {columns} FROM {diff} WHERE fresh")
    return out


def rewrite(
    cursor,
    target: str,
    source: str,
    key: Sequence[str],
    values: Sequence[str],
    *,
    staged: int,
    scope: str = "TRUE",
    params: dict | None = None,
) -> dict[str, int]:
    """Make the rows of ``target`` within ``scope`` (an expression on its columns, as ``t``)
    those of ``source`` (a table, or a parenthesised query naming its columns, of ``staged``
    rows in the order the fold gave them), where nearly every row differs: a change of set
    (issue 31). No comparison first: each stored row is found by its key (its index), in the
    source's order, which is nearly the order the rows lie in, and written. The source's rows
    and the stored rows matched, counted, say whether any row is new or gone; only then are
    they looked for. Returns the rows deleted, updated and inserted.

    Against ``merge`` on a change of set nationally, this leaves out the full join of the two
    tables and the table of their differences (35.0 s for the session grades, against 60.4 s
    for their UPDATE: docs/benchmarks.md, session 25), and writes the few rows that did not
    change as well. An empty target is filled (``fill``)."""
    cursor.execute(f"SELECT count(*) FROM {target} t WHERE {scope}")
    stored = cursor.fetchone()[0]
    if not stored:  # a first fill
        return fill(cursor, target, source, (*key, *values), params)
    sets = ", ".join(f"{c} = s.{c}" for c in values)
    on = " AND ".join(f"t.{c} = s.{c}" for c in key)
    # by the key's index, the source read as it lies: no hash of millions of rows, no sort
    with _joined_by_nested_loop(cursor):
        cursor.execute(
            f"UPDATE {target} t SET {sets} FROM {source} s WHERE {on} AND {scope}", params
        )
        out = {"deleted": 0, "updated": cursor.rowcount, "inserted": 0}
    if out["updated"] < staged:
        columns = ", ".join((*key, *values))
        cursor.execute(
            f"INSERT INTO {target} ({columns}) SELECT {columns} FROM {source} s "
            f"WHERE NOT EXISTS (SELECT 1 FROM {target} t WHERE {on})",
            params,
        )
        out["inserted"] = cursor.rowcount
    if out["updated"] < stored:
        cursor.execute(
            f"DELETE FROM {target} t WHERE {scope} AND NOT EXISTS (SELECT 1 FROM {source} s "
            f"WHERE {on})",
            params,
        )
        out["deleted"] = cursor.rowcount
    return out


def tables_analyze(cursor, tables: Sequence[str], *, freeze: bool) -> None:
    """A side job: the staging tables analysed by the connection that filled them, in its
    transaction (an ANALYZE holds its table until the transaction ends: the refold's own
    would keep the side's statements on that table waiting until the refold commits)."""
    for table in tables:
        cursor.execute(f"ANALYZE {table}")


def diff_make(cursor, name: str, select: str, params: dict | None) -> dict[str, int]:
    """The diff table ``name`` (temporary, gone with the transaction) made from ``select``,
    its rows written in the order of their places (so that ``_update`` reads them as they
    lie); returns its counts (``diff_counts``)."""
    cursor.execute(f"DROP TABLE IF EXISTS {name}")
    cursor.execute(f"CREATE TEMPORARY TABLE {name} ON COMMIT DROP AS {select} ORDER BY tid", params)
    return diff_counts(cursor, name)


@contextmanager
def _joined_by_nested_loop(cursor):
    """A statement whose planner may only loop (no hash, no merge join): it then reads its
    source as it lies and finds each target row by its place or its key's index. Set for the
    statement's transaction, and back to what the session had after it."""
    cursor.execute("SET LOCAL enable_hashjoin = off")
    cursor.execute("SET LOCAL enable_mergejoin = off")
    yield
    cursor.execute("RESET enable_hashjoin")
    cursor.execute("RESET enable_mergejoin")


def _update(
    cursor,
    target: str,
    key: Sequence[str],
    values: Sequence[str],
    changed: int,
    *,
    diff: str = DIFF,
) -> None:
    """The ``changed`` rows of ``diff`` written to ``target``, in the order they lie in it.

    Each diff row carries the place of the stored row it was compared with (its ``ctid``),
    and ``diff_make`` wrote the diff sorted by that place: the UPDATE reads it as it lies and
    finds each row at its place (a TID scan), so it goes through the table's pages once,
    front to back. Joined on the key instead, the
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
    with _joined_by_nested_loop(cursor):
        cursor.execute(
            f"UPDATE {target} t SET {sets} FROM {diff} d "
            f"WHERE NOT d.gone AND NOT d.fresh AND t.ctid = d.tid AND {same_key}"
        )
        updated = cursor.rowcount
    if updated != changed:
        on = " AND ".join(f"t.{c} = d.{c}" for c in key)
        cursor.execute(
            f"UPDATE {target} t SET {sets} FROM {diff} d WHERE NOT d.gone AND NOT d.fresh AND {on}"
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
