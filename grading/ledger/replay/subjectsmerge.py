"""The subject tables put in place by a bulk refold (issue 18; S5.2-S5.4, S14.6): each
player's and partnership's initial grade (``LedgerSubject``), their live history rows
(``LedgerHistory``, 21 million nationally) and the live versions (``LedgerLive``), from the
fold's histories taken in on the refold's second connection (``side``), merged as
``merge`` merges every table: compared with the stored rows, then only what differs written."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from grading.common.pgcopy import copy_columns, table_copy
from grading.engine.ngs.foldout import HistoriesOut
from grading.ledger.replay.merge import (
    Pending,
    day_of,
    diff_place,
    diff_select,
    diff_start,
    diff_wait,
    differs,
    float_columns,
    is_empty,
    merge,
    tables_analyze,
)
from grading.ledger.replay.side import compare_here, job_run, table_create
from grading.ledger.subjects import HISTORY, LIVE, SUBJECT
from members.models import Member

__all__ = [
    "history_diff_start",
    "subjects_place",
    "subjects_stage",
    "subjects_stage_tables",
    "subjects_start",
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
    ``subjects_place``. ``batches``: the fold's histories, whole or in batches of subjects
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


@dataclass
class SubjectsPending:
    """What ``subjects_start`` began: the staging tables, each subject's id (``ids``),
    whether this transaction wrote the subject tables first (``here``: everything is
    compared on its own connection), whether the history is empty (a first fill: no diff)
    and the history's diff once ``history_diff_start`` began it."""

    staged: dict[str, str]
    ids: Pending
    here: bool
    empty: bool
    history: Pending | None = None


def _history_source(staged: dict[str, str], ids: str) -> str:
    """The fold's history rows as the table's columns (21 million nationally, never copied
    whole: read by the diff, or by the first fill's INSERT)."""
    return (
        "(SELECT i.id AS subject_id, r.seq::bigint AS seq, l.version_id, "
        "r.pos::smallint AS pos, DATE '0001-01-01' + (r.date - 1) AS date, r.boards, r.grade, "
        "r.factor, COALESCE(m.national_number, '')::varchar(20) AS partner, "
        "NULLIF(r.pad, 'NaN') AS pad "
        f"FROM {staged['history']} r JOIN {ids} i ON i.idx = r.subject "
        f"JOIN {staged['live']} l ON l.seq = r.seq LEFT JOIN {MEMBERS} m ON m.id = r.partner)"
    )


def _ids_job(cursor, name: str, staged: dict[str, str], counts: dict, *, freeze: bool) -> None:
    """Each subject the fold holds, with the id it has, or the id it will have (drawn from
    the table's sequence: the refold's transaction inserts it with that id)."""
    cursor.execute(f"DROP TABLE IF EXISTS {name}")
    cursor.execute(
        f"{table_create(name, beside=freeze)} AS SELECT s.idx, s.key, s.initial, "
        f"COALESCE(t.id, nextval(pg_get_serial_sequence('{SUBJECT}', 'id'))) AS id, "
        f"t.id IS NULL AS fresh "
        f"FROM {staged['subjects']} s LEFT JOIN {SUBJECT} t ON t.key = s.key"
    )
    cursor.execute(f"SELECT count(*) FILTER (WHERE fresh) FROM {name}")
    counts["fresh"] = cursor.fetchone()[0]
    cursor.execute(f"ANALYZE {name}")


def subjects_start(side, cursor, staged: dict[str, str]) -> SubjectsPending:
    """Begin comparing the subject tables with the fold's (``subjects_stage``'s staging
    tables): each subject's id, then the history's diff, on the second connection where this
    transaction has not written them (``untouched``), else here."""
    here = compare_here(side, cursor, (SUBJECT, HISTORY, MEMBERS))
    if not here:
        side.commit()  # the staging tables, for the jobs after it
    ids = Pending(side.name("subject_ids"))
    ids.done = job_run(side, cursor, _ids_job, ids.name, staged, ids.counts, here=here)
    return SubjectsPending(staged, ids, here, is_empty(cursor, HISTORY))


def history_diff_start(side, cursor, pending: SubjectsPending, *, here: bool = False) -> None:
    """The history's diff (none for an empty table), on the second connection, or on this
    one (``here``, or where this transaction wrote the subject tables first)."""
    if pending.empty:
        return
    staged, ids = pending.staged, pending.ids
    key = ("subject_id", "seq")
    select = diff_select(cursor, HISTORY, _history_source(staged, ids.name), key, _HISTORY_FIELDS)
    here = here or pending.here
    pending.history = diff_start(
        side, cursor, "history_diff", select, None, here=here, after=ids.done
    )


def subjects_place(cursor, side, pending: SubjectsPending) -> dict[str, int]:
    """The subject tables as the fold holds them (``subjects_start``'s diffs): subjects
    matched on their key (a player's number, a partnership's "a+b"), so their ids stay and
    an unchanged history row is not written again."""
    staged, ids = pending.staged, diff_wait(side, pending.ids).name
    written = {"subjects_deleted": 0, "subjects_updated": 0, "subjects_inserted": 0}
    if pending.ids.counts["fresh"]:
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
    history = diff_place(
        side,
        cursor,
        HISTORY,
        pending.history,  # None: the table was empty (a first fill)
        ("subject_id", "seq"),
        _HISTORY_FIELDS,
        source=_history_source(staged, ids),
    )
    for name, n in history.items():
        written[f"history_{name}"] = n
    cursor.execute(
        f"DELETE FROM {SUBJECT} t WHERE NOT EXISTS "
        f"(SELECT 1 FROM {staged['subjects']} s WHERE s.key = t.key)"
    )
    written["subjects_deleted"] = cursor.rowcount
    for name, n in merge(cursor, LIVE, staged["live"], ("version_id",), ("seq", "date")).items():
        written[f"live_{name}"] = n
    return written
