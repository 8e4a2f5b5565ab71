"""Scoring engine against the worked examples of seed 004 and the rules of SPEC S2."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest

from grading.engine.scoring import (
    BoardResult,
    Method,
    TravellerLine,
    artificial_imps,
    butler_datum,
    butler_imps,
    cross_imps,
    cross_imps_exact,
    ew_matchpoints,
    ew_outcome,
    imps,
    is_adjusted_score,
    matchpoints,
    matchpoints_by_frequency,
    neuberg,
    neuberg_exact,
    ns_outcome,
    parse_adjusted_score,
    score_board,
    small_group_percentages,
)

TABLE_A = [590, 100, -400, -100, 500, 690, -100, -550, -400, -400]
TABLE_F = [600, -100, 630, -200, -100, 600, 1370, -500, 800, 1370]
# Seed 004 Tables I-K: the other nine NS scores beside the weighted line.
TABLE_I_OTHERS = [620, -200, 620, -500, 790, 620, 620, -500, -200]


def plain(board: int, scores: list[int], group: str = "") -> list[TravellerLine]:
    return [
        TravellerLine(board, f"N{group}{i}", f"E{group}{i}", ns_score=score, group=group)
        for i, score in enumerate(scores)
    ]


def ns_values(result: BoardResult) -> list[Fraction]:
    return [line.ns for line in result.lines]


def ew_values(result: BoardResult) -> list[Fraction]:
    return [line.ew for line in result.lines]


# --- S2.1 IMP scale ------------------------------------------------------------------------

IMP_BANDS = [
    (0, 10, 0),
    (20, 40, 1),
    (50, 80, 2),
    (90, 120, 3),
    (130, 160, 4),
    (170, 210, 5),
    (220, 260, 6),
    (270, 310, 7),
    (320, 360, 8),
    (370, 420, 9),
    (430, 490, 10),
    (500, 590, 11),
    (600, 740, 12),
    (750, 890, 13),
    (900, 1090, 14),
    (1100, 1290, 15),
    (1300, 1490, 16),
    (1500, 1740, 17),
    (1750, 1990, 18),
    (2000, 2240, 19),
    (2250, 2490, 20),
    (2500, 2990, 21),
    (3000, 3490, 22),
    (3500, 3990, 23),
]


@pytest.mark.parametrize(("low", "high", "expected"), IMP_BANDS)
def test_imp_scale_bands(low: int, high: int, expected: int) -> None:
    """S2.1 / Law 78B: every band's printed end points, both signs."""
    for points in range(low, high + 10, 10):
        assert imps(points) == expected
        assert imps(-points) == -expected


def test_imp_scale_top_band() -> None:
    """S2.1: 4000 and more is 24 IMPs."""
    assert imps(4000) == 24
    assert imps(7600) == 24
    assert imps(-4000) == -24


def test_imp_scale_non_multiples_of_ten() -> None:
    """S2.1's examples (15 -> 1, 45 -> 2) and the rule behind them: a difference moves to the
    next band as soon as it exceeds a band's printed upper limit (docs/.decisions-scoring.md)."""
    assert imps(15) == 1
    assert imps(45) == 2
    assert imps(Fraction(21, 2)) == 1
    assert imps(-15) == -1
    assert imps(Fraction(445, 1)) == 10
    assert imps(3995.5) == 24
    assert imps(12.5) == 1


def test_artificial_imps_law_86() -> None:
    """S2.4 / Law 86: every 10 % above or below 50 % is 3 IMPs."""
    assert artificial_imps(60) == 3
    assert artificial_imps(50) == 0
    assert artificial_imps(40) == -3
    assert artificial_imps(55) == Fraction(3, 2)


# --- S2.2 Match points: seed 004 Tables A-D -------------------------------------------------


def test_table_b_match_points() -> None:
    """Seed 004 Tables A-B: NS and EW match points of the ten-score traveller."""
    assert matchpoints(TABLE_A) == [16, 12, 4, 9, 14, 18, 9, 0, 4, 4]
    assert ew_matchpoints(TABLE_A) == [2, 6, 14, 9, 4, 0, 9, 18, 14, 14]


