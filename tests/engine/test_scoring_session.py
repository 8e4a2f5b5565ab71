"""Session totals (SPEC S2, S3.3, S3.7): score_session over a session's travellers."""

from __future__ import annotations

from fractions import Fraction

import pytest

from grading.engine.scoring import (
    Method,
    TravellerLine,
    butler_imps,
    cross_imps_exact,
    matchpoints,
    mp_percentages_real_top,
    neuberg_exact,
    score_board,
    score_session,
)

# A two-winner Mitchell of 3 tables and 3 boards: NS pair n sits at table n throughout, EW
# pairs move up one table a round; every board is played at every table.
MITCHELL_SCORES = {1: [420, 450, -50], 2: [-100, -100, 140], 3: [620, 170, 620]}
EW_AT_TABLE = {1: ["1EW", "2EW", "3EW"], 2: ["3EW", "1EW", "2EW"], 3: ["2EW", "3EW", "1EW"]}


def mitchell() -> list[list[TravellerLine]]:
    return [
        [
            TravellerLine(board, f"{table + 1}NS", EW_AT_TABLE[board][table], ns_score=score)
            for table, score in enumerate(scores)
        ]
        for board, scores in MITCHELL_SCORES.items()
    ]


def test_two_winner_match_points() -> None:
    """S2.2, S3.7: units summed over the boards played, percentage = units / tops x 100."""
    result = score_session(mitchell(), Method.MP)
    expected_ns = {f"{t + 1}NS": 0 for t in range(3)}
    for scores in MITCHELL_SCORES.values():
        for table, units in enumerate(matchpoints(scores)):
            expected_ns[f"{table + 1}NS"] += units
    for pair, units in expected_ns.items():
        assert result[pair].total == units
        assert result[pair].top == 12
        assert result[pair].boards_played == 3
        assert result[pair].percentage == pytest.approx(units / 12 * 100)
        assert result[pair].directions == frozenset({"NS"})
    assert result["1NS"].total == 2 + 1 + 3
    ns = [result[f"{t}NS"].percentage_exact for t in (1, 2, 3)]
    ew = [result[f"{t}EW"].percentage_exact for t in (1, 2, 3)]
    assert sum(p for p in ns if p is not None) / 3 == 50
    assert sum(p for p in ew if p is not None) / 3 == 50


def test_one_winner_pairs_sit_both_ways() -> None:
    """S2 for one-winner movements: a pair's NS and EW boards add into one total."""
    boards = [
        [TravellerLine(1, "1", "2", ns_score=420), TravellerLine(1, "3", "4", ns_score=-50)],
        [TravellerLine(2, "2", "3", ns_score=100), TravellerLine(2, "4", "1", ns_score=110)],
        [TravellerLine(3, "3", "1", ns_score=-200), TravellerLine(3, "2", "4", ns_score=-200)],
    ]
    result = score_session(boards, Method.MP)
    assert result["1"].total == 2 + 0 + 1
    assert result["1"].directions == frozenset({"NS", "EW"})
    assert result["1"].boards_played == 3
    assert result["1"].top == 6
    assert sum(pair.total for pair in result.values()) == 3 * 2 * 2


def test_boards_played_different_numbers_of_times_are_factored() -> None:
    """S2.3: a board played fewer times than the others is Neuberg-factored to the session's
    largest traveller, so every board carries the same top."""
    full = [TravellerLine(1, f"{i}N", f"{i}E", ns_score=s) for i, s in enumerate([1, 2, 3, 4, 5])]
    short = [TravellerLine(2, f"{i}N", f"{i}E", ns_score=s) for i, s in enumerate([9, 8, 7, 6])]
    result = score_session([full, short], Method.MP)
    units = matchpoints([9, 8, 7, 6])
    for i in range(4):
        assert result[f"{i}N"].top == 16
        assert result[f"{i}N"].total == matchpoints([1, 2, 3, 4, 5])[i] + neuberg_exact(
            units[i], 4, 5
        )
    assert result["0N"].total == 0 + Fraction(5, 4) * 7 - 1
    assert result["4N"].boards_played == 1
    assert result["4N"].top == 8
    assert result["4N"].percentage == 100


def test_short_board_of_three_gets_small_group_percentages() -> None:
    """S2.3: a board played 3 times in a session whose boards are played 4 times gets the
    artificial 70/60/50 % instead of Neuberg."""
    full = [TravellerLine(1, f"{i}N", f"{i}E", ns_score=s) for i, s in enumerate([1, 2, 3, 4])]
    short = [TravellerLine(2, f"{i}N", f"{i}E", ns_score=s) for i, s in enumerate([9, 8, 7])]
    result = score_session([full, short], Method.MP)
    assert [result[f"{i}N"].total for i in range(3)] == [
        Fraction(0 + 42, 10),
        Fraction(20 + 36, 10),
        Fraction(40 + 30, 10),
    ]


def test_expected_can_be_given() -> None:
    """S2.3: a session may say how many scores each board should have had."""
    board = [TravellerLine(1, f"{i}N", f"{i}E", ns_score=s) for i, s in enumerate(range(5))]
    as_int = score_session([board], Method.MP, expected=6)
    as_map = score_session([board], Method.MP, expected={1: 6})
    assert as_int == as_map
    assert as_int["4N"].top == 10
    assert as_int["4N"].total == neuberg_exact(8, 5, 6)


