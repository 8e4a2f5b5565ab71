"""The fold's state in the database, per subject (S5.2-S5.4, S14.6): a grading step reads only
the subjects it touches, never the whole ledger (docs/ngs.md, "Stateless grading steps").

Three tables hold exactly what the engine's ``ReplayState`` holds between operations:
``LedgerSubject`` (each player's and partnership's initial grade), ``LedgerHistory`` (each live
``HistoryEntry``) and ``LedgerLive`` (each live version's sequence number and date). A step loads
a ``ReplayState`` restricted to its subjects (``step_reads.subjects_state``), the engine's ``apply`` performs
the operation on it, and ``subjects_store`` writes back what the operation changed. The tables
are a function of the ledger and the parameter set (``LedgerTables``, written with them, says
which); ``subjects_rebuild`` folds the ledger once to refill them (a
database migrated from before them, or a change of parameter set before its refold).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Sequence

from django.conf import settings
from django.db import connection

from grading.common.pgcopy import table_copy
from grading.engine.ngs import (
    NGSParams,
    ProcessOp,
    ReplayState,
    StepResult,
    WithdrawOp,
    apply,
    get_params,
    partnership_subject,
)
from grading.engine.ngs.incremental import IncrementalHistory
from grading.engine.ngs.ledger import (
    CHECK_TOLERANCE,
    LiveVersion,
    ReferenceHistory,
    SubjectHistory,
)
from grading.engine.ngs.types import CurrentGrade, HistoryEntry, PartnershipKey
from grading.engine.types import SessionResult
from grading.models import LedgerHead, LedgerHistory, LedgerLive, LedgerSubject, LedgerTables

SUBJECT = LedgerSubject._meta.db_table
HISTORY = LedgerHistory._meta.db_table
LIVE = LedgerLive._meta.db_table
TABLES = LedgerTables._meta.db_table

# How many subject and history rows the loads of this process have read: the test that a
# worker grades without reading the whole ledger counts them (tests/test_worker_warm.py).
rows_read = 0


def session_subjects(session: SessionResult) -> tuple[list[str], list[PartnershipKey]]:
    """The players and partnerships a session can touch: every numbered player, every pair of
    two numbered players (the engine decides which of them it grades)."""
    players: dict[str, None] = {}
    keys: dict[PartnershipKey, None] = {}
    for pair in session.pairs:
        a, b = (p.number for p in pair.players)
        for n in (a, b):
            if n is not None:
                players[n] = None
        if a is not None and b is not None:
            keys[(a, b) if a <= b else (b, a)] = None
    return list(players), list(keys)


HISTORY_FIELDS = ("seq", "date", "boards", "grade", "factor", "partner", "pad", "version_id")
ROW_DATE, ROW_BOARDS, ROW_VERSION = 1, 2, 7  # positions in a row of HISTORY_FIELDS


def row_order(row: tuple) -> tuple:
    return (row[ROW_DATE], row[0])


def history_rows(history, own: list[tuple]) -> dict[int, list[tuple]]:
    """``history``'s rows (and the rows ``own``) by subject, in date order."""
    rows: dict[int, list[tuple]] = {}
    for pk, *row in history.order_by("subject_id", "date", "seq").values_list(
        "subject_id", *HISTORY_FIELDS, "pos"
    ):
        rows.setdefault(pk, []).append(tuple(row))
    rows_count(sum(len(r) for r in rows.values()) + len(own))
    for pk, *row in own:
        rows.setdefault(pk, []).append(tuple(row))
    if own:
        for pk in {row[0] for row in own}:
            rows[pk].sort(key=row_order)
    return rows


def rows_count(n: int) -> None:
    global rows_read
    rows_read += n


def rows_of(subjects: list[tuple[int, str, float]], rows: dict[int, list[tuple]]):
    """(key, initial, seq, date, boards, grade, factor, partner, pad, version, pos) for each
    row of ``rows`` of ``subjects`` (id, key, initial); all None after the initial for a
    subject with no row."""
    empty = (None,) * (len(HISTORY_FIELDS) + 1)
    for pk, key, initial in sorted(subjects):
        for row in rows.get(pk, [empty]):
            yield (key, initial, *row)