def test_table_b_by_score_board() -> None:
    """Seed 004 Table B through score_board: the traveller with its NS and EW columns."""
    result = score_board(plain(1, TABLE_A), Method.MP)
    assert ns_values(result) == [16, 12, 4, 9, 14, 18, 9, 0, 4, 4]
    assert ew_values(result) == [2, 6, 14, 9, 4, 0, 9, 18, 14, 14]
    assert result.top == 18
    assert result.lines[5].ns_percent == 100
    assert result.lines[7].ns_percent == 0


TABLE_C = {1660: 1, 1430: 21, 680: 54, 650: 18, 620: 4, -100: 1, -200: 1}
TABLE_D = {1660: 198, 1430: 176, 680: 101, 650: 29, 620: 7, -100: 2, -200: 0}


def test_table_d_frequency_method() -> None:
    """Seed 004 Tables C-D: a frequency table of 100 results matchpointed by the running sum."""
    scores = [score for score, count in TABLE_C.items() for _ in range(count)]
    assert len(scores) == 100
    units = matchpoints_by_frequency(scores)
    assert {score: units[scores.index(score)] for score in TABLE_C} == TABLE_D


def test_table_d_equals_pairwise_comparison() -> None:
    """Seed 004 Table D's trick gives Law 78A's numbers (S2.2)."""
    scores = [score for score, count in TABLE_C.items() for _ in range(count)]
    assert matchpoints_by_frequency(scores) == matchpoints(scores)
    assert sum(matchpoints(scores)) == 100 * 99


# --- S2.3 Neuberg and small groups: seed 004 Table E ---------------------------------------

TABLE_E = {170: 2, 140: 5, 110: 1, -50: 1, -100: 2, -530: 1}
TABLE_E_MP = {170: 21, 140: 14, 110: 8, -50: 6, -100: 3, -530: 0}
TABLE_E_FACTORED = {170: 109, 140: 74, 110: 44, -50: 34, -100: 19, -530: 4}


def table_e_scores() -> list[int]:
    return [score for score, count in TABLE_E.items() for _ in range(count)]


def test_table_e_group_match_points() -> None:
    """Seed 004 Table E: the 12-score group's own match points."""
    scores = table_e_scores()
    units = matchpoints(scores)
    assert {score: units[scores.index(score)] for score in TABLE_E} == TABLE_E_MP


def test_table_e_neuberg() -> None:
    """Seed 004 Table E / S2.3: N = 60, n = 12, so MP = 5(mp + 1) - 1 (170 -> 109)."""
    for score, mp in TABLE_E_MP.items():
        assert neuberg(mp, 12, 60) == TABLE_E_FACTORED[score]
        assert neuberg_exact(mp, 12, 60) == TABLE_E_FACTORED[score]


def test_table_e_by_score_board_with_expected() -> None:
    """Seed 004 Table E through score_board: the group of 12 factored to 60 expected scores."""
    scores = table_e_scores()
    result = score_board(plain(7, scores), Method.MP, expected=60)
    assert result.top == 118
    assert ns_values(result) == [TABLE_E_FACTORED[score] for score in scores]


def test_table_e_fouled_board_groups() -> None:
    """Seed 004 Table E's setting: a fouled board split into groups of 48 and 12 (S2.3).

    Each group is compared within itself and factored to the 60 scores of the board.
    """
    other_group = [TravellerLine(7, f"X{i}", f"Y{i}", ns_score=420, group="A") for i in range(48)]
    lines = other_group + plain(7, table_e_scores(), group="B")
    result = score_board(lines, Method.MP)
    assert result.expected == 60
    small = result.lines[48:]
    assert [line.ns for line in small] == [TABLE_E_FACTORED[s] for s in table_e_scores()]
    # 48 equal scores: each has 47 ties, factored 60/48: 1.25 x 48 - 1 = 59, exactly average.
    assert all(line.ns == 59 and line.ew == 59 for line in result.lines[:48])


def test_neuberg_keeps_the_average() -> None:
    """S2.3: Neuberg maps a group's average to the full board's average."""
    scores = table_e_scores()
    factored = [neuberg_exact(mp, 12, 60) for mp in matchpoints(scores)]
    assert sum(factored) / 12 == 59


