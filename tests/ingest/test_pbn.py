"""PBN results (FORMATS 3; PBN 2.1 5.9, 5.10)."""

from __future__ import annotations

import datetime as dt

import pytest

from grading.engine.types import Movement, Scoring
from grading.ingest import parse_file
from tests.ingest.conftest import fixture_bytes, parse_fixture


def test_ruter_pairs_total_score_table():
    result = parse_fixture("pbn/ruter_norway/pairs.pbn")
    assert result.ok, result.problems
    (session,) = result.sessions
    assert session.scoring is Scoring.MP and session.movement is Movement.ONE_WINNER
    assert session.key.event_id == "732727"  # META ContestID
    assert session.key.date == dt.date(2022, 5, 8)
    assert len(session.pairs) == 8
    assert sum(pl.known for p in session.pairs for pl in p.players) == 16
    assert {p.boards for p in session.pairs} == {63}
    first = session.pairs[0]
    assert (first.pair_id, first.score) == ("8", 57.22)
    assert [(pl.name, pl.number) for pl in first.players] == [
        ("Paul Grant", "405634"),
        ("Jack Irwin", "795957"),
    ]
    assert result.meta.format == "pbn" and result.meta.program == "Ruter i Norge"


def test_ruter_butler_mean_is_turned_into_session_total():
    # FORMATS 3.4: TotalScoreIMP is a per-board mean (2.93 over 14 boards = 41 IMPs)
    result = parse_fixture("pbn/ruter_norway/teams-sub.pbn")
    assert result.ok, result.problems
    (session,) = result.sessions
    assert session.scoring is Scoring.BUTLER
    assert len(session.pairs) == 48  # 52 listed, 4 played no boards
    assert sum(pl.known for p in session.pairs for pl in p.players) == 96
    assert {p.boards for p in session.pairs} == {14}
    assert {p.section for p in session.pairs} == {"A", "B"}
    top = session.pairs[0]
    assert (top.pair_id, top.score) == ("10", pytest.approx(41.0))
    assert sum(w.code == "phantom" for w in result.warnings) == 4
    assert any(w.code == "mean-imps" for w in result.warnings)


@pytest.mark.parametrize(
    "path",
    ["pbn/bridgewebs/bridgewebs_hands_2025-04-09.pbn", "pbn/pbntools_poland/wb120802_one_record_per_result.pbn"],
)
def test_pbn_without_results_is_refused(path):
    result = parse_fixture(path)
    assert [p.code for p in result.problems] == ["pbn-no-results"]
    assert "USEBIO" in result.problems[0].message


def test_pbn_bad_percentage_is_located_by_line():
    data = fixture_bytes("pbn/ruter_norway/pairs.pbn").replace(b"57.22", b"157.2")
    result = parse_file("x.pbn", data, "club")
    (problem,) = result.problems
    assert problem.line == 67 and problem.location == "line 67"
