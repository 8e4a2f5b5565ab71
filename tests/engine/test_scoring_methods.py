"""A session scoring's board method and one board scored as its session scores it (S2, S3.6):
the one place the results pages and the ingest cross-check take them from."""

from grading.engine.scoring import (
    Method,
    TravellerLine,
    method_of,
    score_session,
    score_traveller,
)
from grading.engine.types import Scoring


def test_every_scoring_has_its_board_method():
    assert {s: method_of(s) for s in Scoring} == {
        Scoring.MP: Method.MP,
        Scoring.SWISS_PAIRS_MP: Method.MP,
        Scoring.BUTLER: Method.BUTLER,
        Scoring.CROSS_IMP: Method.CROSS_IMP,
        Scoring.AGGREGATE: Method.AGGREGATE,
        Scoring.SWISS_TEAMS: Method.CROSS_IMP,  # S3.6
        Scoring.MULTIPLE_TEAMS: Method.CROSS_IMP,
        Scoring.TEAM_LEAGUE: Method.CROSS_IMP,
        Scoring.SWISS_PAIRS_IMP: None,
        Scoring.INDIVIDUAL: None,
        Scoring.HEAD_TO_HEAD: None,
        Scoring.POINT_A_BOARD: None,
    }
    assert method_of("BUTLER") is Method.BUTLER  # the stored value reads the same


def test_a_board_is_scored_as_its_session_scores_it():
    """Match points are factored to the most-played board (S2.3); IMPs are not."""
    lines = (
        TravellerLine(1, "1", "2", ns_score=420),
        TravellerLine(1, "3", "4", ns_score=-50),
        TravellerLine(1, "5", "6", ns_score=100),
        TravellerLine(2, "1", "2", ns_score=420),
        TravellerLine(2, "3", "4", ns_score=400),
    )
    for method in (Method.MP, Method.BUTLER):
        session = score_session(lines, method)
        board = score_traveller(lines[3:], method, 3)
        pair_1 = session["1"].total - score_traveller(lines[:3], method, 3).lines[0].ns
        assert board.lines[0].ns == pair_1
    # board 2, played twice, on the top of 3 scores at match points: 2 x (3 - 1)
    assert score_traveller(lines[3:], Method.MP, 3).top == 4
    assert score_traveller(lines[3:], Method.BUTLER, 3).expected == 2
