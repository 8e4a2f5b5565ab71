"""The subject tables put in place by a bulk refold (issue 18; S5.2-S5.4, S14.6): each
player's and partnership's initial grade (``LedgerSubject``), their live history rows
(``LedgerHistory``, 21 million nationally) and the live versions (``LedgerLive``), from the
fold's histories taken in on the refold's second connection (``side``), merged as
``merge`` merges every table: compared with the stored rows, then only what differs written
(a change of set: rewritten, ``rewrite``).

The tables are a function of the ledger and the set, and ``LedgerTables``, written with them,
says which: so where the refold's transaction has written nothing before the refold (what it
reads is what is committed), they are written on the second connection, in the transaction
that took in the fold's histories, while the refold's own writes the grades, and committed
once those are written, just before the refold's own (``subjects_job``; docs/decisions.md). A
refold rolled back after that commit leaves them the fold of the committed ledger, marked as
such: what a grading step reads of them is still what they are.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterable

from django.conf import settings

from grading.common.pgcopy import copy_columns, table_copy
from grading.engine.ngs.foldout import HistoriesOut
from grading.ledger.replay.merge import (
    day_of,
    differs,
    float_columns,
    is_empty,
    merge,
    rewrite,
    tables_analyze,
)
from grading.ledger.subjects import HISTORY, LIVE, SUBJECT, tables_mark
from members.models import Member

__all__ = [
    "subjects_job",
    "subjects_stage",
    "subjects_stage_tables",
    "subjects_write",
]

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
    ``subjects_write``. ``batches``: the fold's histories, whole or in batches of subjects
    (``history_batches``: memory holds one batch), read in the side's thread. The history
    rows (21 million nationally) go as the fold's columns, by binary COPY built a block of
    columns at a time; the database finds each row's subject, version, date and partner."""
    names = side.open(subjects_stage_tables())
    side.submit(_subjects_copy, names, batches, numbers)
    side.submit(tables_analyze, tuple(names.values()))
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


def _history_source(staged: dict[str, str], ids: str) -> str:
    """The fold's history rows as the table's columns (21 million nationally): read by the
    diff, by the first fill's INSERT, or copied once for ``rewrite`` (its joins would stop
    the rewrite's plan from being one loop)."""
    return (
        "(SELECT i.id AS subject_id, r.seq::bigint AS seq, l.version_id, "
        "r.pos::smallint AS pos, DATE '0001-01-01' + (r.date - 1) AS date, r.boards, r.grade, "
        "r.factor, COALESCE(m.national_number, '')::varchar(20) AS partner, "
        "NULLIF(r.pad, 'NaN') AS pad "
        f"FROM {staged['history']} r JOIN {ids} i ON i.idx = r.subject "
        f"JOIN {staged['live']} l ON l.seq = r.seq LEFT JOIN {MEMBERS} m ON m.id = r.partner)"
    )


def _ids_make(cursor, name: str, staged: dict[str, str]) -> int:
    """Each subject the fold holds, with the id it has, or the id it will have (drawn from
    the table's sequence); returns how many are new to the table."""
    cursor.execute(f"DROP TABLE IF EXISTS {name}")
    cursor.execute(
        f"CREATE TEMPORARY TABLE {name} ON COMMIT DROP AS SELECT s.idx, s.key, s.initial, "
        f"COALESCE(t.id, nextval(pg_get_serial_sequence('{SUBJECT}', 'id'))) AS id, "
        f"t.id IS NULL AS fresh "
        f"FROM {staged['subjects']} s LEFT JOIN {SUBJECT} t ON t.key = s.key"
    )
    cursor.execute(f"SELECT count(*) FILTER (WHERE fresh) FROM {name}")
    fresh = cursor.fetchone()[0]
    cursor.execute(f"ANALYZE {name}")
    return fresh


def subjects_write(
    cursor, staged: dict[str, str], *, rewrites: bool, mark: tuple[int, str]
) -> dict[str, int]:
    """The subject tables made the fold's (``subjects_stage``'s staging tables), and marked
    as the fold of the ledger up to ``mark``'s sequence number with its set (``tables_mark``),
    in ``cursor``'s transaction: the refold's own, or its second connection's (``side``).
    Subjects are matched on their key (a player's number, a partnership's "a+b"), so their
    ids stay; the history is merged (``merge``: only what differs written), or where a change
    of set (``rewrites``) rewrites nearly every row, rewritten (``rewrite``)."""
    ids = "refold_subject_ids"
    written = {"subjects_deleted": 0, "subjects_updated": 0, "subjects_inserted": 0}
    if _ids_make(cursor, ids, staged):
        cursor.execute(
            f"INSERT INTO {SUBJECT} (id, key, initial) SELECT id, key, initial FROM {ids} "
            "WHERE fresh"
        )
        written["subjects_inserted"] = cursor.rowcount
    changed = differs("t", "i", ("initial",), float_columns(cursor, SUBJECT))
    cursor.execute(
        f"UPDATE {SUBJECT} t SET initial = i.initial FROM {ids} i "
        f"WHERE NOT i.fresh AND t.id = i.id AND {changed}"
    )
    written["subjects_updated"] = cursor.rowcount
    for name, n in _history_write(cursor, staged, ids, rewrites).items():
        written[f"history_{name}"] = n
    cursor.execute(
        f"DELETE FROM {SUBJECT} t WHERE NOT EXISTS "
        f"(SELECT 1 FROM {staged['subjects']} s WHERE s.key = t.key)"
    )
    written["subjects_deleted"] = cursor.rowcount
    for name, n in merge(cursor, LIVE, staged["live"], ("version_id",), ("seq", "date")).items():
        written[f"live_{name}"] = n
    tables_mark(*mark)
    return written


def _history_write(cursor, staged: dict[str, str], ids: str, rewrites: bool) -> dict[str, int]:
    key = ("subject_id", "seq")
    source = _history_source(staged, ids)
    if not rewrites or is_empty(cursor, HISTORY):  # (a first fill: not copied first)
        return merge(cursor, HISTORY, source, key, _HISTORY_FIELDS)
    # the fold's rows with the table's columns, once, in the fold's order (by subject, as
    # the table lies): ``rewrite`` finds each stored row by its key from them
    rows = "refold_history_rows"
    cursor.execute(f"DROP TABLE IF EXISTS {rows}")
    cursor.execute(f"CREATE TEMPORARY TABLE {rows} ON COMMIT DROP AS SELECT * FROM {source} s")
    staged_rows = cursor.rowcount
    return rewrite(cursor, HISTORY, rows, key, _HISTORY_FIELDS, staged=staged_rows)


def subjects_job(
    cursor,
    staged: dict[str, str],
    rewrites: bool,
    mark: tuple[int, str],
    written: dict[str, int],
    seconds: dict[str, float],
    *,
    freeze: bool,
) -> None:
    """``subjects_write`` as a job of the second connection (``side.SideCopy``), in the
    transaction that took in the staging tables; ``written`` filled, and ``seconds`` with
    how long it took (``subjects_beside``)."""
    t0 = time.perf_counter()
    # ``bulk_memory``'s setting, which skips a transaction Django did not open (``open``'s BEGIN)
    cursor.execute(f"SET LOCAL work_mem = '{settings.LEDGER_REFOLD_WORK_MEM}'")
    written.update(subjects_write(cursor, staged, rewrites=rewrites, mark=mark))
    seconds["subjects_beside"] = time.perf_counter() - t0
