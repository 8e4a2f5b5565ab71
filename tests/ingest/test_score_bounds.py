"""S14.26: every score is checked against what its board count allows in its units (match
points 0-100 %, at most 24 IMPs a board, at most 7,600 points a board), refused saying which
pair, the figure and the limit. Issue 32 item 5: a 25-digit aggregate score was graded and put
six players at +-1e21 on the top list."""

import datetime as dt

import pytest

from grading.engine.scoring.lines import TravellerLine
from grading.engine.types import (
    Movement,
    PairEntry,
    Player,
    Scoring,
    SessionKey,
    SessionResult,
    SwissMatch,
)
from grading.ingest import parse_file
from grading.ingest.limits import MAX_POINTS_PER_BOARD, score_problems
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.ingest.conftest import fixture_bytes


def session(scoring, scores, boards=24, direction_mean=""):
    rows = mp_session_rows(scores=scores, boards=boards)
    for row in rows:
        row["scoring"] = scoring
        row["direction_mean"] = direction_mean
    return csv_bytes(rows)


def refusals(data):
    result = parse_file("s.csv", data, "club")
    return result.sessions, [p for p in result.problems if p.code == "implausible"]


@pytest.mark.parametrize("digits", [25, 30])
def test_an_aggregate_score_of_many_digits_is_refused_with_the_limit(digits):
    sessions, problems = refusals(session("AGGREGATE", [int("9" * digits), 120, -50, 0]))
    assert sessions == ()
    (problem,) = problems
    assert problem.location == "MON Pairs, pair 1"
    assert "more than the 7,600 a board can give" in problem.message
    assert "at most 182,400" in problem.message  # 24 boards


def test_aggregate_points_up_to_7600_a_board_are_accepted():
    top = MAX_POINTS_PER_BOARD * 24
    sessions, problems = refusals(session("AGGREGATE", [top, -top, 0, 10]))
    assert problems == [] and len(sessions) == 1
    sessions, problems = refusals(session("AGGREGATE", [top + 1, -top, 0, 10]))
    assert sessions == () and len(problems) == 1


def test_an_aggregate_direction_mean_is_bounded_too():
    _, problems = refusals(session("AGGREGATE", [10, -10, 0, 5], direction_mean="9" * 30))
    assert len(problems) == 4  # every pair's line carries it


def a_session(scoring, scores, boards=24, travellers=(), matches=()):
    pairs = tuple(
        PairEntry(str(i), (Player(str(2 * i + 1000), ""), Player(str(2 * i + 1001), "")), score)
        for i, score in enumerate(scores, start=1)
    )
    return SessionResult(
        key=SessionKey("club", "E1", 1, dt.date(2026, 11, 16)),
        event_name="Monday Pairs",
        scoring=scoring,
        movement=Movement.ONE_WINNER,
        pairs=pairs,
        boards=boards,
        travellers=travellers,
        matches=matches,
    )


@pytest.mark.parametrize(
    "score, refused",
    [(100, False), (0, False), (100.01, True), (-1, True), (float("nan"), True), (1e30, True)],
)
def test_match_points_are_a_percentage(score, refused):
    problems = score_problems(a_session(Scoring.MP, [score, 50.0]))
    assert bool(problems) is refused
    if refused:
        assert problems[0].location == "Monday Pairs, pair 1"


def test_a_swiss_match_is_bounded_by_its_own_boards():
    matches = (
        SwissMatch("1", 1, ("2",), 7, 168.0),
        SwissMatch("2", 1, ("1",), 7, 169.0),
    )
    problems = score_problems(a_session(Scoring.SWISS_PAIRS_IMP, [1.0, -1.0], matches=matches))
    assert [p.location for p in problems] == ["Monday Pairs, pair 2, round 1"]
    assert "at most 168" in problems[0].message


def test_a_traveller_score_beyond_any_board_is_refused():
    """The readers already leave out a score no contract makes; this is the last guard."""
    lines = (
        TravellerLine(1, "1", "2", ns_score=7600),
        TravellerLine(2, "1", "2", ns_score=10**25),
    )
    problems = score_problems(a_session(Scoring.MP, [50.0, 50.0], travellers=lines))
    assert [p.location for p in problems] == ["Monday Pairs, board 2, pairs 1 and 2"]
    assert "more than the 7,600 points a board can give" in problems[0].message


@pytest.mark.parametrize("scoring", ["BUTLER", "CROSS_IMP"])
def test_imps_are_at_most_24_a_board(scoring):
    sessions, problems = refusals(session(scoring, [24 * 20, -30, 0, 5], boards=20))
    assert problems == [] and sessions
    sessions, problems = refusals(session(scoring, [24 * 20 + 1, -30, 0, 5], boards=20))
    assert sessions == ()
    assert "481 IMPs over 20 boards, more than 24 a board (at most 480)" in problems[0].message


def _usebio_over_100():
    data = fixture_bytes("usebio/ukbridge-club/mp-pairs.usebio.xml")
    return "x.xml", data.replace(b"<PERCENTAGE>49.09<", b"<PERCENTAGE>149.09<", 1)


def _pbn_over_100():
    data = fixture_bytes("pbn/ruter_norway/pairs.pbn")
    return "x.pbn", data.replace(b"27.3 57.22", b"27.3 157.22", 1)


def _csv_over_100():
    return "x.csv", csv_bytes(mp_session_rows(scores=[150, 50, 50, 50], boards=24))


@pytest.mark.parametrize(
    "upload, location, says",
    [
        (
            _usebio_over_100,
            "EVENT/SESSION[1]/SECTION[1]/PARTICIPANTS/PAIR[1]/PERCENTAGE",
            "Pair 1 in section Sect1 has 149.09%",
        ),
        (_pbn_over_100, "line 67", "Pair 8 NS has 157.22%"),
        (_csv_over_100, "line 2, column score", "Pair 1 has 150%"),
    ],
)
def test_every_reader_refuses_a_percentage_over_100_saying_where_and_the_figure(
    upload, location, says
):
    """One bound (limits.percent_problem): each reader applies it where it reads the figure,
    so the refusal names the file's place, the pair, its figure and the limit."""
    name, data = upload()
    result = parse_file(name, data, "club")
    assert result.sessions == ()
    (problem,) = result.problems
    assert problem.location == location
    assert f"{says}; match points are from 0 to 100%" in problem.message
