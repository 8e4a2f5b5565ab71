"""Totals in other forms read as this session's own (issue 29 item 3, S14.22, S2.4, S3.7).

Each fixture under tests/fixtures/fidelity/ was written by hand from the PBN standard
(../shared/samples/spec/pbn_v21.txt: 3.4.12 Scoring modifiers, 5.9 ScoreTable, 5.10
TotalScoreTable) and the programs' conventions; the arithmetic of each reading is in the test.
"""

from __future__ import annotations

import pytest

from grading.engine.types import Scoring
from grading.ingest import common, parse_file
from grading.ingest.crosscheck import recompute_totals
from tests.ingest.conftest import fixture_bytes, parse_fixture


def _read(relative: str):
    result = parse_fixture(relative)
    assert result.ok, result.problems
    (session,) = result.sessions
    return result, session, {p.pair_id: (p.score, p.boards) for p in session.pairs}


def _codes(result) -> set[str]:
    return {w.code for w in result.warnings}


def test_running_totals_of_a_championship_are_read_as_this_sessions_own_from_its_travellers():
    result, session, pairs = _read("fidelity/two-session-championship-s2.pbn")
    assert session.key.session == 2
    # This session's 4 boards, each played twice (top 2 a board, 8 in all):
    # pair 1: board 1 +420 v +-50 -> 2; board 2 430 = 430 -> 1; board 3 +100 v -110 -> 2;
    #         board 4 -90 v -150 -> 2: 7/8 = 87.5 %. Pair 4 (EW twice, then EW): the mirror,
    #         2 + 1 + 2 + 2 = 87.5 %. Pairs 2 and 3: 0 + 1 + 0 + 0 = 12.5 %.
    # The ranking's TotalPercentage runs over both sessions (session 1: 25, 75, 50, 50 %):
    # pair 1 (25 + 87.5) / 2 = 56.25 over 8 boards, which was graded before.
    assert pairs == {"1": (87.5, 4), "2": (12.5, 4), "3": (12.5, 4), "4": (87.5, 4)}
    assert len(session.travellers) == 8
    assert "running-totals" in _codes(result)
    assert "total-mismatch" not in _codes(result)


def test_running_totals_are_read_from_this_sessions_own_columns_when_the_ranking_has_them():
    result, session, pairs = _read("fidelity/two-session-championship-s2-columns.pbn")
    # Percentage_S2 and NrBoards_S2 (crsession 2), not TotalPercentage (8 boards)
    assert pairs == {"1": (87.5, 4), "2": (12.5, 4), "3": (12.5, 4), "4": (87.5, 4)}
    assert "running-totals" not in _codes(result)
    assert len(session.travellers) == 8


def test_imp_cross_sums_over_comparisons_are_divided_by_the_comparisons_per_board():
    result, session, pairs = _read("fidelity/imp-cross-sums.pbn")
    assert session.scoring is Scoring.CROSS_IMP
    # 3 tables, each board 3 scores, 2 comparisons. Pair 6 (EW, then EW): board 1 its side
    # +50 v -420, -450: 10 + 11 = 21; board 2 -140 v +100, -110: -6 - 1 = -7; board 3 -170 v
    # -620 twice: 10 + 10 = 20; board 4 +500 v +200, -100: 7 + 12 = 19. Sum over comparisons
    # 53 (the file's TotalIMP); per comparison 21/2 - 7/2 + 20/2 + 19/2 = 26.5.
    assert pairs["6"] == (26.5, 4)
    # pair 1: 9 - 11 + 10 + 0 = 8 summed -> 4; pair 2: -9 + 11 - 10 - 19 = -27 -> -13.5
    assert pairs["1"] == (4.0, 4) and pairs["2"] == (-13.5, 4)
    assert sum(score for score, _ in pairs.values()) == pytest.approx(0.0)
    assert "cross-imps-summed" in _codes(result)
    # the product's own scoring of the travellers (S2.5, averaged) agrees: no warning
    assert "total-mismatch" not in _codes(result)
    assert recompute_totals(session)["6"] == pytest.approx(26.5)


def test_imp_cross_sums_without_travellers_are_divided_by_the_fields_comparisons():
    data = fixture_bytes("fidelity/imp-cross-sums.pbn")
    ranking_only = data.split(b'[ScoreTable "')[0]
    result = parse_file("x.pbn", ranking_only, "club")
    assert result.ok, result.problems
    pairs = {p.pair_id: p.score for p in result.sessions[0].pairs}
    # 6 pairs at 3 tables: a board has 3 scores, 2 comparisons: 53 / 2 = 26.5
    assert pairs["6"] == 26.5 and pairs["4"] == -13.0