def test_small_group_percentages() -> None:
    """Seed 004 / S2.3: 1 score 60 %; 2 scores 65 and 55 (tied 60 each); 3 scores 70, 60, 50,
    ties sharing the average of the places they span."""
    assert small_group_percentages([100]) == [60]
    assert small_group_percentages([100, 200]) == [55, 65]
    assert small_group_percentages([100, 100]) == [60, 60]
    assert small_group_percentages([50, 100, -100]) == [60, 70, 50]
    assert small_group_percentages([100, 100, -100]) == [65, 65, 50]
    assert small_group_percentages([100, -100, -100]) == [70, 55, 55]
    assert small_group_percentages([0, 0, 0]) == [60, 60, 60]
    with pytest.raises(ValueError):
        small_group_percentages([1, 2, 3, 4])


def test_small_group_on_a_board() -> None:
    """S2.3: a group of 2 on a board expecting 10 gets 65/55 % of the top (18); EW's ranking
    is the reverse of NS's."""
    lines = plain(3, [400] * 8, group="A") + plain(3, [620, -100], group="B")
    result = score_board(lines, Method.MP)
    better, worse = result.lines[8], result.lines[9]
    assert (better.ns_percent, worse.ns_percent) == (65, 55)
    assert (better.ew_percent, worse.ew_percent) == (55, 65)
    assert better.ns == Fraction(117, 10)


def test_small_group_one_and_three_scores() -> None:
    """S2.3: one score alone gets 60 % both ways; three get 70/60/50."""
    alone = score_board(plain(4, [420]), Method.MP, expected=5)
    assert (alone.lines[0].ns_percent, alone.lines[0].ew_percent) == (60, 60)
    three = score_board(plain(4, [420, 450, -50]), Method.MP, expected=12)
    assert [line.ns_percent for line in three.lines] == [60, 70, 50]
    assert [line.ew_percent for line in three.lines] == [60, 50, 70]


def test_small_group_rule_needs_fewer_scores_than_expected() -> None:
    """S2.3 is about boards played fewer times than expected: a three-table board played
    three times is matchpointed normally."""
    result = score_board(plain(4, [420, 450, -50]), Method.MP)
    assert ns_values(result) == [2, 4, 0]


def test_small_group_rule_can_be_switched_off() -> None:
    """``small_group_max=0`` Neuberg-factors small groups too (documented option)."""
    result = score_board(plain(4, [420, 450, -50]), Method.MP, expected=4, small_group_max=0)
    assert ns_values(result) == [Fraction(3), Fraction(17, 3), Fraction(1, 3)]


# --- S2.4 Artificial adjusted scores -------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("A60", (60, None)),
        ("A50", (50, None)),
        ("A40", (40, None)),
        ("AVE+", (60, None)),
        ("AVE", (50, None)),
        ("AVE-", (40, None)),
        ("ave=", (50, None)),
        ("AV+", (60, None)),
        ("AVG-", (40, None)),
        (" A6040 ", (60, 40)),
        ("A4060", (40, 60)),
        ("A5050", (50, 50)),
        ("A6060", (60, 60)),
        ("A4040", (40, 40)),
        ("A60/40", (60, 40)),
    ],
)
def test_parse_adjusted_score(code: str, expected: tuple[int, int | None]) -> None:
    """S2.4: A60/A50/A40, AVE+/AVE/AVE-, and the combined NS-first codes of real files."""
    assert parse_adjusted_score(code) == expected
    assert is_adjusted_score(code)


@pytest.mark.parametrize("code", ["", "420", "A", "A6", "A604", "AVE++", "X60", "A60-40-20"])
def test_parse_adjusted_score_rejects(code: str) -> None:
    """S2.4: anything else is not an adjusted score."""
    assert not is_adjusted_score(code)
    with pytest.raises(ValueError):
        parse_adjusted_score(code)


