"""Victory points: seed 001's WBF 2013 scales, seed 004's capital scale, weighted VPs and the
Milan-Inter split-score example (SPEC S2.7, S2.8)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from grading.engine.scoring import artificial_imps, imps
from grading.engine.vp import (
    capital_vp,
    continuous_concavity_corrections,
    continuous_concavity_violations,
    discrete_range_violations,
    knockout_split_result,
    own_board_imps,
    round_robin_split_vp,
    split_match_views,
    wbf_blitz,
    wbf_discrete_cusps,
    wbf_discrete_vp,
    wbf_vp,
    wbf_vp_table,
    weighted_imps,
    weighted_vp,
)

BOARD_COUNTS = range(1, 101)


def cents(values: list[float]) -> list[int]:
    return [round(value * 100) for value in values]


# --- Continuous scale: seed 001 section 3 --------------------------------------------------


@pytest.mark.parametrize("boards", BOARD_COUNTS)
def test_continuous_scale_properties(boards: int) -> None:
    """Seed 001 section 3 / S2.7 for every board count 1-100: 10 at a draw, 20 from the blitz
    margin on, non-decreasing, concave after correction, two decimals, winner + loser = 20."""
    table = wbf_vp_table(boards)
    in_cents = cents(table)
    assert len(table) == math.ceil(15 * math.sqrt(boards)) + 1
    assert table[0] == 10
    assert table[-1] == 20
    assert all(value * 100 == pytest.approx(c) for value, c in zip(table, in_cents, strict=True))
    steps = [b - a for a, b in zip(in_cents, in_cents[1:], strict=False)]
    assert all(step >= 0 for step in steps)
    assert all(later <= earlier for earlier, later in zip(steps, steps[1:], strict=False))
    blitz = wbf_blitz(boards)
    for margin in range(0, len(table) + 5):
        winner, loser = wbf_vp(margin, boards)
        assert round(winner * 100) + round(loser * 100) == 2000
        assert wbf_vp(-margin, boards) == (loser, winner)
        if margin >= blitz:
            assert (winner, loser) == (20, 0)


@pytest.mark.parametrize("boards", BOARD_COUNTS)
def test_continuous_scale_is_the_rounded_formula_up_to_corrections(boards: int) -> None:
    """Seed 001 Eq 1 and 9: each entry is round(100 V_map) / 100, plus the few cents the
    concavity correction adds (it only ever raises entries)."""
    blitz = 15 * math.sqrt(boards)
    r = math.sqrt(5) - 2
    for margin, value in enumerate(wbf_vp_table(boards)):
        formula = min(10 + 10 * (1 - r ** (margin / blitz)) / (1 - r), 20)
        assert 0 <= round(value * 100) - math.floor(formula * 100 + 0.5) <= 5


def test_concavity_violations_quoted_in_seed_001() -> None:
    """Seed 001 section 3 remark (b): 8 boards need one correction, 60 boards 24."""
    assert continuous_concavity_violations(8) == 1
    assert continuous_concavity_corrections(8) == 1
    assert continuous_concavity_violations(60) == 24
    # Correcting one violation can expose the next: the loop runs until none is left.
    assert continuous_concavity_corrections(60) >= 24


def test_eight_board_correction() -> None:
    """Seed 001 section 3: the single 8-board correction raises one entry by 0.01 and leaves
    the rest as the rounded formula."""
    table = wbf_vp_table(8)
    blitz = 15 * math.sqrt(8)
    r = math.sqrt(5) - 2
    raw = [
        min(math.floor(100 * (10 + 10 * (1 - r ** (i / blitz)) / (1 - r)) + 0.5), 2000)
        for i in range(len(table))
    ]
    differences = [(i, c - raw[i]) for i, c in enumerate(cents(table)) if c != raw[i]]
    assert len(differences) == 1
    assert differences[0][1] == 1


def test_twenty_board_values_quoted_by_a_national_federation() -> None:
    """bcstar.nl (Dutch club following the NBB's adoption of the WBF scales) quotes the
    continuous scale as 0: 10.00, 1: 10.28, 2: 10.55 and the discrete one as 0-1: 10, 2-5: 11,
    6-9: 12, without naming the board count. 20 boards is the only count in 1-100 that gives
    all of them, so both algorithms agree with a published scale there."""
    matches = [
        boards
        for boards in BOARD_COUNTS
        if wbf_vp_table(boards)[:3] == [10.0, 10.28, 10.55]
        and wbf_discrete_cusps(boards)[:3] == [1, 5, 9]
    ]
    assert matches == [20]


def test_fractional_margins_interpolate() -> None:
    """Decision (S2.7): a fractional margin is interpolated between the whole margins and
    rounded half up to the cent; the sides still sum to 20."""
    table = wbf_vp_table(20)
    assert table[2:4] == [10.55, 10.82]
    assert wbf_vp(2.5, 20) == (10.69, 9.31)  # 10.685 rounds up
    assert wbf_vp(Fraction(5, 2), 20) == (10.69, 9.31)
    assert wbf_vp(-2.5, 20) == (9.31, 10.69)
    assert wbf_vp(2, 20) == (10.55, 9.45)
    assert wbf_vp(Fraction(1, 3), 20) == (10.09, 9.91)  # 10 + 28/3 cents
    assert wbf_vp(1000.5, 20) == (20.0, 0.0)


def test_bad_board_counts() -> None:
    """S2.7: a scale needs a whole positive number of boards."""
    for boards in (0, -3, 2.5, True):
        with pytest.raises(ValueError):
            wbf_vp_table(boards)  # type: ignore[arg-type]


# --- Discrete scale: seed 001 section 4 ----------------------------------------------------


@pytest.mark.parametrize("boards", BOARD_COUNTS)
def test_discrete_scale_properties(boards: int) -> None:
    """Seed 001 section 4 / S2.7 for every board count 1-100: bands non-decreasing in width
    (Eqs 13-14, the draw band [-I1, I1] counting 2 I1 + 1), 10-10 in the draw band, 20 above
    I10, winner + loser = 20, monotone in the margin."""
    cusps = wbf_discrete_cusps(boards)
    widths = [2 * cusps[0] + 1] + [b - a for a, b in zip(cusps, cusps[1:], strict=False)]
    assert all(width >= 1 for width in widths)
    assert all(later >= earlier for earlier, later in zip(widths, widths[1:], strict=False))
    assert wbf_discrete_vp(0, boards) == (10, 10)
    assert wbf_discrete_vp(cusps[0], boards) == (10, 10)
    assert wbf_discrete_vp(-cusps[0], boards) == (10, 10)
    assert wbf_discrete_vp(cusps[-1] + 1, boards) == (20, 0)
    previous = 10
    for margin in range(0, cusps[-1] + 3):
        winner, loser = wbf_discrete_vp(margin, boards)
        assert winner + loser == 20
        assert wbf_discrete_vp(-margin, boards) == (loser, winner)
        assert previous <= winner <= previous + 1
        previous = winner
    for k in range(1, 10):
        assert wbf_discrete_vp(cusps[k - 1] + 1, boards)[0] == 10 + k
        assert wbf_discrete_vp(cusps[k], boards)[0] == 10 + k


@pytest.mark.parametrize("boards", BOARD_COUNTS)
def test_discrete_cusps_are_floors_of_imap_up_to_correction(boards: int) -> None:
    """Seed 001 section 4 step 2: I_m = floor(Imap(V_m)), V_m = 10.5..19.5; the correction
    only ever lowers a cusp."""
    blitz = 15 * math.sqrt(boards)
    r = math.sqrt(5) - 2
    for m, cusp in enumerate(wbf_discrete_cusps(boards), start=1):
        vp = 9.5 + m
        exact = blitz * math.log(1 - (1 - r) * (vp / 10 - 1)) / math.log(r)
        assert cusp <= math.floor(exact)


def test_discrete_range_violations_only_for_5_6_7_boards() -> None:
    """Seed 001 section 4.1: of the board numbers 4 to 100, only N = 5, 6, 7 have range
    violations (the integer VP's exact margin outside its discrete band)."""
    assert [n for n in range(4, 101) if discrete_range_violations(n)] == [5, 6, 7]


def test_discrete_fractional_margin() -> None:
    """Decision (S2.7): a fractional margin moves up a band once it exceeds a cusp."""
    cusps = wbf_discrete_cusps(20)
    assert cusps[:3] == [1, 5, 9]
    assert wbf_discrete_vp(1.5, 20) == (11, 9)
    assert wbf_discrete_vp(Fraction(-11, 2), 20) == (8, 12)


# --- Capital scale: seed 004 ---------------------------------------------------------------


def test_capital_scale_seed_example() -> None:
    """Seed 004: TEAM A 28 IMPs - TEAM B 45 IMPs on a capital of 100 is 33 - 67."""
    assert capital_vp(28 - 45) == (33, 67)
    assert capital_vp(45 - 28) == (67, 33)
    assert capital_vp(0) == (50, 50)


def test_capital_scale_caps_and_other_capitals() -> None:
    """Seed 004: the winner gains one VP per IMP, capped at the capital."""
    assert capital_vp(70) == (100, 0)
    assert capital_vp(-50) == (0, 100)
    assert capital_vp(12, capital=20) == (20, 0)
    assert capital_vp(-3, capital=30) == (12, 18)
    with pytest.raises(ValueError):
        capital_vp(3, capital=25)
    with pytest.raises(ValueError):
        capital_vp(Fraction(5, 2))  # type: ignore[arg-type]


# --- Weighted VPs: seed 004 ----------------------------------------------------------------

SEED_004_WEIGHTS = [Fraction(1, 10), Fraction(4, 10), Fraction(4, 10), Fraction(1, 10)]
# Seed 004 prints the differences against the other room's A -1100 as +560, +230, 0, -420
# for A's +1660, +1430, +1100, +680; 1430 - 1100 is really 330 (8 IMPs), a slip in the seed,
# but its IMPs and VPs follow from +230, so the tests use the printed differences.
SEED_004_DIFFERENCES = [560, 230, 0, -420]


def seed_004_board_imps() -> list[int]:
    return [imps(difference) for difference in SEED_004_DIFFERENCES]


def test_weighted_imps_seed_example() -> None:
    """Seed 004: +560 = +11, +230 = +6, 0 = 0, -420 = -9 IMPs, weighted 2.6."""
    board_imps = seed_004_board_imps()
    assert board_imps == [11, 6, 0, -9]
    assert imps(1430 - 1100) == 8
    assert weighted_imps(zip(SEED_004_WEIGHTS, board_imps, strict=True)) == Fraction("2.6")


def test_weighted_vps_seed_example() -> None:
    """Seed 004: weight the VPs. A 53 - B 36 without the board, 16 boards: margins 28, 23, 17
    and 8 give 22, 20, 19 and 17 VPs on the seed's (old, 25-point) scale: 19.5 in all."""
    old_scale = {28: 22, 23: 20, 17: 19, 8: 17}
    margins = [53 + board - 36 for board in seed_004_board_imps()]
    assert margins == [28, 23, 17, 8]

    def seed_scale(margin: int | Fraction | float) -> tuple[float, float]:
        return old_scale[int(margin)], 25 - old_scale[int(margin)]

    outcomes = list(zip(SEED_004_WEIGHTS, margins, strict=True))
    assert weighted_vp(outcomes, 16, scale=seed_scale) == (19.5, 5.5)


def test_weighted_vps_on_the_wbf_scale() -> None:
    """S2.6: on the default WBF continuous scale the weighted VPs are the weighted average of
    each margin's VPs, rounded to the cent, and the sides sum to 20."""
    margins = [28, 23, 17, 8]
    outcomes = list(zip(SEED_004_WEIGHTS, margins, strict=True))
    a, b = weighted_vp(outcomes, 16)
    expected = sum(
        (w * Fraction(str(wbf_vp(m, 16)[0])) for w, m in outcomes),
        Fraction(0),
    )
    assert a == math.floor(expected * 100 + Fraction(1, 2)) / 100
    assert round((a + b) * 100) == 2000
    with pytest.raises(ValueError):
        weighted_vp([(Fraction(1, 2), 3)], 16)


# --- Split scores in team matches: seed 004 Milan-Inter, S2.8 ------------------------------


def test_milan_inter_board_imps() -> None:
    """Seed 004: 40 %/40 % is -3 IMPs each; Milan -800 and -620 is -1420, -16 IMPs; Inter
    -1100 and +620 is -480, -10 IMPs."""
    assert artificial_imps(40) == -3
    assert own_board_imps([-800, -620]) == -16
    assert own_board_imps([-1100, 620]) == -10


def test_milan_inter_views() -> None:
    """Seed 004: without the split boards Milan 78 - Inter 54. Milan's view: Inter score 19
    more, 78 - 73 (+5). Inter's view: Milan score 13 more, 91 - 54 (-37 for Inter)."""
    milan_view, inter_view = split_match_views(78, 54, [-3, -16], [-3, -10])
    assert (milan_view.a_imps, milan_view.b_imps, milan_view.margin) == (78, 73, 5)
    assert (inter_view.a_imps, inter_view.b_imps, inter_view.margin) == (91, 54, 37)


def test_milan_inter_round_robin_vps() -> None:
    """Seed 004 / S2.8: each side's VPs from its own computation: MILAN 16 - INTER 6 on the
    seed's scale (+5 -> 16; -37 -> 6), not summing to the scale's total."""
    seed_scale = {5: (16.0, 14.0), 37: (24.0, 6.0)}

    def scale(margin: int | Fraction | float) -> tuple[float, float]:
        return seed_scale[int(margin)]

    assert round_robin_split_vp(78, 54, [-3, -16], [-3, -10], 20, scale=scale) == (16, 6)
    milan, inter = round_robin_split_vp(78, 54, [-3, -16], [-3, -10], 20)
    assert milan == wbf_vp(5, 20)[0]
    assert inter == wbf_vp(37, 20)[1]
    assert milan + inter != 20


def test_milan_inter_knockout() -> None:
    """Seed 004 / Law 86B: the average of the two results goes to both: 3 IMPs to Inter, MILAN
    78 - INTER 57. The 40 %/40 % board cancels out, as the seed says it may be ignored."""
    assert knockout_split_result(78, 54, [-3, -16], [-3, -10]) == (78, 57)
    assert knockout_split_result(78, 54, [-16], [-10]) == (78, 57)
    assert knockout_split_result(54, 78, [-10], [-16]) == (57, 78)
    assert knockout_split_result(10, 10, [5], [-4]) == (Fraction(29, 2), 10)


@pytest.mark.parametrize(
    "weights, margins",
    [
        ((Fraction(1, 2), Fraction(1, 2)), (1, 2)),  # 10.28 and 10.55: both sides' halves at .005
        (SEED_004_WEIGHTS, (28, 23, 17, 8)),
        ((Fraction(1, 3), Fraction(2, 3)), (-5, 11)),
    ],
)
def test_weighted_vps_add_up_to_the_matchs_twenty(weights, margins) -> None:
    """S2.7: the loser gets 20 - V; rounding each side's weighted VPs on its own gave 20.01."""
    a, b = weighted_vp(list(zip(weights, margins, strict=True)), 20)
    assert Fraction(str(a)) + Fraction(str(b)) == 20
