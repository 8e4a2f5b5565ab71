"""Whole-ledger operations on a database (issue 18): a synthetic ledger written straight into
the tables (members, sessions, versions with their pairs, ledger entries; not through the upload
service, which would take hours at national scale), then the product's own operations timed on
it: reading the ledger's columns, ``replay --check``, the refold. Not product code.

``manage.py shell -c "from grading.lab.ledgerdb import main; main(['PLAYERS', 'SESSIONS'])"``
(with ``DATABASE_URL`` naming an empty, migrated database) loads, refolds, checks and prints
one JSON object with ``db_read_seconds``, ``refold_seconds``, ``replay_check_seconds`` and
``peak_rss_mb``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from typing import Any

from clubs.models import Club
from grading.engine import codec
from grading.engine.ngs import ProcessOp
from grading.engine.ngs.ledger import LedgerOp
from grading.lab.bench import peak_rss_mb
from grading.lab.synthetic import iter_synthetic_ledger
from grading.ledger.replay.check import check_engine, ledger_check, ledger_refold
from grading.ledger.replay.compare import last_stats
from grading.ledger.replay.read import read_seconds
from grading.models import Event, LedgerEntry, LedgerHead, PairResult, Session, SessionVersion
from members.models import Member


def load_ledger(ops: Iterable[LedgerOp], *, batch: int = 2000) -> int:
    """Write a ledger's versions and entries into an empty database, as uploads would have
    left them before grading (the refold grades them). Returns the entries written."""
    club = Club.objects.create(name="Synthetic", slug="synthetic", national_number="999999")
    members: dict[str, int] = {}
    events: dict[str, Event] = {}
    versions: dict[str, SessionVersion] = {}
    numbered: dict[tuple[str, Any], int] = {}
    count = 0

    def flush(pending: list[tuple[LedgerOp, Any]]) -> None:
        numbers = {
            p.number
            for op, _ in pending
            if isinstance(op, ProcessOp)
            for pair in op.session.pairs
            for p in pair.players
            if p.number is not None and p.number not in members
        }
        Member.objects.bulk_create(Member(national_number=n, name=f"Player {n}") for n in numbers)
        for pk, n in Member.objects.filter(national_number__in=numbers).values_list(
            "pk", "national_number"
        ):
            members[n] = pk
        sessions = []
        for op, _ in pending:
            if isinstance(op, ProcessOp):
                key = op.session.key
                event = events.get(key.event_id)
                if event is None:
                    event = events[key.event_id] = Event.objects.create(
                        club=club, event_id=key.event_id, name=op.session.event_name
                    )
                n = numbered[(key.event_id, key.date)] = (
                    numbered.get((key.event_id, key.date), 0) + 1
                )
                sessions.append(Session(event=event, number=n, date=key.date))
        Session.objects.bulk_create(sessions)
        made = []
        it = iter(sessions)
        for op, _ in pending:
            if isinstance(op, ProcessOp):
                s = op.session
                v = SessionVersion(
                    session=next(it),
                    number=1,
                    scoring=s.scoring.value,
                    movement=s.movement.value,
                    weighting=s.weighting,
                    content_hash=codec.fingerprint(s),
                    payload=codec.dump(s),
                )
                versions[op.version] = v
                made.append(v)
        SessionVersion.objects.bulk_create(made)
        PairResult.objects.bulk_create(
            PairResult(
                version=versions[op.version],
                pair_id=pair.pair_id,
                direction=pair.direction.value if pair.direction else "",
                player1_id=members.get(pair.players[0].number or ""),
                player2_id=members.get(pair.players[1].number or ""),
                score=pair.score,
                boards=pair.boards,
                direction_mean=pair.direction_mean,
                host=not pair.rateable,
                known=pair.known,
            )
            for op, _ in pending
            if isinstance(op, ProcessOp)
            for pair in op.session.pairs
        )
        LedgerEntry.objects.bulk_create(
            LedgerEntry(
                seq=op.seq,
                operation="process" if isinstance(op, ProcessOp) else "withdraw",
                version=versions[op.version],
                params_name="ngs-15a",
                host_pair=getattr(op, "host_pair", None) or "",
            )
            for op, _ in pending
        )
        pending.clear()

    pending: list[tuple[LedgerOp, Any]] = []
    last = 0
    for op in ops:
        pending.append((op, None))
        count += 1
        last = op.seq
        if len(pending) >= batch:
            flush(pending)
    flush(pending)
    LedgerHead.objects.update_or_create(pk=1, defaults={"last_seq": last, "params_name": "ngs-15a"})
    return count


def ledger_db_benchmark(players: int, sessions: int, seed: int = 1) -> dict[str, Any]:
    """Load the synthetic ledger, then time the refold, the columns read and the check."""
    t0 = time.perf_counter()
    entries = load_ledger(iter_synthetic_ledger(players, sessions, seed))
    load = time.perf_counter() - t0
    t0 = time.perf_counter()
    ledger_refold()
    refold = time.perf_counter() - t0
    db_read = read_seconds()
    t0 = time.perf_counter()
    cpu0 = time.process_time()
    problems = ledger_check()
    check = time.perf_counter() - t0
    stats = last_stats["check"]
    return {
        "players": players,
        "sessions": sessions,
        "entries": entries,
        "load_seconds": load,
        "refold_seconds": refold,
        "db_read_seconds": db_read,
        "replay_check_seconds": check,
        "replay_check_cpu_seconds": time.process_time() - cpu0,
        "replay_check_read_seconds": stats.read_seconds,
        "check_engine": check_engine(),
        "by_columns": stats.by_columns,
        "by_payload": stats.by_payload,
        "problems": len(problems),
        "peak_rss_mb": peak_rss_mb(),
    }


def main(argv: list[str]) -> int:
    players, sessions = int(argv[0]), int(argv[1])
    print(json.dumps(ledger_db_benchmark(players, sessions), indent=2))
    return 0
