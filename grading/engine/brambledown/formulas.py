"""Brambledown's formulas (SPEC S11, seed 003): PPR, IPR, a new player's IPR, the quarterly
regrade, the field average, and a starting grade from a percentage grade."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

START = 135  # the scale's average player (seed 003)
NEW_PERFORMANCES = 3  # a new player gets a grade after three performances
FULL_QUARTER = 10  # with 10 or more IPRs in a quarter the new grade is their mean
A_LIST_TOURNAMENTS = 20
A_LIST_PARTNERS = 3
B_LIST_TOURNAMENTS = 3
PAIRS_LIST_TOURNAMENTS = 5


def round_half_up(value: float) -> int:
    """The nearest integer, a half rounding up (173.5 -> 174; seed 003's 173.6 -> 174)."""
    return math.floor(value + 0.5)


def ppr(percent: float, field_average: float) -> float:
    """Partnership Performance Rating ``(sin(1.8 P - 90) + 1) x T``, degrees (S11, seed 003).

    0 % gives 0, 50 % gives ``T``, 100 % gives ``2T``.
    """
    return (math.sin(math.radians(1.8 * percent - 90)) + 1) * field_average


def ipr(own: float, partner: float, ppr: float) -> float:
    """Individual Performance Rating ``own + (PPR - (own + partner)/2)`` (S11, seed 003)."""
    return own + (ppr - (own + partner) / 2)


def new_player_ipr(ppr: float, partner: float) -> float:
    """A new player's IPR ``2 x PPR - partner``: the grade that would make the pair's
    expectation ``(own + partner)/2`` equal its PPR (S11)."""
    return 2 * ppr - partner


def regrade(old: float, iprs: Sequence[float]) -> int:
    """The quarterly regrade (S11, seed 003), rounded half up to an integer.

    With ``n >= 10`` IPRs the mean of the IPRs; with fewer ``(old x (10 - n) + sum) / 10``
    (no IPR: the old grade). Seed 003: 175 with 165, 154, 192 gives 173.6, so 174.
    """
    n = len(iprs)
    if n >= FULL_QUARTER:
        return round_half_up(sum(iprs) / n)
    return round_half_up((old * (FULL_QUARTER - n) + sum(iprs)) / FULL_QUARTER)


def initial_grade(percent: float, average: float = START) -> int:
    """A starting grade on the Brambledown scale for a player whose grade on a percentage
    scale (an NGS or PPI grade) is ``percent``: the PPR such a player earns with an equal
    partner in a field of average ``average`` (50 -> 135, 55 -> 156, 45 -> 114)."""
    return round_half_up(ppr(percent, average))


def field_average(grades: Iterable[float | None]) -> float:
    """``T``: the mean of the players' grades, a player without one (new or unknown) counting
    at the mean of the others (S11); 135 when nobody has a grade."""
    known = [g for g in grades if g is not None]
    return sum(known) / len(known) if known else float(START)
