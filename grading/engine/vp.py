"""Victory points (SPEC S2.7, S2.8): the WBF 2013 continuous and discrete scales (seed 001),
the one-IMP-one-VP capital scale and weighted VPs (seed 004), and split scores in team matches
(Law 86B, seed 004 Milan-Inter).

The WBF scales are computed in 50-digit decimal arithmetic, so the rounding to the cent (and
the floor of the discrete cusps) is that of the exact formula, never of a float's error.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction
from functools import lru_cache

from grading.engine.scoring import imps

__all__ = [
    "SplitMatchView",
    "capital_vp",
    "continuous_concavity_corrections",
    "continuous_concavity_violations",
    "discrete_range_violations",
    "knockout_split_result",
    "own_board_imps",
    "round_robin_split_vp",
    "split_match_views",
    "wbf_blitz",
    "wbf_discrete_cusps",
    "wbf_discrete_vp",
    "wbf_vp",
    "wbf_vp_table",
    "weighted_imps",
    "weighted_vp",
]

_DIGITS = 50
_DRAW_VP = Decimal(10)
_CENTS_MAX = 2000  # 20.00 VPs

Margin = int | Fraction | float
VpScale = Callable[[Margin], tuple[float, float]]


def _exact(value: Margin) -> Fraction:
    # A float margin is taken as the decimal it prints as (2.6, not its binary neighbour).
    return Fraction(str(value)) if isinstance(value, float) else Fraction(value)


def _check_boards(boards: int) -> None:
    if isinstance(boards, bool) or not isinstance(boards, int) or boards < 1:
        raise ValueError(f"a VP scale needs a whole number of boards >= 1, got {boards!r}")


# --------------------------------------------------------------------------------------------
# The exponential mapping and its inverse (seed 001 Eqs 1-3 and 8)


def _r() -> Decimal:
    """R = tau^3 = sqrt(5) - 2 (seed 001 Eq 2, 5); call inside a high-precision context."""
    return Decimal(5).sqrt() - 2


def _blitz(boards: int) -> Decimal:
    """X = 15 sqrt(N) (seed 001 Eq 3); call inside a high-precision context."""
    return 15 * Decimal(boards).sqrt()


def _vmap(imp_margin: Decimal, blitz: Decimal) -> Decimal:
    """Winner's VPs for an IMP margin (seed 001 Eq 1), V0 = 10."""
    r = _r()
    return _DRAW_VP + _DRAW_VP * (1 - (imp_margin / blitz * r.ln()).exp()) / (1 - r)


def _imap(vp: Decimal, blitz: Decimal) -> Decimal:
    """IMP margin for a winner's VPs, 10 <= vp <= 20 (seed 001 Eq 8)."""
    r = _r()
    return blitz * (1 - (1 - r) * (vp / _DRAW_VP - 1)).ln() / r.ln()


def wbf_blitz(boards: int) -> float:
    """The blitz margin X = 15 sqrt(N) (seed 001 Eq 3)."""
    _check_boards(boards)
    return 15 * math.sqrt(boards)


# --------------------------------------------------------------------------------------------
# The continuous scale (seed 001 section 3)


def _second_differences(cents: Sequence[int]) -> list[int]:
    """``ddV = [0, 0, Diff(Diff(V))]`` in cents (seed 001 section 3)."""
    first = [b - a for a, b in zip(cents, cents[1:], strict=False)]
    return [0, 0] + [b - a for a, b in zip(first, first[1:], strict=False)]


def _correct_concavity(cents: list[int]) -> int:
    """Seed 001's continuous concavity correction loop; returns the number of corrections.

    At the first positive second difference ``ddV(m)`` (centred on ``V(m-1)``), add 0.01 to
    ``V(m-1)`` and look again, until no second difference is positive.
    """
    corrections = 0
    while True:
        violations = [i for i, dd in enumerate(_second_differences(cents)) if dd > 0]
        if not violations:
            return corrections
        cents[violations[0] - 1] += 1
        corrections += 1


