"""PBN results (FORMATS 3; PBN 2.1 5.9, 5.10)."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from grading.engine.types import Direction, Movement, Scoring
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
    [
        "pbn/bridgewebs/bridgewebs_hands_2025-04-09.pbn",
        "pbn/pbntools_poland/wb120802_one_record_per_result.pbn",
    ],
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


# ---- found by review: Mitchell rankings, repeated pairs, several rankings, phantoms ----------

_MITCHELL = r"""% PBN 2.1
% <META  name=ContestID content="M1">
[Event "Club Mitchell"]
[Date "2026.01.05"]
[Board "1"]
[Scoring "MatchPoints"]
[TotalScoreTable "Rank\2R;PairId\2R;Direction\5R;TotalPercentage\5R;Names\30L;NrBoards\2R;MemberID1\7R;MemberID2\7R"]
1 1 "N-S" 75.00 "Ann Able - Bob Baker" 2 "1011" "1012"
2 2 "N-S" 25.00 "Cat Cole - Dan Dale" 2 "1021" "1022"
1 2 "E-W" 75.00 "Eve East - Fay Fell" 2 "2021" "2022"
2 1 "E-W" 25.00 "Gus Gray - Hal Hill" 2 "2011" "2012"
[ScoreTable "PairId_NS\2R;PairId_EW\2R;Contract\4L;Declarer\1R;Result\2R;Score_NS\6R;Score_EW\6R;MP_NS\2R;MP_EW\2R"]
1 1 4S N 10 "420" - 2 0
2 2 4S N 9 - "50" 0 2