def _rows(subjects: list[tuple[int, str, float]]) -> Iterator[tuple]:
    """Every history row of ``subjects`` (id, key, initial), as ``rows_of`` gives them: the
    nightly refresh's batches and the tables' check read whole histories. Two queries."""
    rows_count(len(subjects))
    history = LedgerHistory.objects.filter(subject_id__in=[pk for pk, _, _ in subjects])
    yield from rows_of(subjects, history_rows(history, []))


def state_fill(
    state: ReplayState,
    rows: Iterable[tuple],
    withdrawn: int | None,
    live: tuple[int, dt.date] | None = None,
) -> None:
    mine: list[tuple[int, str]] = []  # (pos, key) of the withdrawn version's subjects
    for key, initial, seq, date, boards, grade, factor, partner, pad, version, pos in rows:
        pkey = subject_partnership(key)
        histories = state.players if pkey is None else state.partnerships
        history = histories.get(pkey or key)
        if history is None:
            history = histories[pkey or key] = state.new_history(initial)
        if seq is None:  # a subject whose every session has been withdrawn
            continue
        history.add(HistoryEntry(seq, date, boards, grade, factor, partner or None, pad))
        if version == withdrawn:
            mine.append((pos, key))
    if withdrawn is None or live is None:  # not live: the engine refuses the operation
        return
    mine.sort()
    players = tuple(k for _, k in mine if "+" not in k)
    keys = tuple(subject_partnership(k) for _, k in mine if "+" in k)
    state.live[str(withdrawn)] = LiveVersion(live[0], live[1], players, keys)  # type: ignore[arg-type]


def subject_partnership(key: str) -> PartnershipKey | None:
    if "+" not in key:
        return None
    a, b = key.split("+", 1)
    return (a, b)


def subjects_store(step: StepResult, state: ReplayState) -> None:
    """Write back what ``step`` changed in ``state``'s subject histories (the step path's
    partial state, or the whole fold of a refold). Idempotent per step: a refold rewrites the
    same rows."""
    version = int(step.version)
    LedgerHistory.objects.filter(version_id=version).delete()
    LedgerLive.objects.filter(version_id=version).delete()
    if step.kind == "process":
        _store_process(step, state, version)
    tables_mark(step.seq, state.params.name)


def tables_mark(seq: int, params: str) -> None:
    """Record that the subject tables are the fold of the ledger up to ``seq`` with ``params``,
    in the transaction that wrote them."""
    with connection.cursor() as cursor:  # one statement, in whichever transaction is open
        cursor.execute(
            f"INSERT INTO {TABLES} (id, seq, params) VALUES (1, %s, %s) ON CONFLICT (id) "
            "DO UPDATE SET seq = excluded.seq, params = excluded.params",
            [seq, params],
        )


def tables_marked() -> tuple[int, str]:
    """(seq, params) of what the subject tables hold; (0, "") before anything was folded."""
    row = LedgerTables.objects.filter(pk=1).values_list("seq", "params").first()
    return row if row is not None else (0, "")


def _store_process(step: StepResult, state: ReplayState, version: int) -> None:
    live = state.live.get(step.version)
    if live is None:  # not graded: the version is not live and changed no history
        return
    subjects = [(g.subject, state.players[g.subject].initial) for g in step.current_grades]
    subjects += [(partnership_subject(k), state.partnerships[k].initial) for k in live.partnerships]
    made = LedgerSubject.objects.bulk_create(
        [LedgerSubject(key=key, initial=initial) for key, initial in subjects],
        update_conflicts=True,
        unique_fields=["key"],
        update_fields=["initial"],
    )
    ids = {row.key: row.pk for row in made}
    rows = [
        _row(ids[number], version, pos, state.players[number], step.seq)
        for pos, number in enumerate(live.players)
    ]
    rows += [
        _row(ids[partnership_subject(key)], version, pos, state.partnerships[key], step.seq)
        for pos, key in enumerate(live.partnerships, start=len(live.players))
    ]
    LedgerHistory.objects.bulk_create(rows)
    LedgerLive.objects.create(version_id=version, seq=live.seq, date=live.date)


