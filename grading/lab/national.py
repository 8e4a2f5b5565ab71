"""The national database builder (issue 17): a decade of a national union, written with
PostgreSQL COPY through psycopg and graded by the product's own refold.

``national_build`` streams the synthetic ledger of ``grading.lab.synthetic`` (clubs, regular and
pick-up partners, late uploads, corrections, withdrawals, careers, hosts, visitors) into the
tables the upload pipeline fills, chunk by chunk (bounded memory): clubs, members and their
club roles, events, sessions (each with its live version), session versions (the payload the
pipeline stores, ``grading.lab.payload``, and its fingerprint), pair results (without the
figures grading gives them), the ledger (process and withdraw entries, in sequence), the
schemes' log and the ledger head. Then:

* ``grading.ledger.replay.check.ledger_refold`` grades everything: session grades, pair figures,
  current and partnership grades, the subject tables (S5.4);
* ``grading.schemes.rebuild.run.schemes_rebuild``, when the product has it, rebuilds PPI (S10)
  and Brambledown (S11, every tenth club keeps it) from the schemes' log;
* ``ANALYZE``.

A version the engine would not grade (S14.9) is stored not graded with its reason, as the
pipeline stores it: no ledger entry (sequence numbers stay consecutive), yet in the schemes'
log (S14.17). Not written: uploads (the versions have none). ``replay --check`` passes on the
result. Run it on an empty, migrated database: ``manage.py national --players 50000
--sessions 400000``.
"""

from __future__ import annotations

import functools
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from clubs.models import Club, ClubRole
from grading.common.pgcopy import table_copy
from grading.engine.ngs import (
    ProcessOp,
    get_params,
    host_pair_of,
    known_pairs,
    why_not_graded,
)
from grading.lab.bulkload import (
    Clock,
    Timed,
    bulk_settings,
    every,
    foreign_keys_check,
    indexes_drop,
    sequences_reset,
)
from grading.lab.payload import payload_json
from grading.lab.synthetic import iter_synthetic_ledger
from grading.ledger.replay.check import ledger_refold
from grading.ledger.subjects import subjects_current, tables_mark
from grading.models import (
    CurrentGrade,
    Event,
    LedgerEntry,
    LedgerHead,
    LedgerHistory,
    PairResult,
    PartnershipGrade,
    Session,
    SessionGrade,
    SessionVersion,
)
from grading.models.schemes import (
    BrambledownGrade,
    BrambledownRating,
    PPIPoint,
    PPIRating,
    SchemeEntry,
)
from members.models import Member, new_pages_version

NATIONAL = {"players": 50_000, "clubs": 400, "sessions": 400_000, "years": 10}
CHUNK = 2_000  # session versions gathered before their rows are copied (bounded memory)
BRAMBLEDOWN_EVERY = 10  # clubs 1, 11, 21, ... keep Brambledown (S11)


def _table(model) -> str:
    return model._meta.db_table


COLUMNS: dict[str, tuple[str, tuple[str, ...]]] = {
    "members": (
        _table(Member),
        ("id", "national_number", "name", "grade_private", "created", "pages_version"),
    ),
    "roles": (_table(ClubRole), ("club_id", "member_id", "role")),
    "events": (_table(Event), ("id", "club_id", "event_id", "name")),
    "sessions": (_table(Session), ("id", "event_id", "number", "date", "start", "live_version_id")),
    "versions": (
        _table(SessionVersion),
        (
            "id",
            "session_id",
            "number",
            "scoring",
            "movement",
            "weighting",
            "boards",
            "content_hash",
            "payload",
            "state",
            "not_graded_reason",
            "known_pairs",
            "total_pairs",
            "late",
            "created",
            "grading_failed",
        ),
    ),
    "pairs": (
        _table(PairResult),
        (
            "version_id",
            "pair_id",
            "direction",
            "section",
            "team",
            "player1_id",
            "player1_name",
            "player2_id",
            "player2_name",
            "score",
            "boards",
            "direction_mean",
            "host",
            "known",
        ),
    ),
    "entries": (
        _table(LedgerEntry),
        ("id", "seq", "operation", "version_id", "params_name", "host_pair", "created"),
    ),
    "schemes": (
        _table(SchemeEntry),
        ("id", "seq", "operation", "version_id", "host_pair", "created"),
    ),
}
WRITTEN = (ClubRole, Event, Session, SessionVersion, PairResult, LedgerEntry, SchemeEntry)
GRADED_TABLES = {  # what the refold and the schemes write, counted for the report
    "grades": _table(SessionGrade),
    "current": _table(CurrentGrade),
    "partnerships": _table(PartnershipGrade),
    "history_rows": _table(LedgerHistory),
    "ppi_ratings": _table(PPIRating),
    "ppi_points": _table(PPIPoint),
    "brambledown_grades": _table(BrambledownGrade),
    "brambledown_ratings": _table(BrambledownRating),
}


