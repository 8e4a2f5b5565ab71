"""The product's CSV format (S12.1, S14.12)."""

from __future__ import annotations

import datetime as dt

from grading.engine.types import Direction, Movement, Scoring
from grading.ingest import parse_file
from tests.ingest.conftest import parse_fixture

HEADER = (
    "event_id,event_name,session,date,start,scoring,movement,weighting,pair,direction,"
    "player1_number,player1_name,player2_number,player2_name,score,direction_mean,boards,rateable\n"
)


def test_good_csv_gives_one_session_per_event_session_and_date():
    result = parse_fixture("malformed/good.csv", club="my-club")
    assert result.ok, result.problems
    assert result.meta.format == "csv"
    monday, agg1, agg2 = result.sessions
    assert monday.key.club == "my-club" and monday.key.event_id == "MON"
    assert monday.key.date == dt.date(2026, 11, 16) and monday.start == dt.time(19, 30)
    assert monday.scoring is Scoring.MP and monday.movement is Movement.TWO_WINNER
    # Mitchell pair numbers repeat per direction: ids made unique
    assert [p.pair_id for p in monday.pairs] == ["1NS", "2NS", "1EW", "2EW"]
    assert [p.direction for p in monday.pairs] == [
        Direction.NS,
        Direction.NS,
        Direction.EW,
        Direction.EW,
    ]
    assert [[pl.number for pl in p.players] for p in monday.pairs] == [
        ["12345", "23456"],
        ["34567", None],
        ["56789", "67890"],
        [None, None],
    ]
    assert [p.boards for p in monday.pairs] == [24, None, 24, 21]  # empty: not reported
    assert not monday.pairs[2].rateable  # rateable=N: the host pair
    assert (agg1.key.session, agg2.key.session) == (1, 2)
    assert agg1.scoring is Scoring.AGGREGATE and agg1.weighting == 2
    assert agg1.pairs[0].direction_mean == 1100 and agg1.pairs[1].direction_mean is None


def test_every_invalid_row_problem_is_listed_with_its_line():
    result = parse_fixture("malformed/bad-rows.csv")
    assert not result.ok and result.sessions == ()
    found = {(p.line, p.location.split("column ")[-1]) for p in result.problems}
    assert found == {
        (3, "date"),
        (4, "start"),
        (4, "score"),
        (5, "scoring"),
        (5, "direction"),
        (6, "weighting"),
        (6, "player2_number"),
        (6, "score"),
        (6, "boards"),
        (6, "rateable"),
        (7, "event_id"),
        (7, "session"),
        (7, "pair"),
        (7, "score"),
        (7, "direction_mean"),
    }
    assert all(p.location.startswith(f"line {p.line}, column ") for p in result.problems)


def test_missing_header_columns_are_problems():
    data = b"event_id,session,date,pair,score\nX,1,2026-01-01,1,50\n"
    result = parse_file("x.csv", data, "club")
    missing = sorted(p.message.split('"')[1] for p in result.problems)
    assert missing == ["movement", "player1_number", "player2_number", "scoring"]


def test_session_with_inconsistent_scoring_is_refused():
    rows = (
        "E,Ev,1,2026-01-01,,MP,ONE_WINNER,1,1,,1,A,2,B,50,,,\n"
        "E,Ev,1,2026-01-01,,BUTLER,ONE_WINNER,1,2,,3,C,4,D,5,,,\n"
    )
    result = parse_file("x.csv", (HEADER + rows).encode(), "club")
    assert [(p.line, p.code) for p in result.problems] == [(3, "csv-session")]


def test_duplicate_pair_and_non_utf8_are_refused():
    rows = "E,Ev,1,2026-01-01,,MP,ONE_WINNER,1,1,,1,A,2,B,50,,,\nE,Ev,1,2026-01-01,,MP,ONE_WINNER,1,1,,3,C,4,D,50,,,\n"
    assert [p.code for p in parse_file("x.csv", (HEADER + rows).encode(), "c").problems] == [
        "csv-duplicate-pair"
    ]
    latin = (HEADER + rows.replace(",A,", ",Zoë,")).encode("latin-1")
    assert [p.code for p in parse_file("x.csv", latin, "c").problems] == ["csv-encoding"]


def test_header_only_and_extra_cells():
    assert [p.code for p in parse_file("x.csv", HEADER.encode(), "c").problems] == ["csv-empty"]
    row = "E,Ev,1,2026-01-01,,MP,ONE_WINNER,1,1,,1,Smith, Ann,2,B,50,,,\n"
    result = parse_file("x.csv", (HEADER + row).encode(), "c")
    assert [(p.line, p.code) for p in result.problems] == [(2, "csv-row")]


def test_a_csv_with_semicolons_is_told_to_use_commas():
    """Found by review: a semicolon-separated CSV got "a header row starting event_id", which
    it had; the message now says what is wrong (S12: where and what)."""
    rows = "event_id;session;date;scoring;movement;pair;player1_number;player2_number;score\n"
    result = parse_file("results.csv", rows.encode(), "club")
    (problem,) = result.problems
    assert problem.code == "csv-separator" and problem.line == 1
    assert "semicolons, not commas" in problem.message
