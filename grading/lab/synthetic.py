"""Synthetic national-shape ledgers for tests and the replay benchmark (issue 9).

``synthetic_ledger(players, sessions, seed)`` is a pure, deterministic function: clubs of 30-150
members (some players in two clubs), regular partnerships and pick-up partners, weekly sessions
of 5-20 tables and 18-27 boards, mostly match-pointed (one- and two-winner), some Butler and
cross-IMP, a little aggregate (graded through the reference session path), visitors without
numbers, host pairs, green-pointed events, late uploads, corrections and withdrawals, and
players who stop for more than 3 years and come back (careers).
The benchmark itself (it reads the clock) is ``grading.lab.bench.replay_benchmark``.
"""

from __future__ import annotations

import datetime as dt
import itertools
import random
from collections.abc import Iterator

from grading.engine.ngs.ledger import LedgerOp, ProcessOp, WithdrawOp
from grading.engine.ngs.session import why_not_graded
from grading.engine.types import (
    Direction,
    Movement,
    PairEntry,
    Player,
    Scoring,
    SessionKey,
    SessionResult,
)

__all__ = ["synthetic_ledger", "iter_synthetic_ledger"]

START = dt.date(2015, 1, 5)
BOARDS = (18, 20, 21, 22, 24, 24, 24, 24, 26, 27)


def synthetic_ledger(players: int, sessions: int, seed: int, years: int = 10) -> list[LedgerOp]:
    """A deterministic ledger of about ``sessions`` graded session versions among ``players``
    members over ``years`` years (see the module docstring)."""
    return list(iter_synthetic_ledger(players, sessions, seed, years))