@lru_cache(maxsize=256)
def _rounded_scale(boards: int) -> tuple[int, ...]:
    """Step 1 of seed 001 section 3: ``min(round(100 V_map(i)) / 100, 20)`` in cents."""
    with localcontext() as context:
        context.prec = _DIGITS
        blitz = _blitz(boards)
        last = int(blitz.to_integral_value(rounding=ROUND_CEILING))
        cents = [
            min(
                int((100 * _vmap(Decimal(i), blitz)).to_integral_value(rounding=ROUND_HALF_UP)),
                _CENTS_MAX,
            )
            for i in range(last + 1)
        ]
    return tuple(cents)


@lru_cache(maxsize=256)
def _continuous_scale(boards: int) -> tuple[tuple[int, ...], int]:
    """Winner's VPs in cents for margins 0..ceil(X), and how many corrections were made."""
    cents = list(_rounded_scale(boards))
    corrections = _correct_concavity(cents)
    return tuple(cents), corrections


def wbf_vp_table(boards: int) -> list[float]:
    """Winner's VPs for IMP margins 0..ceil(15 sqrt(N)) (S2.7, seed 001 section 3).

    ``round(100 V_map) / 100`` rounding half up, capped at 20, then seed 001's concavity
    correction exactly as written.
    """
    _check_boards(boards)
    return [cents / 100 for cents in _continuous_scale(boards)[0]]


def continuous_concavity_violations(boards: int) -> int:
    """Concavity violations in the rounded scale before correction (seed 001 section 3
    remark (b): one for 8 boards, 24 for 60 boards)."""
    _check_boards(boards)
    return sum(1 for dd in _second_differences(_rounded_scale(boards)) if dd > 0)


def continuous_concavity_corrections(boards: int) -> int:
    """How many 0.01 steps seed 001's loop adds (a correction can expose the next violation,
    so this can exceed :func:`continuous_concavity_violations`)."""
    _check_boards(boards)
    return _continuous_scale(boards)[1]


def _winner_cents(margin: Fraction, boards: int) -> int:
    """Winner's VPs in cents; a fractional margin is interpolated linearly, to the cent."""
    cents = _continuous_scale(boards)[0]
    low = math.floor(margin)
    if low >= len(cents) - 1:
        return _CENTS_MAX
    high_cents = cents[low + 1]
    value = cents[low] + (high_cents - cents[low]) * (margin - low)
    return math.floor(value + Fraction(1, 2))


def wbf_vp(margin: Margin, boards: int) -> tuple[float, float]:
    """Both sides' VPs on the WBF continuous scale; ``margin`` = side A's IMPs - side B's.

    Margins above ceil(X) get 20-0 (S2.7). A fractional margin (weighted or averaged scores)
    is interpolated linearly between the two whole margins and rounded half up to the cent.
    The two always sum to 20.
    """
    _check_boards(boards)
    exact = _exact(margin)
    winner = _winner_cents(abs(exact), boards)
    a_cents = winner if exact >= 0 else _CENTS_MAX - winner
    return a_cents / 100, (_CENTS_MAX - a_cents) / 100


# --------------------------------------------------------------------------------------------
# The discrete scale (seed 001 section 4)


def _discrete_j(cusps: Sequence[int]) -> list[int]:
    """``J = [-(I1 + 1), I1, ..., I10]`` (seed 001 section 4)."""
    return [-(cusps[0] + 1), *cusps]


def _correct_discrete_concavity(cusps: list[int]) -> int:
    """Seed 001's discrete concavity correction; returns the number of corrections.

    At the first negative ``ddJ(m)`` (centred on ``I(m)``), subtract 1 from ``I(m)`` and look
    again, until no second difference is negative.
    """
    corrections = 0
    while True:
        j = _discrete_j(cusps)
        first = [b - a for a, b in zip(j, j[1:], strict=False)]
        second = [b - a for a, b in zip(first, first[1:], strict=False)]
        violations = [i for i, dd in enumerate(second) if dd < 0]
        if not violations:
            return corrections
        cusps[violations[0]] -= 1
        corrections += 1


def _mid_score_vps() -> list[Decimal]:
    """V_m = 10.5, 11.5, ..., 19.5 (seed 001 Eq 12)."""
    return [Decimal(2 * m + 19) / 2 for m in range(1, 11)]