def _new_entry(history: SubjectHistory, seq: int) -> HistoryEntry:
    """The entry ``seq`` added to ``history``, found without rebuilding the history (a refold
    stores every step from the fast path's window state: building each touched history's
    whole entry list at each step would make the refold quadratic)."""
    if isinstance(history, IncrementalHistory) and history._state is not None:
        window = history._state
        i = window.s.index(seq)
        return HistoryEntry(
            seq,
            dt.date.fromordinal(window.d[i]),
            window.x[i],
            window.g[i],
            window.f[i],
            window.partner[i],
            window.pad[i],
        )
    entries = history.entries if isinstance(history, ReferenceHistory) else history._pending
    return next(e for e in reversed(entries) if e.seq == seq)


def _row(
    subject_id: int, version: int, pos: int, history: SubjectHistory, seq: int
) -> LedgerHistory:
    entry = _new_entry(history, seq)
    return LedgerHistory(
        subject_id=subject_id,
        version_id=version,
        pos=pos,
        seq=entry.seq,
        date=entry.date,
        boards=entry.boards,
        grade=entry.grade,
        factor=entry.factor,
        partner=entry.partner or "",
        pad=entry.pad,
    )


def subjects_current(head: LedgerHead) -> bool:
    """Whether the subject tables are the fold of the ledger up to its head, with its set."""
    seq, params = tables_marked()
    return seq == head.last_seq and (params == head.params_name or head.last_seq == 0)


def subjects_rebuild(head: LedgerHead, ops: Iterable[ProcessOp | WithdrawOp]) -> int:
    """Refill the subject tables by folding ``ops`` (the whole ledger, in order) with the head's
    set: once after a migration from before the tables, or after a change of parameter set that
    no refold has followed yet. Holds the ledger lock (the caller's). Returns the last seq."""
    params = get_params(head.params_name)
    state = ReplayState(params, "fast")
    for op in ops:
        apply(state, op)
        state.steps.clear()
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {HISTORY}")
        cursor.execute(f"DELETE FROM {LIVE}")
        cursor.execute(f"DELETE FROM {SUBJECT}")
        subjects_copy(cursor, state, first_id=1)
    tables_mark(state.last_seq, params.name)
    return state.last_seq


def subjects_copy(cursor, state: ReplayState, first_id: int) -> int:
    """Write a whole fold's subjects, histories and live versions with COPY (the refill, and
    the national database builder); subject ids from ``first_id``. Returns the history rows."""
    subjects = [(n, h) for n, h in state.players.items()]
    subjects += [(partnership_subject(k), h) for k, h in state.partnerships.items()]
    ids = {key: first_id + i for i, (key, _) in enumerate(subjects)}
    table_copy(
        cursor,
        SUBJECT,
        ("id", "key", "initial"),
        ((ids[key], key, h.initial) for key, h in subjects),
    )
    if connection.vendor == "postgresql":
        cursor.execute(
            f"SELECT setval(pg_get_serial_sequence('{SUBJECT}', 'id'), %s)",
            [first_id + len(subjects)],
        )
    positions: dict[tuple[str, int], int] = {}  # (key, seq) -> pos in its version
    for live in state.live.values():
        keys = [*live.players, *(partnership_subject(k) for k in live.partnerships)]
        for pos, key in enumerate(keys):
            positions[(key, live.seq)] = pos
    versions = {live.seq: int(v) for v, live in state.live.items()}
    rows = (
        (
            ids[key],
            versions[e.seq],
            e.seq,
            positions[(key, e.seq)],
            e.date,
            e.boards,
            e.grade,
            e.factor,
            e.partner or "",
            e.pad,
        )
        for key, history in subjects
        for e in history.history().entries
    )
    columns = ("subject_id", "version_id", "seq", "pos", "date", "boards", "grade", "factor")
    written = table_copy(cursor, HISTORY, (*columns, "partner", "pad"), rows)
    table_copy(
        cursor,
        LIVE,
        ("version_id", "seq", "date"),
        ((int(v), x.seq, x.date) for v, x in state.live.items()),
    )
    return written


