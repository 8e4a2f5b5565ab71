"""PPI's formulas (SPEC S10, seed 002): ``m``, one board's update, the par, the suit, and one
player's update over an event (board by board, or ``n`` boards at the session percentage)."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

NEW_PPI = 50.0  # newcomers start at 50 % (seed 002)
SHOWN_AFTER = 50  # a PPI is shown after 50 qualifying boards
ACTIVE_BOARDS = 50  # active: at least 50 boards in the last 3 calendar months
DEFAULT_BOARDS = 24  # boards a pair played when the file does not say (S3.7)
W_MONTHS = 3  # w: qualifying boards in the previous 3 calendar months


def ppi_weight(k: int, w: int, a: float) -> float:
    """The weighting factor ``m`` of S10 (seed 002, "The Formula").

    ``k``: qualifying boards the player played before this board since the start; ``w``:
    qualifying boards in the previous 3 calendar months; ``a``: the player's PPI. ``m`` is 30
    for ``k < 30``, ``k`` for ``30 <= k <= 300``; above 300 it is 300 for ``w < 150``, ``2w``
    for ``150 <= w <= 300`` and 600 for ``w > 300``; halved when ``a < 46``.
    """
    if k < 30:
        m = 30.0
    elif k <= 300:
        m = float(k)
    elif w < 150:
        m = 300.0
    elif w <= 300:
        m = 2.0 * w
    else:
        m = 600.0
    return m / 2 if a < 46 else m


def ppi_par(a: float, b: float, c: float, d: float) -> float:
    """The board percentage that leaves ``a`` unchanged: ``(a + b - c - d)/2 + 50`` (S10)."""
    return (a + b - c - d) / 2 + 50


def ppi_update(a: float, b: float, c: float, d: float, p: float, m: float) -> float:
    """One board's update ``A = a + (p - ((a + b - c - d)/2 + 50)) / m`` (S10, seed 002).

    ``a`` the player's PPI, ``b`` partner's, ``c`` and ``d`` the opponents', ``p`` the player's
    percentage on the board (0-100), ``m`` from :func:`ppi_weight`.
    """
    return a + (p - ppi_par(a, b, c, d)) / m


class Suit(str, enum.Enum):
    """The suit symbol of a PPI (seed 002, "Suit symbol")."""

    SPADES = "S"  # over 55 %
    HEARTS = "H"  # 51 % to 55 %
    DIAMONDS = "D"  # 46 % to 51 %
    CLUBS = "C"  # below 46 %


def ppi_suit(ppi: float) -> Suit:
    """The suit of an (unrounded) PPI: Spades > 55, Hearts 51-55, Diamonds 46-51, Clubs < 46.

    Boundaries (S10): 55 exactly is Hearts ("over 55" for Spades); 51 exactly is Hearts (seed
    002: a PPI shown 51.0 but below 51 is still a Diamond); 46 exactly is Diamonds (the same
    threshold as the halving of ``m``, "below 46" for Clubs).
    """
    if ppi > 55:
        return Suit.SPADES
    if ppi >= 51:
        return Suit.HEARTS
    if ppi >= 46:
        return Suit.DIAMONDS
    return Suit.CLUBS


# --------------------------------------------------------------------------------------------
# One player over one event


@dataclass(frozen=True)
class BoardTerm:
    """What one qualifying board brings to a player's update: partner's and opponents' PPIs
    at the start of the event, and the player's percentage on the board."""

    b: float
    c: float
    d: float
    p: float


def event_delta(a: float, k: int, w: int, boards: Iterable[BoardTerm]) -> tuple[float, int]:
    """The sum of one event's per-board changes and the boards counted (S10).

    Every board uses the PPIs from the start of the event (``a`` included, also for the
    halving of ``m``); ``k`` grows by one per board.
    """
    delta = 0.0
    counted = 0
    for term in boards:
        m = ppi_weight(k + counted, w, a)
        delta += (term.p - ppi_par(a, term.b, term.c, term.d)) / m
        counted += 1
    return delta, counted


def ppi_boards(a: float, k: int, w: int, boards: Sequence[BoardTerm]) -> float:
    """A player's PPI after an event scored board by board (S10).

    ``a``, ``k``, ``w``: the player's PPI, boards since the start and boards in the previous 3
    calendar months, at the start of the event; ``boards`` in the order played.
    """
    delta, _ = event_delta(a, k, w, boards)
    return a + delta


def ppi_session_level(a: float, k: int, w: int, n: int, p: float, b: float, opp: float) -> float:
    """A player's PPI after ``n`` boards at the session percentage ``p`` against opponents of
    average PPI ``opp``, with partner ``b`` (S10, sessions without travellers)."""
    return ppi_boards(a, k, w, [BoardTerm(b, opp, opp, p)] * n)
