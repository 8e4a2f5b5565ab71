"""Random NGS ledgers for the property tests (helpers only; no tests here)."""

from __future__ import annotations

import datetime as dt
import random

from grading.engine.ngs import LedgerOp, ProcessOp, WithdrawOp, why_not_graded
from grading.engine.types import (
    Direction,
    Movement,
    PairEntry,
    Player,
    Scoring,
    SessionKey,
    SessionResult,
)

START = dt.date(2015, 1, 1)


def random_session(rng: random.Random, index: int, date: dt.date, pool: int) -> SessionResult:
    """A match-pointed session of 3-7 pairs drawn from members m0..m{pool-1}, sometimes with an
    unknown player, a host pair, a two-winner movement or a green-pointed weighting."""
    n_pairs = rng.randint(3, min(7, pool // 2))
    members = rng.sample(range(pool), 2 * n_pairs)
    two_winner = rng.random() < 0.3 and n_pairs >= 5
    scores = [rng.uniform(30.0, 70.0) for _ in range(n_pairs)]
    mean = sum(scores) / n_pairs
    boards = rng.choice([12, 18, 24, 26, 27, None])
    host = rng.randrange(n_pairs) if rng.random() < 0.15 else -1
    pairs = []
    for i in range(n_pairs):
        a, b = f"m{members[2 * i]}", f"m{members[2 * i + 1]}"
        if rng.random() < 0.05:
            b = None
        direction = (Direction.NS if i % 2 == 0 else Direction.EW) if two_winner else None
        players = (Player(a, rateable=i != host), Player(b))
        pairs.append(PairEntry(str(i + 1), players, scores[i] - mean + 50.0, direction, boards))
    return SessionResult(
        key=SessionKey("club", f"e{index}", 1, date),
        event_name=f"Event {index}",
        scoring=Scoring.MP,
        movement=Movement.TWO_WINNER if two_winner else Movement.ONE_WINNER,
        pairs=tuple(pairs),
        weighting=rng.choice([1, 1, 1, 2, 3]),
    )


def random_ledger(seed: int, operations: int = 40, pool: int = 14) -> list[LedgerOp]:
    """Processes (dates mostly increasing, some late by up to 60 days, some years apart),
    withdrawals and corrections."""
    rng = random.Random(seed)
    ops: list[LedgerOp] = []
    live: list[tuple[str, SessionResult]] = []
    date = START
    seq = 0
    for index in range(operations):
        seq += 1
        roll = rng.random()
        if live and roll < 0.1:
            version, _ = live.pop(rng.randrange(len(live)))
            ops.append(WithdrawOp(seq, version))
            continue
        if live and roll < 0.2:  # a correction: withdraw, then process the new version
            version, old = live.pop(rng.randrange(len(live)))
            ops.append(WithdrawOp(seq, version))
            seq += 1
            new = random_session(rng, index, old.date, pool)
            ops.append(ProcessOp(seq, f"v{seq}", new))
            if not why_not_graded(new):
                live.append((f"v{seq}", new))
            continue
        step = rng.choice([0, 1, 3, 7, 7, 14, 30]) if rng.random() > 0.03 else 1200
        date = date + dt.timedelta(days=step)
        played = date - dt.timedelta(days=rng.randint(1, 60)) if rng.random() < 0.15 else date
        s = random_session(rng, index, played, pool)
        ops.append(ProcessOp(seq, f"v{seq}", s))
        if not why_not_graded(s):  # a non-graded version never becomes live (S14.9)
            live.append((f"v{seq}", s))
    return ops