def subjects_grades(
    params: NGSParams, as_of: dt.date, batch: int = 2000, *, players_only: bool = False
) -> Iterator[tuple[str, CurrentGrade, SubjectHistory]]:
    """Every subject with a live session, its grade as of ``as_of`` and its history, read
    from the subject tables ``batch`` subjects at a time: the nightly refresh and grades as of
    a date without a fold of the ledger, in memory bounded by one batch of histories.
    Partnership subjects are "a+b" (``players_only``: players alone)."""
    subjects = LedgerSubject.objects.all()
    if players_only:
        subjects = subjects.exclude(key__contains="+")
    after = 0
    while True:
        batch_rows = list(
            subjects.filter(pk__gt=after).order_by("pk").values_list("id", "key", "initial")[:batch]
        )
        if not batch_rows:
            return
        state = ReplayState(params, settings.GRADING_ENGINE_PATH)
        state_fill(state, _rows(batch_rows), None)
        for number, history in state.players.items():
            if history.session_count():
                yield number, history.grade(as_of, params, subject=number), history
        for key, history in state.partnerships.items():
            if history.session_count():
                subject = partnership_subject(key)
                yield subject, history.grade(as_of, params, subject=subject), history
        after = batch_rows[-1][0]


def subjects_problems(state: ReplayState, tol: float = CHECK_TOLERANCE) -> list[str]:
    """Every difference between the subject tables and ``state``, a fold of the whole ledger
    (for ``replay --check``): an empty list means the next step reads what the fold holds."""
    stored = ReplayState(state.params, "reference")
    everyone = list(LedgerSubject.objects.values_list("id", "key", "initial"))
    state_fill(stored, _rows(everyone), None)
    problems: list[str] = []
    for name, mine, theirs in (
        ("player", stored.players, state.players),
        ("partnership", stored.partnerships, state.partnerships),
    ):
        for key in mine.keys() - theirs.keys():
            problems.append(f"{name} {key}: in the subject tables, not in the fold")
        for key in theirs.keys() - mine.keys():
            problems.append(f"{name} {key}: in the fold, not in the subject tables")
        for key in mine.keys() & theirs.keys():
            a, b = mine[key].history(), theirs[key].history()
            if abs(a.initial - b.initial) > tol:
                problems.append(f"{name} {key}: initial grade {a.initial} != {b.initial}")
            if not _same_entries(a.entries, b.entries, tol):
                problems.append(f"{name} {key}: live history differs")
    live = dict(LedgerLive.objects.values_list("version_id", "date"))
    if live != {int(v): x.date for v, x in state.live.items()}:
        problems.append("live versions differ between the subject tables and the fold")
    return problems


def _same_entries(a: Sequence[HistoryEntry], b: Sequence[HistoryEntry], tol: float) -> bool:
    """The same entries, the figures within ``tol`` (the fast path's sums differ from the
    reference's in the last bits)."""
    if len(a) != len(b):
        return False
    for x, y in zip(sorted(a, key=_by_seq), sorted(b, key=_by_seq), strict=True):
        if (x.seq, x.date, x.boards, x.partner) != (y.seq, y.date, y.boards, y.partner):
            return False
        if abs(x.grade - y.grade) > tol or abs(x.factor - y.factor) > tol:
            return False
        if (x.pad is None) != (y.pad is None) or abs((x.pad or 0.0) - (y.pad or 0.0)) > tol:
            return False
    return True


def _by_seq(entry: HistoryEntry) -> int:
    return entry.seq


__all__ = [
    # what a step reads of the tables (grading.ledger.step_reads)
    "HISTORY_FIELDS",
    "ROW_BOARDS",
    "ROW_DATE",
    "ROW_VERSION",
    "history_rows",
    "row_order",
    "rows_count",
    "rows_of",
    "state_fill",
    "subject_partnership",
    "session_subjects",
    "subjects_problems",
    "subjects_current",
    "subjects_grades",
    "subjects_rebuild",
    "subjects_copy",
    "subjects_store",
    "tables_mark",
    "tables_marked",
]