def _per_score(data: bytes) -> bytes:
    """The cross-IMP fixture as "IMP;Cross1" writes it: every sum divided by the board's 3
    scores, to 2 decimals (the ranking's totals and each ScoreTable line's IMPs)."""
    out = []
    for line in data.decode().splitlines():
        tokens = line.split()
        if line.startswith(" ") and len(tokens) == 9:  # a ScoreTable line: IMP_NS, IMP_EW
            tokens[-2:] = [f"{int(t) / 3:.2f}" for t in tokens[-2:]]
            line = " " + " ".join(tokens)
        elif line.startswith(" ") and '"' in line:  # a ranking line: TotalIMP, NrBoards
            head, total, boards = line.rsplit(None, 2)
            line = f"{head} {float(total) / 3:.2f} {boards}"
        out.append(line.replace("IMP;Cross", "IMP;Cross1"))
    return ("\n".join(out) + "\n").encode()


def test_cross1_is_brought_from_per_score_to_per_comparison():
    result = parse_file("x.pbn", _per_score(fixture_bytes("fidelity/imp-cross-sums.pbn")), "club")
    assert result.ok, result.problems
    pair6 = next(p for p in result.sessions[0].pairs if p.pair_id == "6")
    # "Cross1" (PBN 3.4.12): each board's sum divided by its 3 scores: 21/3 = 7.00,
    # -7/3 = -2.33, 20/3 = 6.67, 19/3 = 6.33; per comparison, x 3/2: 10.5 - 3.495 + 10.005
    # + 9.495 = 26.505, the 26.5 of the sums to the file's rounding
    assert pair6.score == pytest.approx(26.5, abs=0.011)


def test_cross2_and_plain_cross_imps_are_read_as_written():
    data = fixture_bytes("fidelity/imp-cross-sums.pbn").replace(b"IMP;Cross", b"IMP;Cross2")
    result = parse_file("x.pbn", data, "club")
    pairs = {p.pair_id: p.score for p in result.sessions[0].pairs}
    assert pairs["6"] == 53.0  # the file says it is already per comparison


def test_butler_phantom_and_bye_lines_keep_the_travellers_and_count_boards_played():
    result, session, pairs = _read("fidelity/butler-phantom-byes.pbn")
    # Butler datum (S2.5) of two NS scores: board 1 (420 + 450)/2 = 435 -> 440: pair 1 -1,
    # pair 3 0; board 2 (-100 + 110)/2 = 5 -> 10: -3, +3; board 3 (620 + 110)/2 = 365 -> 370:
    # pair 1 +6, pair 5 -6; board 4 (-200 + 100)/2 = -50: -4, +4. Pair 3 sat out boards 3-4
    # (bye lines), pair 5 boards 1-2 (against the phantom): 2 boards each, where the ranking
    # says 4.
    assert pairs == {
        "1": (-2.0, 4),
        "2": (6.0, 4),
        "3": (3.0, 2),
        "4": (-5.0, 4),
        "5": (-2.0, 2),
    }
    assert len(session.travellers) == 8  # kept; the 2 phantom and 2 bye lines are not lines
    assert not {"traveller-line", "travellers-incomplete", "total-mismatch"} & _codes(result)


def test_an_adjusted_result_on_a_barometer_traveller_is_a_result():
    result, session, pairs = _read("fidelity/barometer-adjusted.pbn")
    (adjusted,) = [t for t in session.travellers if t.ns_adjusted]
    assert (adjusted.board, adjusted.ns_pair, adjusted.ns_adjusted, adjusted.ew_adjusted) == (
        2,
        "3",
        "A60",
        "A40",
    )
    assert len(session.travellers) == 12
    # Top 4 a board (3 scores). Board 2: A+ gives pair 3 60 %, pair 4 40 %; the two scores
    # left (-100, +140) are a group of two (S2.3): 65 % and 55 % (pair 5 NS and pair 2 EW
    # better). Pair 1: 2/4 + 55 % + 3/4 + 2/4 -> (2 + 2.2 + 3 + 2)/16 = 57.5 %;
    # pair 6: 4 + 2.2 + 4 + 4 = 14.2/16 = 88.75 %; pair 4: 0 + 1.6 + 1 + 2 = 4.6/16 = 28.75 %.
    ours = recompute_totals(session)
    assert ours["1"] == pytest.approx(57.5)
    assert ours["6"] == pytest.approx(88.75)
    assert ours["4"] == pytest.approx(28.75)
    assert pairs["1"] == (57.5, 4)
    assert "total-mismatch" not in _codes(result)