@lru_cache(maxsize=256)
def _discrete_cusps(boards: int) -> tuple[int, ...]:
    with localcontext() as context:
        context.prec = _DIGITS
        blitz = _blitz(boards)
        cusps = [
            int(_imap(vp, blitz).to_integral_value(rounding=ROUND_FLOOR)) for vp in _mid_score_vps()
        ]
    _correct_discrete_concavity(cusps)
    return tuple(cusps)


def wbf_discrete_cusps(boards: int) -> list[int]:
    """The cusp IMPs I_1..I_10 of the WBF discrete scale after correction (seed 001 section 4).

    Winner's VPs: 10 for a margin in [-I_1, I_1], 10 + k for [I_k + 1, I_(k+1)], 20 above I_10.
    """
    _check_boards(boards)
    return list(_discrete_cusps(boards))


def wbf_discrete_vp(margin: Margin, boards: int) -> tuple[int, int]:
    """Both sides' VPs on the WBF discrete scale; ``margin`` = side A's IMPs - side B's.

    A fractional margin moves into the next band as soon as it exceeds a cusp (as S2.1's IMP
    bands do).
    """
    _check_boards(boards)
    exact = _exact(margin)
    winner = 10 + sum(1 for cusp in _discrete_cusps(boards) if cusp < abs(exact))
    return (winner, 20 - winner) if exact >= 0 else (20 - winner, winner)


def discrete_range_violations(boards: int) -> list[int]:
    """Integer VP scores whose exact margin ``Imap(V)`` lies outside their discrete band.

    Seed 001 section 4.1, Eq 15: for V = 11..19, ``I_(k) + 1 <= Imap(10 + k) <= I_(k+1)``.
    """
    _check_boards(boards)
    cusps = _discrete_cusps(boards)
    violations = []
    with localcontext() as context:
        context.prec = _DIGITS
        blitz = _blitz(boards)
        for k in range(1, 10):
            exact = _imap(Decimal(10 + k), blitz)
            if not cusps[k - 1] + 1 <= exact <= cusps[k]:
                violations.append(10 + k)
    return violations


# --------------------------------------------------------------------------------------------
# The capital scale and weighted VPs (seed 004)