def test_adjusted_codes_on_a_line() -> None:
    """S2.4: each side independently; a one-side code gives the other side the complement
    unless it has its own score (seed 004: artificial for one side, assigned for the other)."""
    combined = TravellerLine(1, "1", "2", ns_adjusted="A6040")
    assert (ns_outcome(combined).percent, ew_outcome(combined).percent) == (60, 40)
    one_side = TravellerLine(1, "1", "2", ns_adjusted="AVE+")
    assert (ns_outcome(one_side).percent, ew_outcome(one_side).percent) == (60, 40)
    both = TravellerLine(1, "1", "2", ns_adjusted="A40", ew_adjusted="A40")
    assert (ns_outcome(both).percent, ew_outcome(both).percent) == (40, 40)
    mixed = TravellerLine(1, "1", "2", ns_adjusted="A60", ew_score=-420)
    assert ns_outcome(mixed).percent == 60
    assert ew_outcome(mixed).components == ((1, -420),)
    ew_combined = TravellerLine(1, "1", "2", ew_adjusted="A6040")
    assert (ns_outcome(ew_combined).percent, ew_outcome(ew_combined).percent) == (60, 40)


def test_line_without_a_result_is_an_error() -> None:
    """A line with neither score nor adjustment cannot be scored."""
    with pytest.raises(ValueError, match="no score"):
        ns_outcome(TravellerLine(1, "1", "2"))
    with pytest.raises(ValueError, match="more than one"):
        ns_outcome(TravellerLine(1, "1", "2", ns_score=420, ns_adjusted="A60"))


def test_adjusted_scores_at_match_points() -> None:
    """S2.4: A60/A40 are 60 %/40 % of the top; the other scores leave the adjusted line out
    and are Neuberg-factored back to the full number of scores."""
    lines = plain(1, TABLE_A[:9]) + [TravellerLine(1, "N9", "E9", ns_adjusted="A6040")]
    result = score_board(lines, Method.MP)
    adjusted = result.lines[9]
    assert (adjusted.ns, adjusted.ew) == (Fraction(54, 5), Fraction(36, 5))
    assert (adjusted.ns_artificial, adjusted.ew_artificial) == (True, True)
    own = matchpoints(TABLE_A[:9])
    assert ns_values(result)[:9] == [neuberg_exact(mp, 9, 10) for mp in own]


def test_adjusted_scores_at_imps() -> None:
    """S2.4: at IMPs A60 is +3 and A40 -3, and the adjusted line stays out of the datum."""
    lines = plain(1, TABLE_F) + [TravellerLine(1, "N10", "E10", ns_adjusted="A6040")]
    butler = score_board(lines, Method.BUTLER)
    assert (butler.lines[10].ns, butler.lines[10].ew) == (3, -3)
    assert ns_values(butler)[:10] == butler_imps(TABLE_F)
    cross = score_board(lines, "CROSS_IMP")
    assert (cross.lines[10].ns, cross.lines[10].ew) == (3, -3)
    assert ns_values(cross)[:10] == cross_imps_exact(TABLE_F, average=True)


def test_every_line_adjusted() -> None:
    """S2.4: a board where nobody played still scores the artificial percentages."""
    lines = [
        TravellerLine(2, "1", "2", ns_adjusted="A5050"),
        TravellerLine(2, "3", "4", ns_adjusted="A6040"),
    ]
    result = score_board(lines, Method.MP)
    assert [(line.ns, line.ew) for line in result.lines] == [
        (1, 1),
        (Fraction(6, 5), Fraction(4, 5)),
    ]


# --- S2.5 Butler: seed 004 Table F -------------------------------------------------------


def test_table_f_butler() -> None:
    """Seed 004 Table F: datum 447 rounds to 450; NS IMPs +4 -11 +5 -12 -11 +4 +14 -14 +8 +14."""
    assert butler_datum(TABLE_F) == 450
    assert butler_imps(TABLE_F) == [4, -11, 5, -12, -11, 4, 14, -14, 8, 14]


def test_table_f_by_score_board() -> None:
    """Seed 004 Table F through score_board; EW get the opposite (S2.5)."""
    result = score_board(plain(1, TABLE_F), Method.BUTLER)
    assert ns_values(result) == [4, -11, 5, -12, -11, 4, 14, -14, 8, 14]
    assert ew_values(result) == [-4, 11, -5, 12, 11, -4, -14, 14, -8, -14]
    assert {line.ns_datum for line in result.lines} == {450}


