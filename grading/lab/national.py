"""The national database builder (issue 17): a decade of a national union, graded by the
engine and written with PostgreSQL COPY through psycopg, never one ORM save per row.

``national_build`` folds the synthetic ledger of ``grading.lab.synthetic`` (clubs, regular and
pick-up partners, late uploads, corrections, withdrawals, careers, hosts, visitors) with the
fast path, and writes what the upload pipeline and the fold would have written for it: clubs
and their members, events, sessions, graded and withdrawn versions (the engine's payload), pair
figures, the ledger, session grades, current and partnership grades, and the subject tables a
grading step reads (``grading.ledger.subjects``). ``replay --check`` passes on the result.

Not written: uploads (the versions have none), PPI and Brambledown, versions the engine would
not grade (the synthetic ledger's few are skipped, with their sequence numbers). Run it on an
empty, migrated database: ``manage.py national --players 50000 --sessions 400000``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from clubs.models import Club, ClubRole
from grading.engine import codec
from grading.engine.ngs import (
    ProcessOp,
    ReplayState,
    StepResult,
    apply,
    get_params,
    partnership_subject,
    why_not_graded,
)
from grading.lab.synthetic import iter_synthetic_ledger
from grading.ledger.store import CURRENT_GRADE_FIELDS
from grading.ledger.subjects import subjects_copy, table_copy
from grading.models import (
    CurrentGrade,
    Event,
    LedgerEntry,
    LedgerHead,
    PairResult,
    PartnershipGrade,
    Session,
    SessionGrade,
    SessionVersion,
)
from members.models import Member, new_pages_version

NATIONAL = {"players": 50_000, "clubs": 400, "sessions": 400_000, "years": 10}


def _table(model) -> str:
    return model._meta.db_table


@dataclass
class _Build:
    clubs: int
    params_name: str
    now: dt.datetime
    members: dict[str, int] = field(default_factory=dict)  # national number -> member id
    events: dict[tuple[int, str], int] = field(default_factory=dict)
    sessions: dict[tuple, list[int]] = field(default_factory=dict)  # key -> [id, versions, live]
    versions: dict[str, int] = field(default_factory=dict)  # engine version -> version id
    withdrawn: list[int] = field(default_factory=list)
    rows: dict[str, list[tuple]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    def member(self, number: str) -> int:
        """The member id of a national number, the member (and their club role) queued for
        writing at first sight."""
        pk = self.members.get(number)
        if pk is None:
            pk = self.members[number] = len(self.members) + 1
            self.add(
                "members", (pk, number, f"Member {number}", False, self.now, new_pages_version())
            )
            self.add("roles", (_club_of(number, self.clubs), pk, ClubRole.Role.MEMBER))
        return pk

    def add(self, table: str, row: tuple) -> None:
        self.rows.setdefault(table, []).append(row)


COLUMNS: dict[str, tuple[str, tuple[str, ...]]] = {
    "members": (
        _table(Member),
        ("id", "national_number", "name", "grade_private", "created", "pages_version"),
    ),
    "roles": (_table(ClubRole), ("club_id", "member_id", "role")),
    "events": (_table(Event), ("id", "club_id", "event_id", "name")),
    "sessions": (_table(Session), ("id", "event_id", "number", "date", "start")),
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
            "sof",
            "known_pairs",
            "total_pairs",
            "late",
            "created",
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
            "score_term",
            "sopp",
            "par",
            "excess",
        ),
    ),
    "entries": (
        _table(LedgerEntry),
        ("id", "seq", "operation", "version_id", "params_name", "host_pair", "created"),
    ),
    "grades": (
        _table(SessionGrade),
        (
            "entry_id",
            "version_id",
            "member_id",
            "partner_id",
            "date",
            "pair_id",
            "grade_before",
            "partner_grade",
            "sopp",
            "score_term",
            "excess",
            "regular_adjustment",
            "gain",
            "par",
            "boards",
            "boards_reported",
            "factor",
            "session_grade",
            "grade_after",
            "reason",
            "live",
        ),
    ),
    "current": (
        _table(CurrentGrade),
        ("member_id", *CURRENT_GRADE_FIELDS),
    ),
    "partnerships": (
        _table(PartnershipGrade),
        (
            "member_a_id",
            "member_b_id",
            "grade",
            "first_value",
            "boards_in_window",
            "boards_together",
            "sessions_together",
            "last_played",
            "shown",
            "as_of",
            "seq",
        ),
    ),
}
CHUNK = 50_000  # session grades gathered before a COPY (bounded memory)


def national_build(
    *,
    players: int,
    sessions: int,
    clubs: int,
    seed: int = 1,
    years: int = 10,
    params_name: str = "ngs-15a",
    log: Callable[[str], Any] = print,
) -> dict[str, Any]:
    """Build the database (empty, migrated; all in one transaction) and return its counts and
    timings."""
    began = time.perf_counter()
    if LedgerEntry.objects.exists() or Member.objects.exists() or Club.objects.exists():
        raise RuntimeError("the national builder needs an empty database (migrate a new one)")
    build = _Build(clubs=clubs, params_name=params_name, now=timezone.now())
    state = ReplayState(get_params(params_name), "fast")
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        table_copy(
            cursor,
            _table(Club),
            ("id", "name", "slug", "national_number", "keeps_brambledown", "created"),
            (
                (i, f"Club {i:03d}", f"club-{i:03d}", "", False, build.now)
                for i in range(1, clubs + 1)
            ),
        )
        for op in iter_synthetic_ledger(players, sessions, seed, years):
            if isinstance(op, ProcessOp) and why_not_graded(op.session, state.params):
                continue  # never reaches the ledger (S14.9)
            if isinstance(op, ProcessOp):  # the engine's version names become version ids
                build.versions[op.version] = len(build.versions) + 1
            op = dataclasses.replace(op, version=str(build.versions[op.version]))
            step = apply(state, op)
            state.steps.clear()
            if isinstance(op, ProcessOp):
                _process(build, op, step)
            else:
                build.withdrawn.append(int(op.version))
                build.add(
                    "entries",
                    (op.seq, op.seq, "withdraw", int(op.version), params_name, "", build.now),
                )
            if len(build.rows.get("grades", ())) >= CHUNK:
                _flush(cursor, build)
                log(f"national: ledger entry {op.seq}, {time.perf_counter() - began:.0f} s")
        folded = time.perf_counter() - began
        log(f"national: ledger folded in {folded:.0f} s; writing grades and subject tables")
        _grades(build, state)
        _flush(cursor, build)
        _withdrawals_and_live(cursor, build)
        build.counts["history_rows"] = subjects_copy(cursor, state, first_id=1)
        LedgerHead.objects.update_or_create(
            pk=1,
            defaults={
                "last_seq": state.last_seq,
                "reference_date": state.latest_date(),
                "params_name": params_name,
                "tables_seq": state.last_seq,
                "tables_params": params_name,
            },
        )
        _sequences(cursor)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return {
        "players": players,
        "clubs": clubs,
        "sessions": sessions,
        "seconds": time.perf_counter() - began,
        "fold_seconds": folded,
        "last_seq": state.last_seq,
        **build.counts,
    }


def _flush(cursor, build: _Build) -> None:
    for name, (table, columns) in COLUMNS.items():
        rows = build.rows.pop(name, [])
        if rows:
            build.counts[name] = build.counts.get(name, 0) + table_copy(
                cursor, table, columns, rows
            )


def _club_of(number: str, clubs: int) -> int:
    return int(hashlib.blake2b(number.encode(), digest_size=4).hexdigest(), 16) % clubs + 1


def _process(build: _Build, op: ProcessOp, step: StepResult) -> None:
    session = op.session
    outcome = step.outcome
    assert outcome is not None
    first = next(p.number for pair in session.pairs for p in pair.players if p.number)
    club = _club_of(first, build.clubs)
    event = build.events.get((club, session.key.event_id))
    if event is None:
        event = build.events[(club, session.key.event_id)] = len(build.events) + 1
        build.add("events", (event, club, session.key.event_id, session.event_name))
    skey = (event, session.key.session, session.key.date)
    known = build.sessions.get(skey)
    if known is None:
        known = build.sessions[skey] = [len(build.sessions) + 1, 0, 0]
        build.add(
            "sessions", (known[0], event, session.key.session, session.key.date, session.start)
        )
    version = int(op.version)
    known[1] += 1
    known[2] = version
    payload = json.dumps(codec.dump(session), separators=(",", ":"))
    build.add(
        "versions",
        (
            version,
            known[0],
            known[1],
            session.scoring.value,
            session.movement.value,
            session.weighting,
            next((p.boards for p in session.pairs if p.boards), None),
            hashlib.sha256(payload.encode()).hexdigest(),
            payload,
            SessionVersion.State.GRADED.value,
            "",
            outcome.sof,
            outcome.known_pairs,
            outcome.total_pairs,
            step.reference_date > session.date,
            build.now,
        ),
    )
    figures = {p.pair_id: p for p in outcome.pairs}
    for pair in session.pairs:
        a, b = pair.players
        f = figures.get(pair.pair_id)
        build.add(
            "pairs",
            (
                version,
                pair.pair_id,
                pair.direction.value if pair.direction else "",
                "",
                "",
                build.member(a.number) if a.number else None,
                a.name,
                build.member(b.number) if b.number else None,
                b.name,
                pair.score,
                pair.boards,
                pair.direction_mean,
                bool(f and f.host),
                bool(f and f.known),
                f.score_term if f else None,
                f.sopp if f else None,
                f.par if f else None,
                f.excess if f else None,
            ),
        )
    build.add(
        "entries",
        (op.seq, op.seq, "process", version, build.params_name, op.host_pair or "", build.now),
    )
    after = {g.subject: g.grade for g in step.current_grades}
    for r in outcome.players:
        build.add(
            "grades",
            (
                op.seq,
                version,
                build.member(r.number),
                build.member(r.partner) if r.partner else None,
                session.date,
                r.pair_id,
                r.grade_before,
                r.partner_grade,
                r.sopp,
                r.score_term,
                r.excess,
                r.regular_adjustment,
                r.gain,
                r.par,
                r.boards,
                r.boards_reported,
                r.factor,
                r.session_grade,
                after.get(r.number),
                r.reason,
                True,
            ),
        )


def _grades(build: _Build, state: ReplayState) -> None:
    """Every current and partnership grade as of the ledger's reference date (what the
    nightly refresh stores)."""
    as_of = state.latest_date()
    if as_of is None:
        return
    for number, history in state.players.items():
        if not history.session_count():
            continue
        g = history.grade(as_of, state.params, subject=number)
        build.add(
            "current",
            (
                build.member(number),
                g.grade,
                g.status.value,
                g.band,
                g.boards_in_window,
                g.sessions_in_window,
                history.initial,
                history.last_date(),
                as_of,
                state.last_seq,
            ),
        )
    for (a, b), history in state.partnerships.items():
        if not history.session_count():
            continue
        g = history.grade(as_of, state.params, subject=partnership_subject((a, b)))
        build.add(
            "partnerships",
            (
                build.member(a),
                build.member(b),
                g.grade,
                history.initial,
                g.boards_in_window,
                history.graded_boards(),
                history.session_count(),
                history.last_date(),
                g.status.value != CurrentGrade.Status.PROVISIONAL,
                as_of,
                state.last_seq,
            ),
        )


def _withdrawals_and_live(cursor, build: _Build) -> None:
    """Withdrawn versions and their session grades marked; each session's live version."""
    cursor.execute(
        f"UPDATE {_table(SessionVersion)} SET state = %s WHERE id = ANY(%s)",
        [SessionVersion.State.WITHDRAWN.value, build.withdrawn],
    )
    cursor.execute(
        f"UPDATE {_table(SessionGrade)} SET live = false WHERE version_id = ANY(%s)",
        [build.withdrawn],
    )
    gone = set(build.withdrawn)
    live = [(sid, v) for sid, _, v in build.sessions.values() if v not in gone]
    cursor.execute(
        f"UPDATE {_table(Session)} s SET live_version_id = l.v FROM unnest(%s::bigint[], "
        "%s::bigint[]) AS l(s, v) WHERE s.id = l.s",
        [[s for s, _ in live], [v for _, v in live]],
    )


def _sequences(cursor) -> None:
    for model in (Club, Member, ClubRole, Event, Session, SessionVersion, PairResult, LedgerEntry):
        table = _table(model)
        cursor.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
            f"coalesce((SELECT max(id) FROM {table}), 0) + 1, false)"
        )
    for model in (SessionGrade, CurrentGrade, PartnershipGrade):
        table = _table(model)
        cursor.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
            f"coalesce((SELECT max(id) FROM {table}), 0) + 1, false)"
        )