def iter_synthetic_ledger(
    players: int, sessions: int, seed: int, years: int = 10
) -> Iterator[LedgerOp]:
    """The same ledger as ``synthetic_ledger``, generated lazily (national scale does not fit
    in memory as one list of dataclasses)."""
    rng = random.Random(seed)
    strength = [rng.gauss(48.0, 5.5) for _ in range(players)]
    known = [Player(str(100000 + i)) for i in range(players)]
    # clubs of 30-150 members; about a fifth of the players also belong to a second club
    order = list(range(players))
    rng.shuffle(order)
    clubs: list[list[int]] = []
    at = 0
    while at < players:
        size = min(rng.randint(30, 150), players - at) if players - at >= 30 else players - at
        clubs.append(order[at : at + size])
        at += size
    if len(clubs) > 1 and len(clubs[-1]) < 20:
        clubs[-2].extend(clubs.pop())
    for club in list(clubs):
        for _ in range(len(club) // 5):
            other = clubs[rng.randrange(len(clubs))]
            p = other[rng.randrange(len(other))]
            if p not in club:
                club.append(p)
    # regular partnerships inside each club: about 60% of members have a regular partner
    regular: list[dict[int, int]] = []
    for club in clubs:
        pool = club[:]
        rng.shuffle(pool)
        pairs: dict[int, int] = {}
        for i in range(0, int(len(pool) * 0.6) - 1, 2):
            pairs[pool[i]] = pool[i + 1]
            pairs[pool[i + 1]] = pool[i]
        regular.append(pairs)
    # some players take a break of more than 3 years (a new career when they come back)
    span = 365 * years
    breaks: dict[int, tuple[int, int]] = {}
    for p in range(players):
        if rng.random() < 0.04:
            start = rng.randrange(span)
            breaks[p] = (start, start + rng.randint(3 * 366, 5 * 365))
    cum_weights = list(itertools.accumulate(len(c) for c in clubs))  # what choices() sums
    club_range = range(len(clubs))
    seq = 0
    live: list[tuple[str, SessionResult]] = []
    made = 0
    while made < sessions:
        day = made * span // sessions
        club_i = rng.choices(club_range, cum_weights=cum_weights)[0]
        date = START + dt.timedelta(days=day)
        if rng.random() < 0.03:
            date -= dt.timedelta(days=rng.randint(1, 60))  # a late upload
        session = _session(
            rng, made, date, clubs[club_i], regular[club_i], breaks, day, known, strength
        )
        made += 1
        seq += 1
        yield ProcessOp(seq, f"v{seq}", session)
        if not why_not_graded(session):  # only a graded version becomes live (S14.9)
            live.append((f"v{seq}", session))
        if len(live) > 200:
            live.pop(0)
        roll = rng.random()
        if roll < 0.01 and live:  # a correction of a recent session
            version, old = live.pop(rng.randrange(len(live)))
            seq += 1
            yield WithdrawOp(seq, version)
            seq += 1
            fixed = _corrected(rng, old)
            yield ProcessOp(seq, f"v{seq}", fixed)
            if not why_not_graded(fixed):
                live.append((f"v{seq}", fixed))
        elif roll < 0.013 and live:  # a withdrawal
            version, _ = live.pop(rng.randrange(len(live)))
            seq += 1
            yield WithdrawOp(seq, version)


def _session(
    rng: random.Random,
    index: int,
    date: dt.date,
    members: list[int],
    regular: dict[int, int],
    breaks: dict[int, tuple[int, int]],
    day: int,
    known: list[Player],
    strength: list[float],
) -> SessionResult:
    # The random draws are made in a fixed order (the same seed gives the same ledger): keep
    # it when changing this function. The loops are written for speed (national scale).
    random_ = rng.random
    gauss = rng.gauss
    tables = min(20, 5 + int(rng.expovariate(1 / 5.0)), max(2, len(members) // 4))
    n_pairs = 2 * tables
    chosen: list[tuple[int | None, int | None]] = []
    used: set[int] = set()
    candidates = rng.sample(members, min(len(members), 3 * n_pairs))
    free = [q for q in candidates if q not in regular]  # pick-up partners, in draw order
    for p in candidates:
        if len(chosen) == n_pairs:
            break
        if p in used or (p in breaks and breaks[p][0] <= day < breaks[p][1]):
            continue
        partner = regular.get(p)
        if partner is None or partner in used or random_() < 0.15:
            partner = None
            for q in free:
                if q != p and q not in used:
                    partner = q
                    break
        if partner is None:
            continue
        used.add(p)
        used.add(partner)
        chosen.append((p, partner))
    while len(chosen) < n_pairs:
        chosen.append((None, None))  # visitors
    roll = random_()
    scoring = Scoring.MP
    if roll < 0.05:
        scoring = Scoring.BUTLER
    elif roll < 0.10:
        scoring = Scoring.CROSS_IMP
    elif roll < 0.12:
        scoring = Scoring.AGGREGATE
    two = random_() < 0.6
    boards = rng.choice(BOARDS)
    host = rng.randrange(n_pairs) if random_() < 0.02 else -1
    raw = [
        ((strength[a] if a is not None else 46.0) + (strength[b] if b is not None else 46.0)) / 2
        + gauss(0.0, 6.3)
        for a, b in chosen
    ]
    if two:  # each direction's mean, summed in the same order as one pair at a time
        means = [sum(raw[0::2]) / len(raw[0::2]), sum(raw[1::2]) / len(raw[1::2])]
        directions = (Direction.NS, Direction.EW)
    else:
        means = [sum(raw) / len(raw)] * 2
        directions = (None, None)
    imp = 5.4 if scoring is Scoring.BUTLER else 6.48  # IMPs a percent point is worth
    visitor = Player(None, "visitor")  # frozen: one object serves every visitor
    pairs = []
    for i, (a, b) in enumerate(chosen):
        pct = 50.0 + raw[i] - means[i % 2]
        score: float
        if scoring is Scoring.MP:
            score = pct
        elif scoring is Scoring.AGGREGATE:
            score = 8.2 * boards * (pct - 50.0)
        else:
            score = (pct - 50.0) * boards / imp
        pa = known[a] if a is not None else visitor
        pb = known[b] if b is not None else visitor
        if random_() < 0.03:
            pb = visitor
        if i == host:
            pa = Player(pa.number, rateable=False)
        x = boards - (rng.choice((0, 0, 0, 2, 3)) if random_() < 0.1 else 0)
        pairs.append(PairEntry(str(i + 1), (pa, pb), score, directions[i % 2], x))
    weighting = 3 if random_() < 0.03 else (2 if random_() < 0.04 else 1)
    return SessionResult(
        key=SessionKey("club", f"e{index}", 1, date),
        event_name=f"Event {index}",
        scoring=scoring,
        movement=Movement.TWO_WINNER if two else Movement.ONE_WINNER,
        pairs=tuple(pairs),
        weighting=weighting,
    )


def _corrected(rng: random.Random, old: SessionResult) -> SessionResult:
    """A correction: the same session with two pairs' scores swapped."""
    pairs = list(old.pairs)
    i, j = rng.sample(range(len(pairs)), 2)
    a, b = pairs[i], pairs[j]
    pairs[i] = PairEntry(a.pair_id, a.players, b.score, a.direction, a.boards)
    pairs[j] = PairEntry(b.pair_id, b.players, a.score, b.direction, b.boards)
    return SessionResult(
        old.key, old.event_name, old.scoring, old.movement, tuple(pairs), old.weighting
    )


# --------------------------------------------------------------------------- benchmark