@dataclass
class _Inputs:
    """What the stream has written so far, and the little it must remember: the members' and
    sessions' keys, and each version's key and session (for withdrawals and corrections)."""

    clubs: int
    params_name: str
    now: Any
    members: dict[str, int] = field(default_factory=dict)  # national number -> member id
    events: dict[tuple[int, str], int] = field(default_factory=dict)  # (club, event id) -> id
    sessions: dict[tuple, int] = field(default_factory=dict)  # (event, number, date) -> id
    versions: dict[str, tuple[int, int]] = field(default_factory=dict)  # name -> (id, session)
    numbers: dict[int, int] = field(default_factory=dict)  # session -> versions so far
    live: dict[int, int | None] = field(default_factory=dict)  # session -> live, if changed
    withdrawn: list[int] = field(default_factory=list)
    rows: dict[str, list[tuple]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    seq: int = 0  # the ledger's
    scheme_seq: int = 0  # the schemes' log's
    latest: Any = None  # the latest date of play graded so far (a later one is late, S5.2)
    not_graded: int = 0
    copy_seconds: float = 0.0
    payload_seconds: float = 0.0

    def add(self, table: str, row: tuple) -> None:
        self.rows.setdefault(table, []).append(row)

    def member(self, number: str) -> int:
        """The member id of a national number; the member (and a club role) queued for
        writing at first sight."""
        pk = self.members.get(number)
        if pk is None:
            pk = self.members[number] = len(self.members) + 1
            self.add(
                "members", (pk, number, f"Member {number}", False, self.now, new_pages_version())
            )
            self.add("roles", (_club_of(number, self.clubs), pk, ClubRole.Role.MEMBER))
        return pk

    def flush(self, cursor) -> None:
        t0 = time.perf_counter()
        for name, (table, columns) in COLUMNS.items():
            rows = self.rows.pop(name, None)
            if rows:
                self.counts[name] = self.counts.get(name, 0) + table_copy(
                    cursor, table, columns, rows
                )
        self.copy_seconds += time.perf_counter() - t0


def national_build(
    *,
    players: int,
    sessions: int,
    clubs: int,
    seed: int = 1,
    years: int = 10,
    params_name: str = "ngs-15a",
    grade: bool = True,
    log: Callable[[str], Any] = print,
) -> dict[str, Any]:
    """Build the database (empty, migrated) and return its counts and each phase's seconds:
    the inputs generated and copied (one transaction), the refold, the schemes, ANALYZE.
    ``grade=False`` stops after the inputs (to time them; ``manage.py replay`` then
    ``manage.py schemes_rebuild`` finish the database)."""
    began = time.perf_counter()
    if LedgerEntry.objects.exists() or Member.objects.exists() or Club.objects.exists():
        raise RuntimeError("the national builder needs an empty database (migrate a new one)")
    inputs = _Inputs(clubs=clubs, params_name=params_name, now=timezone.now())
    generated = Timed(iter_synthetic_ledger(players, sessions, seed, years))
    clock = Clock()
    with transaction.atomic():
        _inputs_copy(inputs, generated, log)
    clock.lap("inputs")
    log(f"national: inputs written in {clock.report['inputs_seconds']:.0f} s")
    # what the report needs of the inputs, kept; their keys (dicts of 400,000 versions and
    # sessions) let go before the refold, whose peak is the build's (issue 31: <= 2 GB)
    written = _inputs_summary(inputs)
    del inputs

    if grade:
        _refold(log)
        clock.lap("refold")

    rebuild, schemes = _schemes_rebuild(), None
    if grade and rebuild is None:
        log("national: PPI and Brambledown not rebuilt (grading.schemes.rebuild.run not available)")
    elif grade:
        log("national: rebuilding PPI and Brambledown")
        schemes = rebuild(progress=lambda line: log(f"national: schemes: {line}"))
        clock.lap("schemes")

    _vacuum_analyze()
    clock.lap("analyze")
    phases = clock.report
    head = LedgerHead.objects.get()
    return {
        "players": players,
        "clubs": clubs,
        "sessions": sessions,
        "seconds": time.perf_counter() - began,
        **phases,
        "inputs_generate_seconds": generated.seconds,
        "graded": grade,
        "schemes_rebuilt": schemes is not None,
        "schemes_log_kept": schemes["log_kept"] if schemes else None,
        "schemes_stage_seconds": schemes["seconds"] if schemes else None,
        "last_seq": head.last_seq,
        "subject_tables_current": subjects_current(head),
        **written,
        **_graded_counts(),
    }


def _vacuum_analyze() -> None:
    """The database as autovacuum leaves it after a bulk load: every table's statistics, and
    on PostgreSQL outside a transaction its dead rows pruned and its rows' visibility marked
    (``VACUUM (ANALYZE)``). Without it, on a server where autovacuum is off, the whole-ledger
    work after the build joins tables full of the build's dead rows (``replay --check`` and the
    same-set refold took 1.3 and 1.2 times as long; the cold pages pass did not change:
    docs/benchmarks.md, session 17).

    Then a CHECKPOINT, where the server allows it (a superuser, or the pg_checkpoint role):
    the pages the VACUUM dirtied are written, and its WAL is behind a checkpoint, before the
    first work after the build instead of in a checkpoint while that work runs (session 17's
    first uploads after the build had three stalls of 1.2-2.4 s while the server's log showed
    checkpoints)."""
    with connection.cursor() as cursor:
        if connection.vendor != "postgresql" or connection.in_atomic_block:
            cursor.execute("ANALYZE")
            return
        cursor.execute("VACUUM (ANALYZE)")
        try:
            cursor.execute("CHECKPOINT")
        except DatabaseError:  # not allowed to this role: the server's own checkpoints
            pass


def _inputs_summary(inputs: _Inputs) -> dict[str, Any]:
    return {
        "inputs_payload_seconds": inputs.payload_seconds,
        "inputs_copy_seconds": inputs.copy_seconds,
        "members": len(inputs.members),
        "not_graded": inputs.not_graded,
        "withdrawn": len(inputs.withdrawn),
        **inputs.counts,
    }


REFOLDED = (SessionGrade, LedgerHistory, PairResult, PartnershipGrade, CurrentGrade)


def _refold(log) -> None:
    """The product's refold, on a database that has no grades yet: the secondary indexes of
    the tables it fills are dropped first and built once after, and (where the server allows
    it) no foreign-key trigger runs per row; the keys are checked set-based after."""
    with transaction.atomic(), connection.cursor() as cursor:
        indexes = [d for model in REFOLDED for d in indexes_drop(cursor, _table(model))]
    unchecked = False
    try:
        with transaction.atomic(), connection.cursor() as cursor:  # kept after the commit
            cursor.execute("SET session_replication_role = replica")
        unchecked = True
    except DatabaseError:
        pass
    try:
        ledger_refold(progress=every(log, "refold", 50_000))
    finally:
        with transaction.atomic(), connection.cursor() as cursor:
            if unchecked:
                cursor.execute("SET session_replication_role = origin")
            for definition in indexes:
                cursor.execute(definition)
            if unchecked:
                foreign_keys_check(cursor, REFOLDED)


def _schemes_rebuild():
    try:
        from grading.schemes.rebuild.folder import PROCESSES
        from grading.schemes.rebuild.run import schemes_rebuild  # not in every checkout yet
    except ImportError:
        return None
    return functools.partial(schemes_rebuild, processes=PROCESSES)


def _graded_counts() -> dict[str, int]:
    counts = {}
    with connection.cursor() as cursor:
        for name, table in GRADED_TABLES.items():
            cursor.execute(f"SELECT count(*) FROM {table}")
            counts[name] = cursor.fetchone()[0]
    return counts


def _inputs_copy(inputs: _Inputs, ops, log) -> None:
    began = time.perf_counter()
    params = get_params(inputs.params_name)
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        unchecked = bulk_settings(cursor)
        indexes = indexes_drop(cursor, _table(PairResult))
        table_copy(
            cursor,
            _table(Club),
            (
                "id",
                "name",
                "slug",
                "national_number",
                "keeps_brambledown",
                "created",
                "pages_version",
            ),
            (
                (
                    i,
                    f"Club {i:03d}",
                    f"club-{i:03d}",
                    "",
                    i % BRAMBLEDOWN_EVERY == 1,
                    inputs.now,
                    new_pages_version(),
                )
                for i in range(1, inputs.clubs + 1)
            ),
        )
        pending = flushes = 0
        for op in ops:
            if isinstance(op, ProcessOp):
                _process(inputs, op, params)
                pending += 1
            else:
                _withdraw(inputs, op.version)
            if pending >= CHUNK:
                inputs.flush(cursor)
                pending, flushes = 0, flushes + 1
                if flushes % 25 == 0:
                    done = len(inputs.versions)
                    log(f"national: {done} versions, {time.perf_counter() - began:.0f} s")
        inputs.flush(cursor)
        _live_and_withdrawn(cursor, inputs)
        LedgerHead.objects.update_or_create(
            pk=1,
            defaults={
                "last_seq": inputs.seq,
                "reference_date": inputs.latest,
                "params_name": inputs.params_name,
            },
        )
        tables_mark(0, "")  # the subject tables are empty until the refold fills them
        sequences_reset(cursor, (Club, Member, *WRITTEN))
        if unchecked:
            cursor.execute("SET LOCAL session_replication_role = origin")
            foreign_keys_check(cursor, WRITTEN)
        # any foreign keys left to check, checked now, not at the commit: a caller's
        # transaction (tests) may go on to TRUNCATE a table with checks pending
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        for definition in indexes:  # built once, faster than row by row
            cursor.execute(definition)


def _club_of(number: str, clubs: int) -> int:
    return int(hashlib.blake2b(number.encode(), digest_size=4).hexdigest(), 16) % clubs + 1


def _process(inputs: _Inputs, op: ProcessOp, params) -> None:
    """A version as the pipeline stores it, and its ledger and schemes' log entries."""
    s = op.session
    first = next((p.number for pair in s.pairs for p in pair.players if p.number), None)
    club = _club_of(first, inputs.clubs) if first else 1
    event = inputs.events.get((club, s.key.event_id))
    if event is None:
        event = inputs.events[(club, s.key.event_id)] = len(inputs.events) + 1
        inputs.add("events", (event, club, s.key.event_id, s.event_name))
    key = (event, s.key.session, s.key.date)
    session = inputs.sessions.get(key)
    version = len(inputs.versions) + 1
    if session is None:  # a new session, written with its live version
        session = inputs.sessions[key] = len(inputs.sessions) + 1
        inputs.add("sessions", (session, event, s.key.session, s.key.date, s.start, version))
    else:
        inputs.live[session] = version
    inputs.versions[op.version] = (version, session)
    number = inputs.numbers[session] = inputs.numbers.get(session, 0) + 1
    reason = why_not_graded(s, params, op.host_pair)
    late = inputs.latest is not None and s.date < inputs.latest
    t0 = time.perf_counter()
    payload = payload_json(s)
    content_hash = hashlib.sha256(payload.encode()).hexdigest()
    inputs.payload_seconds += time.perf_counter() - t0
    if reason:
        inputs.not_graded += 1
        state = SessionVersion.State.NOT_GRADED.value
        known = known_pairs(s, host_pair_of(s, op.host_pair)[0])
    else:
        state, known = SessionVersion.State.GRADED.value, None  # the refold counts them
        if inputs.latest is None or s.date > inputs.latest:
            inputs.latest = s.date
    inputs.add(
        "versions",
        (
            version,
            session,
            number,
            s.scoring.value,
            s.movement.value,
            s.weighting,
            s.boards,
            content_hash,
            payload,
            state,
            reason[:255],
            known,
            len(s.pairs) if reason else None,
            late,
            inputs.now,
            False,  # graded or not graded by the rules: grading never raised here
        ),
    )
    member = inputs.member
    for pair in s.pairs:
        a, b = pair.players
        inputs.add(
            "pairs",
            (
                version,
                pair.pair_id,
                pair.direction.value if pair.direction else "",
                pair.section,
                pair.team,
                member(a.number) if a.number else None,
                a.name,
                member(b.number) if b.number else None,
                b.name,
                pair.score,
                pair.boards,
                pair.direction_mean,
                not (a.rateable and b.rateable),
                a.number is not None and b.number is not None,
            ),
        )
    _logged(inputs, "process", version, ledger=not reason)


def _withdraw(inputs: _Inputs, name: str) -> None:
    """A graded version withdrawn (the synthetic ledger only withdraws graded versions): its
    session has no live version until a correction follows."""
    version, session = inputs.versions[name]
    inputs.withdrawn.append(version)
    inputs.live[session] = None
    _logged(inputs, "withdraw", version, ledger=True)


def _logged(inputs: _Inputs, operation: str, version: int, *, ledger: bool) -> None:
    """The operation in the schemes' log, and in the ledger when the NGS grades the version
    (a version it does not grade has no ledger entry, S14.9, S14.17)."""
    if ledger:
        inputs.seq += 1
        inputs.add(
            "entries",
            (inputs.seq, inputs.seq, operation, version, inputs.params_name, "", inputs.now),
        )
    inputs.scheme_seq += 1
    inputs.add(
        "schemes", (inputs.scheme_seq, inputs.scheme_seq, operation, version, "", inputs.now)
    )


def _live_and_withdrawn(cursor, inputs: _Inputs) -> None:
    """The withdrawn versions marked, and the live version of each session a correction or a
    withdrawal changed."""
    cursor.execute(
        f"UPDATE {_table(SessionVersion)} SET state = %s WHERE id = ANY(%s)",
        [SessionVersion.State.WITHDRAWN.value, inputs.withdrawn],
    )
    changed = list(inputs.live.items())
    cursor.execute(
        f"UPDATE {_table(Session)} s SET live_version_id = l.v FROM unnest(%s::bigint[], "
        "%s::bigint[]) AS l(s, v) WHERE s.id = l.s",
        [[s for s, _ in changed], [v for _, v in changed]],
    )