@pytest.mark.parametrize("code", ["A+", "A", "A-", "A60", "A4050", "AVE-", "^A60"])
def test_every_written_form_of_an_adjusted_score_keeps_the_travellers(code):
    data = fixture_bytes("fidelity/barometer-adjusted.pbn").replace(
        b" 3 4 - - - A+ -", b" 3 4 - - - " + code.encode() + b" -"
    )
    result = parse_file("x.pbn", data, "club")
    assert result.ok, result.problems
    assert len(result.sessions[0].travellers) == 12


def test_usebio_tricks_relative_to_the_contract_are_read():
    result, session, pairs = _read("fidelity/usebio-1.1-relative-tricks.xml")
    tricks = [(t.board, t.contract, t.tricks) for t in session.travellers]
    # 4H "=" -> 4 + 6 = 10; 4H "-1" -> 9; 3NT "+1" -> 10; 2S "-2" -> 6; 2S "=" -> 8;
    # 1NT "=" -> 7; 1NT "+2" -> 9 (refused before: "-1" and "-2" are not 0-13 tricks)
    assert tricks == [
        (1, "4H", 10),
        (1, "4H", 9),
        (2, "3NT", 10),
        (2, "3NT", 10),
        (3, "2S", 6),
        (3, "2S", 8),
        (4, "1NT", 7),
        (4, "1NT", 9),
    ]
    # the percentages: top 2 a board, 8 in all: pair 1 2 + 1 + 2 + 2 = 87.5 %
    assert pairs["1"] == (87.5, 4) and pairs["2"] == (12.5, 4)
    assert "total-mismatch" not in _codes(result)


def test_usebio_adjusted_short_codes_and_bye_lines_are_read():
    data = fixture_bytes("fidelity/usebio-1.1-relative-tricks.xml")
    # board 2 table 2 given A+ (NS 60 %), and a bye line on board 4
    data = data.replace(
        b"<CONTRACT>3NT</CONTRACT><PLAYED_BY>S</PLAYED_BY><TRICKS>+1</TRICKS><SCORE>430</SCORE>"
        b"<NS_MATCH_POINTS>1</NS_MATCH_POINTS><EW_MATCH_POINTS>1</EW_MATCH_POINTS>"
        b"</TRAVELLER_LINE>\n    </BOARD>",
        b"<SCORE>A+</SCORE></TRAVELLER_LINE>\n    </BOARD>",
    )
    data = data.replace(
        b"    </BOARD>\n  </EVENT>",
        b"      <TRAVELLER_LINE><NS_PAIR_NUMBER>3</NS_PAIR_NUMBER><EW_PAIR_NUMBER>0"
        b"</EW_PAIR_NUMBER><SCORE></SCORE></TRAVELLER_LINE>\n    </BOARD>\n  </EVENT>",
    )
    result = parse_file("x.xml", data, "club")
    assert result.ok, result.problems
    session = result.sessions[0]
    (adjusted,) = [t for t in session.travellers if t.ns_adjusted]
    assert (adjusted.board, adjusted.ns_adjusted, adjusted.ew_adjusted) == (2, "A60", "A40")
    assert len(session.travellers) == 8
    assert "traveller-line" not in _codes(result)


def test_a_mean_per_board_is_multiplied_by_the_boards_not_replaced_by_traveller_sums():
    # The cross-IMP file as a program that writes the ranking as a mean per board of the
    # per-comparison averages ("IMP;Cross2", MeanIMP) but leaves each traveller line's IMPs
    # summed over the comparisons. Pair 6: 26.5 / 4 = 6.625, written 6.63; its traveller
    # IMPs add up to 53 (un-averaged), which was taken as its total before.
    data = fixture_bytes("fidelity/imp-cross-sums.pbn").replace(b"IMP;Cross", b"IMP;Cross2")
    data = data.replace(b"TotalIMP\\6R", b"MeanIMP\\6R")
    averaged = {b"53.00": b"6.63", b"15.00": b"1.88", b"8.00": b"1.00"}
    averaged |= {b"-23.00": b"-2.88", b"-26.00": b"-3.25", b"-27.00": b"-3.38"}
    for old, new in averaged.items():
        data = data.replace(b" " + old + b"  4", b" " + new + b"  4")
    result = parse_file("x.pbn", data, "club")
    assert result.ok, result.problems
    pairs = {p.pair_id: p.score for p in result.sessions[0].pairs}
    assert pairs["6"] == pytest.approx(26.52)  # 6.63 x 4 boards
    assert pairs["1"] == pytest.approx(4.0)  # 1.00 x 4
    assert "mean-imps" in _codes(result)