def test_artificial_scores_count_as_boards_played() -> None:
    """S3.7 (FAQ 24-25): an artificial average counts toward boards played and the top."""
    board1 = [
        TravellerLine(1, "1NS", "1EW", ns_score=420),
        TravellerLine(1, "2NS", "2EW", ns_score=400),
        TravellerLine(1, "3NS", "3EW", ns_adjusted="A6040"),
    ]
    board2 = [
        TravellerLine(2, "1NS", "2EW", ns_score=140),
        TravellerLine(2, "2NS", "3EW", ns_score=110),
        TravellerLine(2, "3NS", "1EW", ns_score=-50),
    ]
    result = score_session([board1, board2], Method.MP)
    assert result["3NS"].boards_played == 2
    assert result["3NS"].top == 8
    assert result["3NS"].total == Fraction(12, 5) + 0
    assert result["3EW"].total == Fraction(8, 5) + 2
    # The two real scores left on board 1 are a small group (S2.3): 65 % and 55 %.
    assert result["1NS"].total == Fraction(13, 5) + 4
    assert result["2NS"].total == Fraction(11, 5) + 2


def test_cross_imp_session_is_a_sum_of_board_averages() -> None:
    """S2.5 / S3.3: a pair's session cross-IMP figure is the sum of its per-board averages."""
    result = score_session(mitchell(), Method.CROSS_IMP)
    for table in range(3):
        expected = sum(
            cross_imps_exact(scores, average=True)[table] for scores in MITCHELL_SCORES.values()
        )
        assert result[f"{table + 1}NS"].total == expected
        assert result[f"{table + 1}NS"].top is None
        assert result[f"{table + 1}NS"].percentage is None
    assert sum(pair.total for pair in result.values()) == 0


def test_butler_session() -> None:
    """S2.5 / S3.3: Butler IMPs summed over the session."""
    result = score_session(mitchell(), Method.BUTLER, drop=0)
    for table in range(3):
        expected = sum(butler_imps(scores)[table] for scores in MITCHELL_SCORES.values())
        assert result[f"{table + 1}NS"].total == expected
        assert result[f"{table + 1}NS"].per_board == Fraction(expected, 3)


def test_aggregate_session() -> None:
    """S2.5 / S3.3: total points g and the mean m of the direction sat, over boards played."""
    result = score_session(mitchell(), Method.AGGREGATE)
    means = {board: Fraction(sum(scores), 3) for board, scores in MITCHELL_SCORES.items()}
    assert result["1NS"].total == 420 - 100 + 620
    assert result["1NS"].direction_mean == sum(means.values())
    assert result["1EW"].total == -(420 - 100 + 620)
    assert result["1EW"].direction_mean == -sum(means.values())


def test_flat_lines_and_mappings_are_accepted() -> None:
    """score_session takes travellers, a board -> lines mapping, or one flat list of lines
    (as grading.engine.types.SessionResult.travellers holds them)."""
    travellers = mitchell()
    flat = [line for traveller in travellers for line in traveller]
    by_board = {traveller[0].board: traveller for traveller in travellers}
    reference = score_session(travellers, "MP")
    assert score_session(flat, Method.MP) == reference
    assert score_session(by_board, Method.MP) == reference


def test_session_validation() -> None:
    """A board may appear in one traveller only; travellers and lines are not mixed."""
    travellers = mitchell()
    with pytest.raises(ValueError, match="more than one traveller"):
        score_session([travellers[0], travellers[0]], Method.MP)
    with pytest.raises(TypeError):
        score_session([travellers[0], travellers[1][0]], Method.MP)
    assert score_session([], Method.MP) == {}


def test_session_matches_board_by_board() -> None:
    """The session totals are the sums of score_board's per-line results."""
    for method in Method:
        result = score_session(mitchell(), method)
        for pair, summary in result.items():
            total = Fraction(0)
            for traveller in mitchell():
                for line in score_board(traveller, method).lines:
                    total += line.ns if line.ns_pair == pair else 0
                    total += line.ew if line.ew_pair == pair else 0
            assert summary.total == total
            assert summary.method is method


def test_a_top_without_the_adjusted_table_as_brian_scores_it() -> None:
    """Not S2.4: the method of BriAn's files (docs/decisions.md), used only to recognise them.
    Board 1 has three real scores and an A5050: its top is 2 x (3 - 1) = 4, not factored, and
    the A5050 pairs get 50 % of 4; board 2 has four real scores, all equal (top 6, 3 each)."""
    board1 = [
        TravellerLine(1, "1", "2", ns_score=420),
        TravellerLine(1, "3", "4", ns_score=400),
        TravellerLine(1, "5", "6", ns_score=-50),
        TravellerLine(1, "7", "8", ns_adjusted="A5050"),
    ]
    board2 = [
        TravellerLine(2, ns, ew, ns_score=100)
        for ns, ew in (("1", "2"), ("3", "4"), ("5", "6"), ("7", "8"))
    ]
    brian = mp_percentages_real_top([board1, board2])
    # (match points on board 1 + 3) / (4 + 6)
    assert brian == {"1": 70, "2": 30, "3": 50, "4": 50, "5": 30, "6": 70, "7": 50, "8": 50}
    # S2.3/S2.4 keep board 1's top at 6: its three real scores are a small group (70/60/50 %),
    # so 420 is 70 % of 6.
    assert score_session([board1, board2], Method.MP)["1"].percentage == pytest.approx(
        100 * (Fraction(7, 10) * 6 + 3) / 12
    )