def test_butler_datum_rounding() -> None:
    """S2.5: a datum ending in 5 rounds toward +infinity: 445 -> 450, -445 -> -440."""
    assert butler_datum([440, 450]) == 450
    assert butler_datum([-440, -450]) == -440
    assert butler_datum([444, 444]) == 440
    assert butler_datum([-446]) == -450
    assert butler_datum([0, 1]) == 0


def test_butler_datum_halves_away_from_zero() -> None:
    """The variant some programs use (docs/decisions.md): a negative 5 rounds away from zero;
    everything else as S2.5."""
    assert butler_datum([-440, -450], halves="away") == -450
    assert butler_datum([440, 450], halves="away") == 450
    assert butler_datum([-444, -444], halves="away") == -440
    assert butler_datum([-446], halves="away") == -450
    assert butler_datum([-5, -5], halves="away") == -10
    with pytest.raises(ValueError):
        butler_datum([-445], halves="down")


def test_butler_drop_highest_and_lowest() -> None:
    """S2.5: the club setting drops the k highest and k lowest scores before averaging."""
    assert butler_datum(TABLE_F, drop=1) == 450  # (4470 + 500 - 1370) / 8 = 450
    assert butler_datum([-2000, 100, 200, 300, 5000], drop=1) == 200
    assert butler_datum([-2000, 100, 200, 300, 5000], drop=2) == 200
    # Too few scores for the setting: as many dropped as leave one score.
    assert butler_datum([100, 300], drop=1) == 200
    assert butler_datum([100, 200, 900], drop=5) == 200
    with pytest.raises(ValueError):
        butler_datum([100], drop=-1)
    with pytest.raises(ValueError):
        butler_datum([])


def test_butler_drop_in_score_board() -> None:
    """S2.5: the drop setting reaches score_board."""
    scores = [-2000, 100, 200, 300, 5000]
    result = score_board(plain(1, scores), Method.BUTLER, drop=1)
    assert ns_values(result) == [imps(score - 200) for score in scores]
    assert result.lines[0].ns_datum == 200


# --- S2.5 Cross-IMPs: seed 004 Table G ----------------------------------------------------

TABLE_G = [20, -70, 25, -86, -70, 20, 116, -122, 51, 116]


def test_table_g_cross_imps() -> None:
    """Seed 004 Table G: cross-IMP totals of the Table F traveller."""
    assert cross_imps(TABLE_F) == TABLE_G
    assert cross_imps_exact(TABLE_F) == TABLE_G


def test_table_g_averaged() -> None:
    """Seed 004 / S2.5: the averaged form divides by the 9 comparisons."""
    assert cross_imps_exact(TABLE_F, average=True) == [Fraction(t, 9) for t in TABLE_G]
    assert cross_imps(TABLE_F, average=True)[0] == pytest.approx(20 / 9)
    assert cross_imps([420], average=True) == [0.0]


def test_table_g_by_score_board() -> None:
    """Seed 004 Table G through score_board: averaged per comparison, EW the opposite."""
    result = score_board(plain(1, TABLE_F), Method.CROSS_IMP)
    assert ns_values(result) == [Fraction(t, 9) for t in TABLE_G]
    assert ew_values(result) == [Fraction(-t, 9) for t in TABLE_G]


# --- S2.5 Aggregate ----------------------------------------------------------------------


def test_aggregate_board() -> None:
    """S2.5: aggregate scores points, with the mean of the side's direction beside them."""
    result = score_board(plain(1, [420, -50, 170]), Method.AGGREGATE)
    assert ns_values(result) == [420, -50, 170]
    assert ew_values(result) == [-420, 50, -170]
    assert result.lines[0].ns_mean == 180
    assert result.lines[0].ew_mean == -180