[Board "2"]
[ScoreTable "PairId_NS\2R;PairId_EW\2R;Contract\4L;Declarer\1R;Result\2R;Score_NS\6R;Score_EW\6R;MP_NS\2R;MP_EW\2R"]
1 2 2S N 8 "110" - 1 1
2 1 2S N 8 "110" - 1 1
"""


def _parse_text(text: str):
    return parse_file("x.pbn", text.encode(), "club")


def test_mitchell_ranking_is_read_with_the_direction_of_each_pair():
    """FORMATS 3.3 (Ruter's Direction column) and 5.2: Mitchell numbers are unique only with
    their direction, so pair ids are 1NS/1EW as USEBIO and CSV give them, and a traveller's
    PairId_NS/PairId_EW name the pair of that direction."""
    result = _parse_text(_MITCHELL)
    assert result.ok, result.problems
    (session,) = result.sessions
    assert session.movement is Movement.TWO_WINNER
    pairs = {p.pair_id: p for p in session.pairs}
    assert sorted(pairs) == ["1EW", "1NS", "2EW", "2NS"]
    assert (pairs["1NS"].direction, pairs["1NS"].score) == (Direction.NS, 75.0)
    assert (pairs["1EW"].direction, pairs["1EW"].score) == (Direction.EW, 25.0)
    assert {(t.board, t.ns_pair, t.ew_pair) for t in session.travellers} == {
        (1, "1NS", "1EW"),
        (1, "2NS", "2EW"),
        (2, "1NS", "2EW"),
        (2, "2NS", "1EW"),
    }
    assert {p.boards for p in session.pairs} == {2}
    assert result.warnings == ()


def test_pair_listed_twice_is_refused_at_its_ranking_lines():
    """S12: every problem says where it is. Pair 1 NS is on lines 8 and 11."""
    result = _parse_text(_MITCHELL.replace('2 1 "E-W"', '2 1 "N-S"'))
    assert [(p.code, p.line) for p in result.problems] == [
        ("pair-repeated", 8),
        ("pair-repeated", 11),
    ]
    assert "line 11" in result.problems[0].message


_TWO_SECTIONS = r"""% PBN 2.1
% <META  name=ContestID content="S2">
[Event "Two sections"]
[Date "2026.01.05"]
[Board "1"]
[Scoring "MatchPoints"]
[TotalScoreTable "Rank\2R;PairId\2R;Section\1R;TotalPercentage\5R;Names\30L;NrBoards\2R;MemberID1\7R;MemberID2\7R"]
1 1 "A" 60.00 "Ann Able - Bob Baker" 24 "1011" "1012"
2 2 "A" 40.00 "Cat Cole - Dan Dale" 24 "1021" "1022"

[Event "Two sections"]
[Date "2026.01.05"]
[Board "1"]
[Scoring "MatchPoints"]
[TotalScoreTable "Rank\2R;PairId\2R;Section\1R;TotalPercentage\5R;Names\30L;NrBoards\2R;MemberID1\7R;MemberID2\7R"]
1 1 "B" 58.00 "Eve East - Fay Fell" 24 "2011" "2012"
2 2 "B" 42.00 "Gus Gray - Hal Hill" 24 "2021" "2022"
"""


def test_every_total_score_table_is_read():
    """FORMATS 3.3: the ranking is "usually once"; PBN 5.10 lets a table rank "a part of" a
    tournament, so a file may rank each section in its own table."""
    result = _parse_text(_TWO_SECTIONS)
    assert result.ok, result.problems
    (session,) = result.sessions
    assert [(p.pair_id, p.section, p.score) for p in session.pairs] == [
        ("A1", "A", 60.0),
        ("A2", "A", 40.0),
        ("B1", "B", 58.0),
        ("B2", "B", 42.0),
    ]


def test_rankings_of_different_dates_are_refused_at_the_second_table():
    """One upload is one session (S14.1): rankings that disagree on the date are not parts of it."""
    first, second = _TWO_SECTIONS.split("\n\n")
    result = _parse_text(first + "\n\n" + second.replace("2026.01.05", "2026.01.12"))
    assert [(p.code, p.line) for p in result.problems] == [("pbn-rankings", 15)]
    assert "line 7" in result.problems[0].message


def test_phantom_pair_is_left_out_with_a_warning():
    """FORMATS 5.3 and docs/decisions.md (phantoms and sit-outs): a pair named Phantom is left
    out, and the traveller lines against it are not comparisons (no traveller-line warning)."""
    text = r"""% PBN 2.1
% <META  name=ContestID content="H1">
[Event "Club Howell"]
[Date "2026.01.05"]
[Board "1"]
[Scoring "MatchPoints"]
[TotalScoreTable "Rank\2R;PairId\2R;TotalPercentage\5R;Names\30L;NrBoards\2R;MemberID1\7R;MemberID2\7R"]
1 1 60.00 "Ann Able - Bob Baker" 24 "1011" "1012"
2 2 55.00 "Cat Cole - Dan Dale" 24 "1021" "1022"
3 3 45.00 "Eve East - Fay Fell" 24 "2011" "2012"
4 4 40.00 "Phantom - Phantom" 24 "?" "?"
[ScoreTable "PairId_NS\2R;PairId_EW\2R;Contract\4L;Declarer\1R;Result\2R;Score_NS\6R;Score_EW\6R;MP_NS\2R;MP_EW\2R"]
1 2 4S N 10 "420" - 2 0
3 4 4S N 9 - "50" 0 2
"""
    result = _parse_text(text)
    assert result.ok, result.problems
    assert [p.pair_id for p in result.sessions[0].pairs] == ["1", "2", "3"]
    phantom = [(w.line, w.location) for w in result.warnings if w.code == "phantom"]
    assert phantom == [(11, "line 11")]
    assert "traveller-line" not in {w.code for w in result.warnings}


def test_mitchell_phantom_leaves_the_real_pair_of_its_number_alone():
    """FORMATS 5.2 and 5.3: the phantom is EW 2; NS 2 is a real pair and is kept, and only the
    lines against EW 2 are dropped (no traveller-line warning)."""
    result = _parse_text(_MITCHELL.replace("Eve East - Fay Fell", "Phantom - Phantom"))
    assert result.ok, result.problems
    assert sorted(p.pair_id for p in result.sessions[0].pairs) == ["1EW", "1NS", "2NS"]
    assert [(w.code, w.line) for w in result.warnings if w.code != "travellers-incomplete"] == [
        ("phantom", 10)
    ]


def test_mp_ranking_without_a_percentage_column_is_one_problem_at_the_table():
    """PBN 5.10: TotalMP alone cannot be graded (the top is unknown); say so once, where the
    TotalScoreTable is, not once per pair."""
    text = r"""% PBN 2.1
% <META  name=ContestID content="H1">
[Event "Club Howell"]
[Date "2026.01.05"]
[Board "1"]
[Scoring "MP"]
[TotalScoreTable "Rank\2R;PairId\2R;TotalMP\5R;Names\30L;NrBoards\2R;MemberID1\7R;MemberID2\7R"]
1 1 160.0 "Ann Able - Bob Baker" 24 "1011" "1012"
2 2 128.0 "Cat Cole - Dan Dale" 24 "1021" "1022"
"""
    result = _parse_text(text)
    assert [(p.code, p.line) for p in result.problems] == [("pbn-columns", 7)]
    assert "TotalPercentage" in result.problems[0].message


def test_a_partnership_named_phantom_is_a_phantom_and_a_ranking_of_them_is_refused():
    """PBN 5.9: Names is both players' names or the partnership's name, so "PHANTOM" alone is a
    phantom pair (FORMATS 5.3); with no pair left the ranking has nothing to grade."""
    first_section = _TWO_SECTIONS.split("\n\n")[0]
    text = first_section.replace('"Ann Able - Bob Baker" 24 "1011" "1012"', '"PHANTOM" 24 "?" "?"')
    text = text.replace('"Cat Cole - Dan Dale" 24 "1021" "1022"', '"" 24 "" ""')
    result = _parse_text(text)
    assert [(p.code, p.line) for p in result.problems] == [("no-pairs", 7)]
    assert [(w.code, w.line) for w in result.warnings] == [("phantom", 8), ("phantom", 9)]


def test_sections_ranked_in_tables_of_their_own_stay_one_winner():
    """Found by review: the one-winner Ruter file split into sections A and B, each with its
    own TotalScoreTable, where B's first pair sat E-W. Each table's rank 1 is its section's,
    not a direction's: still one winner (PBN 5.10, FORMATS 3.3)."""
    lines = fixture_bytes("pbn/ruter_norway/pairs.pbn").decode("utf-8").split("\n")
    start = next(k for k, line in enumerate(lines) if line.startswith("[TotalScoreTable"))
    end = start + 1
    while end < len(lines) and lines[end] and not lines[end].startswith("["):
        end += 1
    header = lines[start].replace("Rank\\1R;", "Section\\1R;Rank\\1R;")
    section_a = ["A " + line for line in lines[start + 1 : end]]
    section_b = []
    for line in lines[start + 1 : end]:
        rank, pair_id, rest = line.split(None, 2)
        rest = re.sub(r'"(\d{6})"', lambda m: '"9' + m.group(1)[1:] + '"', rest)
        rest = rest.replace('"N-S"', '"X"').replace('"E-W"', '"N-S"').replace('"X"', '"E-W"')
        section_b.append(f"B {rank} {int(pair_id) + 10} {rest}")
    game = ['[Event "2022-05-08-KM. par"]', '[Date "2022.05.08"]', '[Board "99"]', header]
    text = lines[:start] + [header, *section_a, "", *game, *section_b] + lines[end:]
    result = parse_file("x.pbn", "\n".join(text).encode(), "club")
    assert result.ok, result.problems
    (session,) = result.sessions
    assert len(session.pairs) == 16 and session.movement is Movement.ONE_WINNER


def test_a_member_id_that_is_not_a_number_is_worded_with_the_name_quoted():
    """S12: a name the file gives (here one that starts with "=") is quoted back, after the
    message's own words, and the player is kept as unknown."""
    text = _MITCHELL.replace('"Ann Able - Bob Baker" 2 "1011"', '"=Ann Able - Bob Baker" 2 "10x1"')
    result = _parse_text(text)
    assert result.ok, result.problems
    (warning,) = [w for w in result.warnings if w.code == "bad-number"]
    assert warning.location == "line 8"
    assert warning.message == (
        'The member id "10x1" of "=Ann Able" is not a number; the player is treated as unknown.'
    )
    first = next(p for p in result.sessions[0].pairs if p.pair_id == "1NS").players[0]
    assert first.number is None and first.name == "=Ann Able"