def capital_vp(margin: int, capital: int = 100) -> tuple[int, int]:
    """One IMP, one VP: both start with half the capital, capped at 0 and the capital.

    Seed 004: A 28 - B 45 IMPs on a capital of 100 is 33 - 67. ``capital`` must be even and the
    margin whole (round a fractional margin first).
    """
    if capital <= 0 or capital % 2:
        raise ValueError(f"the capital must be a positive even number, got {capital}")
    if Fraction(margin).denominator != 1:
        raise ValueError(f"the capital scale takes whole IMP margins, got {margin}")
    a = min(max(capital // 2 + int(margin), 0), capital)
    return a, capital - a


def _round_cents(value: Fraction) -> float:
    cents = Decimal(value.numerator) / Decimal(value.denominator) * 100
    return float(cents.to_integral_value(rounding=ROUND_HALF_UP) / 100)


def weighted_imps(outcomes: Iterable[tuple[Fraction | float, Margin]]) -> Fraction:
    """The weighted IMP result ``sum(weight x IMPs)`` (seed 004: 1/10 of +11 ... = 2.6)."""
    components = [(_exact(weight), _exact(value)) for weight, value in outcomes]
    if sum(weight for weight, _ in components) != 1:
        raise ValueError("weights must sum to 1")
    return sum((weight * value for weight, value in components), Fraction(0))


def weighted_vp(
    outcomes: Iterable[tuple[Fraction | float, Margin]],
    boards: int,
    scale: VpScale | None = None,
) -> tuple[float, float]:
    """Weighted VPs for a weighted score in a match: weight the VPs, not the IMPs (S2.6).

    ``outcomes`` are ``(weight, match margin)`` pairs, the margin being the whole match's IMP
    margin (side A minus side B) under that component. Side A's weighted VPs are rounded half
    up to the cent and, where every component shares the same VPs (20), side B gets the rest
    (20 - V, S2.7) so the two add up. ``scale`` defaults to the WBF continuous scale for ``boards``.
    """
    convert: VpScale = scale or (lambda margin: wbf_vp(margin, boards))
    components = [(_exact(weight), margin) for weight, margin in outcomes]
    if sum(weight for weight, _ in components) != 1:
        raise ValueError("weights must sum to 1")
    a_total = b_total = Fraction(0)
    shares = set()
    for weight, margin in components:
        a_vp, b_vp = convert(margin)
        a_total += weight * _exact(a_vp)
        b_total += weight * _exact(b_vp)
        shares.add(_exact(a_vp) + _exact(b_vp))
    a_rounded = _round_cents(a_total)
    if len(shares) == 1:  # the loser gets 20 - V (S2.7), not a second rounding up
        (share,) = shares
        return a_rounded, float(share - _exact(a_rounded))
    return a_rounded, _round_cents(b_total)


# --------------------------------------------------------------------------------------------
# Split scores in team matches (S2.8, Law 86B, seed 004 Milan-Inter)


def own_board_imps(own_points: Iterable[int]) -> int:
    """A team's IMPs on a board from its own two scores (its own sign), e.g. -800 and -620."""
    return imps(sum(own_points))


@dataclass(frozen=True)
class SplitMatchView:
    """A match's IMPs as one team's separately computed results make them."""

    a_imps: Fraction
    b_imps: Fraction

    @property
    def margin(self) -> Fraction:
        return self.a_imps - self.b_imps


def _positive(value: Fraction) -> Fraction:
    return max(value, Fraction(0))


def split_match_views(
    a_base: int | Fraction,
    b_base: int | Fraction,
    a_split_imps: Sequence[int | Fraction],
    b_split_imps: Sequence[int | Fraction],
) -> tuple[SplitMatchView, SplitMatchView]:
    """The match seen by team A and by team B (S2.8).

    ``a_base``, ``b_base``: IMPs on the boards without split scores. ``a_split_imps``: A's own
    IMPs on each split board from A's scores (negative: the IMPs go to B); likewise B's.
    Seed 004: Milan 78 - Inter 54, Milan's own -3 and -16, Inter's -3 and -10: Milan's view
    78 - 73, Inter's view 91 - 54.
    """
    a_net = sum((Fraction(v) for v in a_split_imps), Fraction(0))
    b_net = sum((Fraction(v) for v in b_split_imps), Fraction(0))
    a_positive = sum((_positive(Fraction(v)) for v in a_split_imps), Fraction(0))
    b_positive = sum((_positive(Fraction(v)) for v in b_split_imps), Fraction(0))
    a_view = SplitMatchView(a_base + a_positive, b_base + a_positive - a_net)
    b_view = SplitMatchView(a_base + b_positive - b_net, b_base + b_positive)
    return a_view, b_view


def knockout_split_result(
    a_base: int | Fraction,
    b_base: int | Fraction,
    a_split_imps: Sequence[int | Fraction],
    b_split_imps: Sequence[int | Fraction],
) -> tuple[Fraction, Fraction]:
    """A knock-out match's score with split boards: the average of the two sides' separately
    computed results goes to both (Law 86B, S2.8). Seed 004: Milan 78 - Inter 57.
    """
    a_net = sum((Fraction(v) for v in a_split_imps), Fraction(0))
    b_net = sum((Fraction(v) for v in b_split_imps), Fraction(0))
    average = (a_net - b_net) / 2
    return Fraction(a_base) + _positive(average), Fraction(b_base) + _positive(-average)


def round_robin_split_vp(
    a_base: int | Fraction,
    b_base: int | Fraction,
    a_split_imps: Sequence[int | Fraction],
    b_split_imps: Sequence[int | Fraction],
    boards: int,
    scale: VpScale | None = None,
) -> tuple[float, float]:
    """Round-robin VPs with split boards: each team's VPs from its own view (S2.8).

    The two need not sum to 20 (seed 004: Milan 16 - Inter 6 on the old scale).
    """
    convert: VpScale = scale or (lambda margin: wbf_vp(margin, boards))
    a_view, b_view = split_match_views(a_base, b_base, a_split_imps, b_split_imps)
    return convert(a_view.margin)[0], convert(b_view.margin)[1]
