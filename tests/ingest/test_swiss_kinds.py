"""Swiss events graded by the rules (issue 29 items 1 and 2): Swiss pairs in cross-IMPs take
the cross-IMP factor (S14.23), Swiss teams whose boards were played at two tables only are not
graded (S14.24)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from grading.engine.ngs import NGS_DEFAULT, grade_session, why_not_graded
from grading.engine.ngs.params import FR18_FACTORS
from grading.engine.ngs.terms import CROSS_IMPS, imps_named
from grading.engine.types import Scoring
from grading.ingest import parse_file
from tests.ingest.conftest import fixture_bytes, parse_fixture

CROSS = "fidelity/swiss-pairs-cross-imps.xml"
BUTLER = "handmade/swiss-pairs.xml"
GRADES = {str(n): 50.0 for n in range(2001, 2009)}


def _terms(session, params=NGS_DEFAULT):
    outcome = grade_session(session, GRADES, params)
    assert outcome.graded, outcome.reason
    return {p.pair_id: p for p in outcome.pairs}


def test_swiss_pairs_in_cross_imps_are_graded_with_the_cross_imp_factor():
    (session,) = parse_fixture(CROSS).sessions
    assert session.scoring is Scoring.SWISS_PAIRS_IMP
    assert imps_named(session) == CROSS_IMPS
    pairs = _terms(session)
    # pair 1: 5.5 (boards 1-2) + 6.5 (boards 3-4) = 12 cross-IMPs over 4 boards;
    # term = 6.48 x 12 / 4 = 19.44 (the Butler factor would give 5.4 x 12 / 4 = 16.2)
    assert pairs["1"].score_term == pytest.approx(19.44)
    # pair 3: -2.25 + 0 = -2.25 over 4 boards: 6.48 x -2.25 / 4 = -3.645
    assert pairs["3"].score_term == pytest.approx(-3.645)
    # par in IMPs: everyone at 50, so SOpp 50 and par 0 whatever the factor; excess = term
    assert pairs["1"].par == pytest.approx(0.0)
    assert pairs["1"].excess == pytest.approx(19.44)


def test_swiss_pairs_in_butler_or_plain_imps_keep_the_butler_factor():
    (session,) = parse_fixture(BUTLER).sessions
    assert imps_named(session) == ""
    # pair 1: 5 + 7 = 12 IMPs over 4 boards: 5.4 x 12 / 4 = 16.2
    assert _terms(session)["1"].score_term == pytest.approx(16.2)
    butler = fixture_bytes(BUTLER).replace(
        b'EVENT_TYPE="SWISS_PAIRS"', b'EVENT_TYPE="SWISS_PAIRS_BUTLER_IMPS"'
    )
    (named,) = parse_file("b.xml", butler, "club").sessions
    assert _terms(named)["1"].score_term == pytest.approx(16.2)


def test_board_scoring_method_cross_imps_names_cross_imps_on_a_plain_swiss_event():
    data = fixture_bytes(BUTLER).replace(b">IMPS<", b">CROSS_IMPS<")
    (session,) = parse_file("x.xml", data, "club").sessions
    assert imps_named(session) == CROSS_IMPS
    assert _terms(session)["1"].score_term == pytest.approx(6.48 * 12 / 4)


def test_the_cross_imp_factor_follows_the_parameter_set():
    (session,) = parse_fixture(CROSS).sessions
    # fr18-factors: F_cross 6.12, so 6.12 x 12 / 4 = 18.36
    assert _terms(session, FR18_FACTORS)["1"].score_term == pytest.approx(18.36)


def test_swiss_cross_imps_without_matches_use_the_cross_imp_factor_on_the_totals():
    (session,) = parse_fixture(CROSS).sessions
    bare = replace(session, matches=())
    pairs = _terms(bare)
    # the pair total read from the matches: 12 over 4 boards, same factor
    assert pairs["1"].score_term == pytest.approx(19.44)
    assert why_not_graded(bare) == ""


SWISS_TEAMS = "fidelity/swiss-teams-two-tables.xml"


def test_swiss_teams_with_boards_at_two_tables_only_are_not_graded_with_the_reason():
    (session,) = parse_fixture(SWISS_TEAMS).sessions
    # 4 teams, 2 rounds; each match played its own 2 boards: boards 1-8, 2 lines each
    assert session.scoring is Scoring.SWISS_TEAMS  # what the file calls it, kept
    assert {ln.board for ln in session.travellers} == set(range(1, 9))
    assert len(session.travellers) == 16
    assert not session.graded_flag
    reason = why_not_graded(session)
    assert "two tables only" in reason and "not graded" in reason
    assert not grade_session(session, {}).graded


def test_swiss_teams_whose_boards_are_shared_across_the_room_are_graded():
    # the same file with each round's two matches playing the same boards (1-2, then 5-6):
    # every board at four tables (S14.24: graded, S3.6)
    data = fixture_bytes(SWISS_TEAMS)
    for old, new in ((b"3", b"1"), (b"4", b"2"), (b"7", b"5"), (b"8", b"6")):
        data = data.replace(b"<BOARD_NUMBER>" + old + b"<", b"<BOARD_NUMBER>" + new + b"<")
    (session,) = parse_file("x.xml", data, "club").sessions
    assert session.graded_flag and why_not_graded(session) == ""
    grades = {str(n): 50.0 for n in range(3001, 3017)}
    outcome = grade_session(session, grades)
    assert outcome.graded
    pairs = {p.pair_id: p for p in outcome.pairs}
    # NS scores after the change: board 1 (and 5): 1-1 +420, 2-1 -100, 3-1 +620, 4-1 +620;
    # board 2 (and 6): 1-1 -50, 2-1 +110, 3-1 -200, 4-1 +140. Pair 1-1 sat NS throughout:
    # board 1: IMP(520)=11, IMP(-200)=-5, IMP(-200)=-5 -> 1 over 3 comparisons = 1/3;
    # board 2: IMP(-160)=-4, IMP(150)=4, IMP(-190)=-5 -> -5/3; boards 5, 6 the same again.
    # Sum of per-board averages: 2 x (1/3 - 5/3) = -8/3 over 4 boards (S2.5, S3.6), where the
    # file's PAIR_IMPS (one comparison a board) said +14.
    assert pairs["1-1"].boards == 4
    assert pairs["1-1"].score == pytest.approx(-8 / 3)
    assert pairs["1-1"].score_term == pytest.approx(6.48 * (-8 / 3) / 4)  # -4.32


def test_a_swiss_pair_in_no_match_sat_out_and_the_file_is_read():
    # S14.23: a fifth pair listed but in no MATCH sat out (it was refused before)
    data = fixture_bytes(CROSS).replace(
        b"    </PARTICIPANTS>",
        b"      <PAIR><PAIR_NUMBER>5</PAIR_NUMBER><PLAYER><PLAYER_NAME>E One</PLAYER_NAME>"
        b"<NATIONAL_ID_NUMBER>2009</NATIONAL_ID_NUMBER></PLAYER><PLAYER><PLAYER_NAME>E Two"
        b"</PLAYER_NAME><NATIONAL_ID_NUMBER>2010</NATIONAL_ID_NUMBER></PLAYER></PAIR>\n"
        b"    </PARTICIPANTS>",
    )
    result = parse_file("x.xml", data, "club")
    assert result.ok, result.problems
    (session,) = result.sessions
    assert [p.pair_id for p in session.pairs] == ["1", "2", "3", "4"]
    assert any(w.code == "swiss-sat-out" for w in result.warnings)
    assert _terms(session)["1"].score_term == pytest.approx(19.44)