def test_aggregate_artificial() -> None:
    """Decision (docs/.decisions-scoring.md): at aggregate an artificial score is the mean of
    the real scores plus 8.2 points per percent above 50 (the NGS's own conversion, S3.3)."""
    lines = plain(1, [420, -20]) + [TravellerLine(1, "N2", "E2", ns_adjusted="A6040")]
    result = score_board(lines, Method.AGGREGATE)
    assert (result.lines[2].ns, result.lines[2].ew) == (200 + 82, -200 - 82)
    custom = score_board(lines, Method.AGGREGATE, points_per_percent=Fraction(10))
    assert custom.lines[2].ns == 300


# --- S2.6 Split scores: seed 004 Table H -------------------------------------------------


def table_h_lines() -> list[TravellerLine]:
    lines = plain(1, TABLE_A)
    # NS -400; EW's own score is -690 from EW's seat, i.e. +690 in NS sign.
    lines[2] = TravellerLine(1, "N2", "E2", ns_score=-400, ew_score=690)
    return lines


def test_table_h_split_score() -> None:
    """Seed 004 Table H: each side matchpointed in its own direction's frequency table."""
    result = score_board(table_h_lines(), Method.MP)
    assert ns_values(result) == [16, 12, 4, 9, 14, 18, 9, 0, 4, 4]
    assert ew_values(result) == [4, 8, 1, 11, 6, 1, 11, 18, 15, 15]


def test_split_score_butler_has_a_datum_per_direction() -> None:
    """S2.6: at IMPs each direction has its own datum (seed 004 after Table H)."""
    result = score_board(table_h_lines(), Method.BUTLER)
    ns_datum = butler_datum(TABLE_A)
    ew_scores = [690 if i == 2 else score for i, score in enumerate(TABLE_A)]
    ew_datum = butler_datum(ew_scores)
    assert (ns_datum, ew_datum) == (-10, 100)
    assert {line.ns_datum for line in result.lines} == {ns_datum}
    assert {line.ew_datum for line in result.lines} == {ew_datum}
    assert result.lines[2].ns == imps(-400 - ns_datum)
    assert result.lines[2].ew == -imps(690 - ew_datum) == -11


# --- S2.6 Weighted scores: seed 004 Tables I, J, K ---------------------------------------

NS_WEIGHTING = ((Fraction(1, 10), 1100), (Fraction(7, 10), 620), (Fraction(2, 10), -200))
# Table K: EW 3/10 of -1100, 6/10 of -620, 1/10 of +200 (EW's seat) -> NS sign below.
EW_WEIGHTING = ((Fraction(3, 10), 1100), (Fraction(6, 10), 620), (Fraction(1, 10), -200))


def weighted_lines(ew_weighting: tuple[tuple[Fraction, int], ...] = ()) -> list[TravellerLine]:
    first = TravellerLine(1, "W", "V", ns_weighted=NS_WEIGHTING, ew_weighted=ew_weighting)
    return [first, *plain(1, TABLE_I_OTHERS)]


def test_table_j_frequency_tables() -> None:
    """Seed 004 Table J: the three frequency tables, one per component (its "NS IMPs"
    columns are match points)."""
    columns = {
        1100: [18, 11, 5, 11, 1, 16, 11, 11, 1, 5],
        620: [12, 12, 5, 12, 1, 18, 12, 12, 1, 5],
        -200: [6, 13, 6, 13, 1, 18, 13, 13, 1, 6],
    }
    for component, expected in columns.items():
        assert matchpoints([component, *TABLE_I_OTHERS]) == expected


def test_table_i_weighted_score() -> None:
    """Seed 004 Table I: final NS MPs 11.4, 12.1, 5.2, 12.1, 1, 17.8, 12.1, 12.1, 1, 5.2."""
    result = score_board(weighted_lines(), Method.MP)
    expected = ["11.4", "12.1", "5.2", "12.1", "1", "17.8", "12.1", "12.1", "1", "5.2"]
    assert ns_values(result) == [Fraction(value) for value in expected]


def test_table_i_ew_takes_the_balance() -> None:
    """Seed 004 after Table I: with the same weighting for EW, EW get the balance (6.6)."""
    result = score_board(weighted_lines(), Method.MP)
    assert result.lines[0].ew == Fraction("6.6")
    assert all(line.ns + line.ew == 18 for line in result.lines)