@pytest.mark.parametrize("bye", [b"0", b"?", b"SIT OUT", b"phantom"])
def test_a_usebio_pairs_declared_boards_counting_a_bye_are_the_boards_it_played(bye):
    """The byes the PBN reader knows are byes in USEBIO too (one common.is_bye)."""
    data = fixture_bytes("fidelity/usebio-1.1-relative-tricks.xml")
    # pair 1 is said to have played 5 boards; board 5 is a bye line (pair 1 v "0")
    data = data.replace(
        b"<PERCENTAGE>87.50</PERCENTAGE>",
        b"<PERCENTAGE>87.50</PERCENTAGE><BOARDS_PLAYED>5</BOARDS_PLAYED>",
        1,
    )
    data = data.replace(
        b"    </BOARD>\n  </EVENT>",
        b"    </BOARD>\n    <BOARD><BOARD_NUMBER>5</BOARD_NUMBER><TRAVELLER_LINE><NS_PAIR_NUMBER>1"
        b"</NS_PAIR_NUMBER><EW_PAIR_NUMBER>" + bye + b"</EW_PAIR_NUMBER></TRAVELLER_LINE>"
        b"</BOARD>\n  </EVENT>",
    )
    result = parse_file("x.xml", data, "club")
    assert result.ok, result.problems
    session = result.sessions[0]
    assert {p.pair_id: p.boards for p in session.pairs}["1"] == 4  # 5 declared, 1 a bye
    assert len(session.travellers) == 8
    assert "boards-sit-out" in _codes(result)


def test_summed_cross_imps_over_many_comparisons_are_not_refused_as_impossible():
    # 12 pairs at 6 tables: a board has 5 comparisons. Pair 1's sum over them is 120 IMPs on
    # 4 boards (30 a board, "more than 24 IMPs a board" read as written): 120 / 5 = 24.
    rows = "".join(
        f' {n} {n} "Player {n}a - Player {n}b" {9000 + 2 * n} {9001 + 2 * n} '
        f"{(120 if n == 1 else -120 / 11):.2f} 4\n"
        for n in range(1, 13)
    )
    data = (
        '% PBN 2.1\n[Event "Big Cross"]\n[Date "2026.02.26"]\n[Board "1"]\n'
        '[Scoring "IMP;Cross"]\n'
        '[TotalScoreTable "Rank\\2R;PairId\\2R;Names\\30L;MemberID1\\6R;MemberID2\\6R;'
        'TotalIMP\\7R;NrBoards\\2R"]\n' + rows
    ).encode()
    result = parse_file("big.pbn", data, "club")
    assert result.ok, result.problems
    pairs = {p.pair_id: p.score for p in result.sessions[0].pairs}
    assert pairs["1"] == 24.0
    assert pairs["2"] == pytest.approx(-120 / 11 / 5, abs=0.01)


def test_without_a_session_number_the_latest_sessions_columns_are_read_and_numbered():
    data = fixture_bytes("fidelity/two-session-championship-s2-columns.pbn")
    data = data.replace(b'% <META name=crsession content="2">\n', b"")
    result = parse_file("x.pbn", data, "club")
    assert result.ok, result.problems
    (session,) = result.sessions
    # Percentage_S1 and Percentage_S2: the file is session 2's, read from Percentage_S2
    assert session.key.session == 2
    assert {p.pair_id: (p.score, p.boards) for p in session.pairs}["1"] == (87.5, 4)


def test_own_session_columns_without_their_board_count_take_the_boards_from_the_travellers():
    data = fixture_bytes("fidelity/two-session-championship-s2-columns.pbn")
    data = data.replace(b";NrBoards_S2\\2R", b"")
    result = parse_file("x.pbn", data, "club")
    assert result.ok, result.problems
    (session,) = result.sessions
    # NrBoards (8) runs over both sessions; this session's 4 boards come from its travellers
    assert {p.pair_id: (p.score, p.boards) for p in session.pairs}["1"] == (87.5, 4)
    assert len(session.travellers) == 8


def test_a_blank_pair_number_is_a_bye_only_where_the_format_leaves_it_out():
    """PBN may leave a sit-out's id out of a ScoreTable row; a USEBIO line names both pairs
    (FORMATS 2.6), so a blank number there is a damaged line, reported, not a bye."""
    assert common.is_bye("", blank=True) and common.is_bye(None, blank=True)
    assert not common.is_bye("") and not common.is_bye(" ")
    assert common.is_bye(" sit-out ") and not common.is_bye("1")
