"""Movements: who plays which boards against whom, round by round.

A movement is a list of :class:`Table` sittings. Pair ids are those the parsers produce, so a
simulated :class:`~grading.engine.types.SessionResult` survives a round trip through a file:
``"3NS"``/``"3EW"`` in a Mitchell (pair numbers repeat by direction), ``"3"`` in a Howell.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = ["Table", "mitchell", "howell", "mitchell_shape", "howell_shape"]


@dataclass(frozen=True)
class Table:
    round: int
    ns: str
    ew: str
    boards: tuple[int, ...]


def mitchell_shape(rng: random.Random, tables: int) -> tuple[int, int]:
    """(rounds, boards per round) for a Mitchell of ``tables`` tables: 18-27 boards a pair."""
    options = [
        (rounds, per_round)
        for per_round in (2, 3, 4)
        for rounds in range(2, _most_rounds(tables) + 1)
        if 18 <= rounds * per_round <= 27
        and rounds >= min(_most_rounds(tables), 27 // per_round) - 1
    ]
    return rng.choice(options)


def _most_rounds(tables: int) -> int:
    # A skip Mitchell (even tables) would meet its first opponents again in round ``tables``.
    return tables - 1 if tables % 2 == 0 else tables


def mitchell(tables: int, rounds: int, per_round: int) -> list[Table]:
    """Two-winner Mitchell: NS pair ``i`` stays at table ``i``, EW pairs move up a table and
    the boards down a table each round; an even number of tables skips once at half-way, so
    no pair meets a board twice. Each board is played ``rounds`` times."""
    if rounds > _most_rounds(tables):
        raise ValueError("too many rounds for a Mitchell of this size")
    sittings = []
    for r in range(rounds):
        skip = 1 if tables % 2 == 0 and r >= tables // 2 else 0
        for table in range(tables):
            ew = (table - r - skip) % tables
            board_set = (table + r) % tables
            boards = tuple(board_set * per_round + k + 1 for k in range(per_round))
            sittings.append(Table(r + 1, f"{table + 1}NS", f"{ew + 1}EW", boards))
    return sittings


def howell_shape(rng: random.Random, pairs: int) -> tuple[int, int]:
    """(rounds, boards per round) for a Howell of ``pairs`` pairs: 18-27 boards a pair."""
    most = pairs - 1 if pairs % 2 == 0 else pairs
    options = [
        (rounds, per_round)
        for per_round in (2, 3, 4)
        for rounds in range(2, most + 1)
        if 18 <= rounds * per_round <= 27
    ]
    if not options:  # a small field plays more boards a round
        per_round = -(-18 // most)
        return most, per_round
    return rng.choice(options)


def howell(pairs: int, rounds: int, per_round: int) -> list[Table]:
    """One-winner Howell by the circle method: every pair meets a different pair each round
    and sits NS or EW in turn; all tables play the round's (duplicated) boards. With an odd
    number of pairs the pair drawn against the missing one sits out that round."""
    circle = pairs if pairs % 2 == 1 else pairs - 1
    fixed = circle  # index of the pair outside the circle (absent when pairs is odd)
    if rounds > circle:
        raise ValueError("a Howell has at most pairs - 1 rounds")
    sittings = []
    for r in range(rounds):
        boards = tuple(r * per_round + k + 1 for k in range(per_round))
        matches = [(r, fixed)] + [
            ((r + k) % circle, (r - k) % circle) for k in range(1, (circle + 1) // 2)
        ]
        for k, (p, q) in enumerate(matches):
            if q == fixed and pairs % 2 == 1:
                continue  # sit-out
            ns, ew = (p, q) if (r + k) % 2 == 0 else (q, p)
            sittings.append(Table(r + 1, str(ns + 1), str(ew + 1), boards))
    return sittings