def test_table_k_ew_weighted_differently() -> None:
    """Seed 004 Table K: EW weighted 3/10, 6/10, 1/10 in their own frequency tables.

    The seed prints 5.2 for three of the four -620 rows; its own columns (7, 6, 5) give 6.2,
    as its first -620 row shows. The text's "4.2 IMPs" for the weighted pair is likewise Table
    K's 4.8 (0.3 x 0 + 0.6 x 6 + 0.1 x 12).
    """
    result = score_board(weighted_lines(EW_WEIGHTING), Method.MP)
    expected = ["4.8", "6.2", "12.9", "6.2", "17", "0.6", "6.2", "6.2", "17", "12.9"]
    assert ew_values(result) == [Fraction(value) for value in expected]
    # NS are unchanged: Table I.
    assert result.lines[5].ns == Fraction("17.8")


def test_table_k_component_columns() -> None:
    """Seed 004 Table K: the EW match points of each component's frequency table."""
    columns = {
        1100: [0, 7, 13, 7, 17, 2, 7, 7, 17, 13],
        620: [6, 6, 13, 6, 17, 0, 6, 6, 17, 13],
        -200: [12, 5, 12, 5, 17, 0, 5, 5, 17, 12],
    }
    for component, expected in columns.items():
        assert matchpoints([-component, *(-s for s in TABLE_I_OTHERS)]) == expected


def test_weighted_score_at_butler_weights_the_imps() -> None:
    """S2.6: at IMPs weight the IMPs; each combination has its own datum.

    Half 100, half 300 against 200 and 0: datums 100 and 170, so the weighted pair gets
    (0 + 4) / 2, the 200 gets (3 + 1) / 2 and the 0 gets (-3 - 5) / 2.
    """
    weighted = TravellerLine(
        1, "W", "V", ns_weighted=((Fraction(1, 2), 100), (Fraction(1, 2), 300))
    )
    result = score_board([weighted, *plain(1, [200, 0])], Method.BUTLER)
    assert ns_values(result) == [2, 2, -4]
    assert ew_values(result) == [-2, -2, 4]
    assert result.lines[0].ns_datum is None


def test_weighted_score_at_cross_imps() -> None:
    """S2.6: at cross-IMPs the weighted pair's IMPs are weighted per component."""
    weighted = TravellerLine(
        1, "W", "V", ns_weighted=((Fraction(1, 4), 600), (Fraction(3, 4), 100))
    )
    result = score_board([weighted, *plain(1, [200, -100])], Method.CROSS_IMP)
    first = (
        Fraction(1, 4) * (imps(400) + imps(700)) + Fraction(3, 4) * (imps(-100) + imps(200))
    ) / 2
    assert result.lines[0].ns == first


def test_weights_must_sum_to_one() -> None:
    """S2.6: weights are a distribution."""
    bad = TravellerLine(1, "W", "V", ns_weighted=((Fraction(1, 2), 100), (Fraction(1, 3), 300)))
    with pytest.raises(ValueError, match="sum to 1"):
        score_board([bad, *plain(1, [0])], Method.MP)
    floats = TravellerLine(1, "W", "V", ns_weighted=((0.1, 1100), (0.7, 620), (0.2, -200)))  # type: ignore[arg-type]
    assert score_board([floats, *plain(1, TABLE_I_OTHERS)], Method.MP).lines[0].ns == Fraction(
        "11.4"
    )


# --- score_board validation ---------------------------------------------------------------


def test_score_board_validates_the_traveller() -> None:
    """A traveller is one board, each pair at most once, enough expected scores."""
    with pytest.raises(ValueError, match="one board"):
        score_board([*plain(1, [1]), *plain(2, [1])], Method.MP)
    with pytest.raises(ValueError, match="twice"):
        score_board(
            [TravellerLine(1, "1", "2", ns_score=0), TravellerLine(1, "3", "1", ns_score=0)],
            Method.MP,
        )
    with pytest.raises(ValueError, match="itself"):
        score_board([TravellerLine(1, "1", "1", ns_score=0)], Method.MP)
    with pytest.raises(ValueError, match="expected"):
        score_board(plain(1, [1, 2, 3]), Method.MP, expected=2)
    with pytest.raises(ValueError, match="at least one"):
        score_board([], Method.MP)
    with pytest.raises(ValueError):
        score_board(plain(1, [1]), "TOTAL_NONSENSE")


