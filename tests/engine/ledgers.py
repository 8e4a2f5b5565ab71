"""Random NGS ledgers for the property tests: one generator, three shapes (helpers only).

Every equality test of a fast path against the reference (``test_ngs_fast_paths_equal_reference``, ``test_ngs_ledger``,
``test_ngs_ckernel``) folds ledgers drawn from here. A :class:`Shape` says what sessions and
operations to draw:

* ``FIELDS``: match-pointed fields of 3-7 pairs from a pool of 14 members, visitors (S3.8), hosts
  (S3.9), two-winner movements, green-pointed weightings (S3.10), late uploads up to 60 days,
  withdrawals and corrections (S5.3);
* ``LONG``: few players with long histories, so the 2000-board cut, blocks cut at 2000, big
  same-day blocks, gaps of about 3 years (careers, restarts, "300 once", out-of-date), late
  uploads far back and steady partnerships (regular pairs, S14.5); MP, Butler, cross-IMP,
  aggregate (S4, S14.5-8);
* ``MIXED``: any scoring type, Swiss matches and teams (the sessions the C kernel hands to
  ``grade_session``), aggregate with and without direction means, individuals, club-marked
  non-graded versions, requested hosts (also for pairs not in the session).

``random_ledger(seed, shape, operations=..., pool=...)`` is deterministic in its seed;
``ledgers(shape, ...)`` is the hypothesis strategy.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, replace

from hypothesis import strategies as st

from grading.engine.ngs import LedgerOp, ProcessOp, WithdrawOp, why_not_graded
from grading.engine.ngs.terms import CROSS_IMPS, IMPS_NAMED
from grading.engine.types import (
    Direction,
    Movement,
    PairEntry,
    Player,
    Scoring,
    SessionKey,
    SessionResult,
    SwissMatch,
)

SWISS = (Scoring.SWISS_PAIRS_MP, Scoring.SWISS_PAIRS_IMP, Scoring.SWISS_TEAMS)


@dataclass(frozen=True)
class Shape:
    """What a random ledger holds (see the module docstring)."""

    name: str
    start: dt.date
    pool: int
    operations: int
    pairs: tuple[int, int]  # fewest, most pairs in a session
    scorings: tuple[Scoring, ...]
    boards: tuple[int | None, ...]
    two_winner: float  # chance of a two-winner movement (when there are enough pairs)
    two_winner_min: int  # fewest pairs for a two-winner movement
    host: float  # chance of a host pair marked in the file
    visitor: float  # chance a pair's second player is a visitor
    visitors_both: float  # chance both players are visitors
    no_score: float  # chance a pair has no score
    steady: float  # chance the members sit in steady partnerships (regular pairs)
    means: float  # aggregate: chance of a direction mean given in the file
    matches: float  # MP: chance of Swiss matches in an MP session
    not_graded: float  # chance the club marks the session non-graded
    requested: float  # chance of a requested host ("99": a pair not in the session)
    withdraw: float  # chance of a withdrawal
    correct: float  # chance of a correction (withdraw, then the new version)
    steps: tuple[int, ...]  # days between sessions
    gap: float  # chance of a gap of about 3 years
    gaps: tuple[int, ...]
    late: float  # chance a session is uploaded late
    late_days: tuple[int, ...]  # how late: a choice, or (lo, hi) when late_range
    late_range: bool = False


FIELDS = Shape(
    name="fields",
    start=dt.date(2015, 1, 1),
    pool=14,
    operations=40,
    pairs=(3, 7),
    scorings=(Scoring.MP,),
    boards=(12, 18, 24, 26, 27, None),
    two_winner=0.3,
    two_winner_min=5,
    host=0.15,
    visitor=0.05,
    visitors_both=0.0,
    no_score=0.0,
    steady=0.0,
    means=0.0,
    matches=0.0,
    not_graded=0.0,
    requested=0.0,
    withdraw=0.1,
    correct=0.1,
    steps=(0, 1, 3, 7, 7, 14, 30),
    gap=0.03,
    gaps=(1200,),
    late=0.15,
    late_days=(1, 60),
    late_range=True,
)

LONG = Shape(
    name="long",
    start=dt.date(2012, 2, 27),  # near a leap day (S14.6)
    pool=6,
    operations=160,
    pairs=(2, 5),
    scorings=(Scoring.MP,) * 6 + (Scoring.BUTLER, Scoring.CROSS_IMP, Scoring.AGGREGATE),
    boards=(18, 24, 27, 60, 110, 240, None),
    two_winner=0.3,
    two_winner_min=4,
    host=0.1,
    visitor=0.04,
    visitors_both=0.0,
    no_score=0.03,
    steady=0.5,
    means=0.0,
    matches=0.0,
    not_graded=0.0,
    requested=0.0,
    withdraw=0.06,
    correct=0.06,
    steps=(0, 0, 1, 3, 7, 14, 30, 90),
    gap=0.03,
    gaps=(1095, 1096, 1200, 1500),
    late=0.12,
    late_days=(1, 20, 200, 700, 1094, 1096),
)

MIXED = Shape(
    name="mixed",
    start=dt.date(2016, 2, 22),
    pool=12,
    operations=120,
    pairs=(2, 8),
    scorings=(Scoring.MP,) * 5
    + (Scoring.BUTLER, Scoring.CROSS_IMP, Scoring.AGGREGATE, Scoring.AGGREGATE)
    + SWISS[:2]
    + (Scoring.SWISS_TEAMS, Scoring.MULTIPLE_TEAMS, Scoring.INDIVIDUAL),
    boards=(18, 24, 27, 120, 600, None),
    two_winner=0.4,
    two_winner_min=4,
    host=0.1,
    visitor=0.06,
    visitors_both=0.03,
    no_score=0.03,
    steady=0.0,
    means=0.3,
    matches=0.1,
    not_graded=0.03,
    requested=0.05,
    withdraw=0.08,
    correct=0.0,
    steps=(0, 0, 1, 7, 14, 60),
    gap=0.03,
    gaps=(1095, 1096, 1300),
    late=0.1,
    late_days=(1, 30, 400, 1100),
)


def _score(rng: random.Random, scoring: Scoring, shape: Shape) -> float | None:
    if rng.random() < shape.no_score:
        return None
    if scoring in (Scoring.MP, Scoring.SWISS_PAIRS_MP):
        return rng.uniform(30, 70)
    if scoring is Scoring.AGGREGATE and shape is MIXED:
        return rng.uniform(-800, 800)
    return rng.uniform(-30.0, 30.0) if shape is LONG else rng.uniform(-40, 40)


def _matches(rng: random.Random, scoring: Scoring, n_pairs: int) -> tuple[SwissMatch, ...]:
    out = []
    for r in range(1, 3):
        order = list(range(n_pairs))
        rng.shuffle(order)
        for j in range(0, n_pairs - 1, 2):
            p, q = str(order[j] + 1), str(order[j + 1] + 1)
            x = rng.choice([6, 8])
            s = rng.uniform(30, 70) if scoring is not Scoring.SWISS_PAIRS_IMP else 0.0
            out.append(SwissMatch(p, r, (q,), x, s))
            out.append(SwissMatch(q, r, (p,), x, 100 - s if s else rng.uniform(-20, 20)))
    return tuple(out)


def session(
    rng: random.Random, index: int, date: dt.date, shape: Shape, pool: int
) -> SessionResult:
    """One random session of the shape, members drawn from m0..m{pool-1}."""
    n_pairs = rng.randint(shape.pairs[0], min(shape.pairs[1], pool // 2))
    members = rng.sample(range(pool), 2 * n_pairs)
    if rng.random() < shape.steady:
        members.sort()
    scoring = rng.choice(shape.scorings)
    two = rng.random() < shape.two_winner and n_pairs >= shape.two_winner_min
    if shape is FIELDS:
        scores = [rng.uniform(30.0, 70.0) for _ in range(n_pairs)]
        centre = sum(scores) / n_pairs - 50.0
    boards = rng.choice(shape.boards)
    host = rng.randrange(n_pairs) if rng.random() < shape.host else -1
    pairs = []
    for i in range(n_pairs):
        a: str | None = f"m{members[2 * i]}"
        b: str | None = None if rng.random() < shape.visitor else f"m{members[2 * i + 1]}"
        if rng.random() < shape.visitors_both:
            a, b = None, None
        direction = (Direction.NS if i % 2 == 0 else Direction.EW) if two else None
        score = scores[i] - centre if shape is FIELDS else _score(rng, scoring, shape)
        mean = None
        if scoring is Scoring.AGGREGATE and rng.random() < shape.means:
            mean = rng.uniform(-50, 50)
        players = (Player(a, rateable=i != host), Player(b))
        pairs.append(PairEntry(str(i + 1), players, score, direction, boards, mean))
    matches: tuple[SwissMatch, ...] = ()
    if scoring in SWISS or (scoring is Scoring.MP and rng.random() < shape.matches):
        matches = _matches(rng, scoring, n_pairs)
    return SessionResult(
        key=SessionKey("club", f"e{index}", 1, date),
        event_name=f"Event {index}",
        scoring=scoring,
        movement=Movement.TWO_WINNER if two else Movement.ONE_WINNER,
        pairs=tuple(pairs),
        weighting=rng.choice([1, 1, 1, 2, 3]),
        matches=matches,
        graded_flag=not (shape.not_graded and rng.random() < shape.not_graded),
        # S14.23: every other Swiss IMP session names cross-IMPs (not drawn from rng, so
        # the ledgers' other draws stay as they were)
        extra=((IMPS_NAMED, CROSS_IMPS),)
        if scoring is Scoring.SWISS_PAIRS_IMP and index % 2
        else (),
    )


def random_ledger(
    seed: int, shape: Shape = FIELDS, operations: int | None = None, pool: int | None = None
) -> list[LedgerOp]:
    """Processes (dates mostly increasing, some late, some years apart), withdrawals and
    corrections; a version that is not graded never becomes live (S14.9)."""
    shape = replace(
        shape,
        operations=shape.operations if operations is None else operations,
        pool=shape.pool if pool is None else pool,
    )
    rng = random.Random(seed)
    ops: list[LedgerOp] = []
    live: list[tuple[str, SessionResult]] = []
    date = shape.start
    seq = 0
    for index in range(shape.operations):
        seq += 1
        roll = rng.random()
        if live and roll < shape.withdraw:
            version, _ = live.pop(rng.randrange(len(live)))
            ops.append(WithdrawOp(seq, version))
            continue
        if live and roll < shape.withdraw + shape.correct:
            version, old = live.pop(rng.randrange(len(live)))
            ops.append(WithdrawOp(seq, version))
            seq += 1
            new = session(rng, index, old.date, shape, shape.pool)
            ops.append(ProcessOp(seq, f"v{seq}", new))
            if not why_not_graded(new):
                live.append((f"v{seq}", new))
            continue
        step = rng.choice(shape.steps)
        if rng.random() < shape.gap:
            step = rng.choice(shape.gaps)
        date = date + dt.timedelta(days=step)
        played = date
        if rng.random() < shape.late:
            days = (
                rng.randint(*shape.late_days) if shape.late_range else rng.choice(shape.late_days)
            )
            played = date - dt.timedelta(days=days)
        s = session(rng, index, played, shape, shape.pool)
        requested = None
        if rng.random() < shape.requested:
            requested = rng.choice(["1", "2", "99"])  # "99": not in the session (ignored)
        ops.append(ProcessOp(seq, f"v{seq}", s, requested))
        if not why_not_graded(s, host_pair=requested):
            live.append((f"v{seq}", s))
    return ops


def ledgers(
    shape: Shape = FIELDS, operations: int | None = None, pool: int | None = None
) -> st.SearchStrategy[list[LedgerOp]]:
    """The hypothesis strategy: a ledger of the shape from a drawn seed."""
    return st.integers(0, 10**9).map(lambda seed: random_ledger(seed, shape, operations, pool))