def test_method_values_are_the_csv_codes() -> None:
    """S12.1: the CSV ``scoring`` codes name the methods."""
    assert [Method(code) for code in ("MP", "BUTLER", "CROSS_IMP", "AGGREGATE")] == list(Method)


def test_frequency_of_results_is_order_independent() -> None:
    """S2.2: a traveller's order does not matter."""
    forward = score_board(plain(1, TABLE_A), Method.MP)
    backward = score_board(plain(1, TABLE_A)[::-1], Method.MP)
    assert Counter(ns_values(forward)) == Counter(ns_values(backward))


def test_artificial_score_can_leave_a_small_group() -> None:
    """S2.3 with S2.4 (docs/.decisions-scoring.md): on a 4-table board an A60 leaves three real
    scores, fewer than the 4 expected, so they get 70/60/50 % of the top of 6."""
    lines = plain(5, [420, -50, 170]) + [TravellerLine(5, "X", "Y", ns_adjusted="A60")]
    result = score_board(lines, Method.MP)
    assert [line.ns_percent for line in result.lines] == [70, 50, 60, 60]
    assert [line.ew_percent for line in result.lines] == [50, 70, 60, 40]


def test_butler_refuses_an_absurd_number_of_weighted_combinations() -> None:
    """S2.6: Butler enumerates weighted combinations; a board needing over 100 000 is refused
    rather than left running."""
    weighting = tuple((Fraction(1, 4), points) for points in (100, 200, 300, 400))
    lines = [TravellerLine(1, f"N{i}", f"E{i}", ns_weighted=weighting) for i in range(9)]
    with pytest.raises(ValueError, match="too many"):
        score_board(lines, Method.BUTLER)
    assert score_board(lines, Method.MP).lines[0].ns == 8


# --- Groups of artificial scores only, and weighted scores in small groups -------------------


@pytest.mark.parametrize("drop", [0, 1])
def test_a_butler_board_of_artificial_scores_only_gets_3_imps_per_10_percent(drop):
    """S2.4: at IMPs every 10 % above or below 50 % is 3 IMPs; a board with no real score has
    no datum, and must not stop the session's scoring."""
    board = score_board(
        [TravellerLine(7, "1", "a", ns_adjusted="A6040")], Method.BUTLER, 2, drop=drop
    )
    assert [(line.ns, line.ew) for line in board.lines] == [(3, -3)]


def test_a_fouled_boards_group_of_artificial_scores_only_leaves_the_other_group_alone():
    real = [TravellerLine(3, "1", "a", ns_score=420), TravellerLine(3, "2", "b", ns_score=400)]
    alone = score_board(real, Method.BUTLER)
    board = score_board(
        real + [TravellerLine(3, "3", "c", ns_adjusted="A50", group="x")], Method.BUTLER
    )
    assert [line.ns for line in board.lines] == [line.ns for line in alone.lines] + [0]


def test_a_weighted_score_in_a_small_group_averages_its_components_places():
    """S2.3 places a group of 3 at 70/60/50 %; S2.6 weights each component's frequency table.
    NS A is half +200 (first: 70, 60, 50 for A, B, C) and half -200 (last: 50, 70, 60), so
    A 60 %, B 65 %, C 55 %; not the places of the expected match points (60, 70, 50)."""
    half = Fraction(1, 2)
    lines = [
        TravellerLine(1, "A", "a", ns_weighted=((half, 200), (half, -200))),
        TravellerLine(1, "B", "b", ns_score=100),
        TravellerLine(1, "C", "c", ns_score=0),
    ]
    board = score_board(lines, Method.MP, expected=5)
    assert [line.ns_percent for line in board.lines] == [60, 65, 55]
    assert [line.ew_percent for line in board.lines] == [60, 55, 65]
