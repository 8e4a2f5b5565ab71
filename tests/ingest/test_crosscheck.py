"""Pair totals against the file's own travellers (S2)."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

from grading.engine.scoring import mp_percentages_real_top
from grading.engine.types import (
    Movement,
    PairEntry,
    Player,
    Scoring,
    SessionKey,
    SessionResult,
    TravellerLine,
)
from grading.ingest import parse_file
from grading.ingest.crosscheck import (
    Variant,
    board_differences,
    compare_totals,
    crosscheck,
    recompute_totals,
)
from tests.ingest.conftest import fixture_bytes, parse_fixture


def _session(scores: dict[str, float]) -> SessionResult:
    """Four pairs, one board played twice: 1 v 2 scores +420, 3 v 4 scores -50."""
    pairs = tuple(
        PairEntry(pid, (Player(str(i * 2 + 1)), Player(str(i * 2 + 2))), score, boards=1)
        for i, (pid, score) in enumerate(scores.items())
    )
    travellers = (
        TravellerLine(board=1, ns_pair="1", ew_pair="2", ns_score=420),
        TravellerLine(board=1, ns_pair="3", ew_pair="4", ns_score=-50),
    )
    return _two_winner(Scoring.MP, pairs, travellers)


def _two_winner(scoring: Scoring, pairs, travellers) -> SessionResult:
    return SessionResult(
        key=SessionKey("c", "E", 1, dt.date(2026, 1, 1)),
        event_name="tiny",
        scoring=scoring,
        movement=Movement.TWO_WINNER,
        pairs=pairs,
        travellers=travellers,
    )


def test_agreeing_totals_give_no_warning():
    assert crosscheck(_session({"1": 100.0, "2": 0.0, "3": 0.0, "4": 100.0})) == []


def test_one_disagreeing_pair_is_named():
    warnings = crosscheck(_session({"1": 100.0, "2": 0.0, "3": 0.0, "4": 60.0}))
    assert [w.location for w in warnings] == ["session 1, pair 4"]
    assert "gives 100.00%" in warnings[0].message


def test_rounding_is_tolerated():
    session = _session({"1": 100.0, "2": 0.0, "3": 0.0, "4": 100.0})
    assert compare_totals(session, {"1": 99.995, "2": 0.004, "3": 0.05, "4": 99.96}) == []


def test_a_different_method_for_most_pairs_is_one_summary_warning():
    # Every pair 5% above what its travellers give: said once, not 13 times
    session = parse_fixture("usebio/ukbridge-club/mp-pairs.usebio.xml").sessions[0]
    pairs = tuple(replace(pair, score=pair.score + 5) for pair in session.pairs)
    warnings = crosscheck(replace(session, pairs=pairs))
    assert len(warnings) == 1 and f"{len(pairs)} of {len(pairs)} pairs" in warnings[0].message


def test_brians_top_without_the_adjusted_table_is_recognised_and_not_warned_about():
    """BriAn leaves an adjusted score's table out of the board's top (no Neuberg) and divides a
    pair's match points by its tops: board 21 of this file (A5050 on 3 v 14) then gives every
    pair's percentage; S2.4's factoring differs for 9 of the 13 pairs."""
    session = parse_fixture("usebio/ukbridge-club/usebio-and-pbn.usebio.xml").sessions[0]
    assert len(compare_totals(session, recompute_totals(session))) == 1  # S2.4: 9 of 13 differ
    assert "9 of 13 pairs" in compare_totals(session, recompute_totals(session))[0].message
    brian = mp_percentages_real_top(session.travellers)
    assert max(abs(pair.score - float(brian[pair.pair_id])) for pair in session.pairs) < 1e-4
    assert crosscheck(session) == []


def test_files_that_contradict_their_own_lines_are_still_warned_about():
    """Hand-edited Compscore and Pianola files (FORMATS): the totals were not made from the
    lines the file carries (an A5050 awarded 23/11; pair 16's total is not its lines' sum)."""
    for path, pair in (
        ("usebio/cobalt/mp_pairs_mitchell_adjusted_02.xml", "1NS"),
        ("usebio/ukbridge-club/cross-imp-pairs.usebio.xml", "16"),
    ):
        warnings = crosscheck(parse_fixture(path).sessions[0])
        assert f"session 1, pair {pair}" in [w.location for w in warnings], path


def test_cobalts_butler_datum_is_recognised_and_not_warned_about():
    """Cobalt drops each board's highest and lowest score (S2.5's club setting) and rounds a
    negative datum's 5 away from zero; its Butler totals then match the travellers exactly."""
    for path in ("usebio/cobalt/butler_howell.xml", "usebio/cobalt/butler_mitchell.xml"):
        session = parse_fixture(path).sessions[0]
        assert compare_totals(session, recompute_totals(session))  # not S2.5's default datum
        assert compare_totals(session, recompute_totals(session, drop=1, halves="away")) == []
        assert crosscheck(session) == [], path


def test_a_butler_file_that_no_known_datum_explains_is_still_warned_about():
    session = parse_fixture("usebio/cobalt/butler_mitchell.xml").sessions[0]
    pairs = tuple(
        replace(pair, score=pair.score + 7) if i == 0 else pair
        for i, pair in enumerate(session.pairs)
    )
    warnings = crosscheck(replace(session, pairs=pairs))
    assert [w.location for w in warnings] == [f"session 1, pair {pairs[0].pair_id}"]


def test_samples_whose_totals_match_their_travellers():
    for path in (
        "usebio/ukbridge-club/mp-pairs.usebio.xml",
        "usebio/ukbridge-club/realbridge.usebio.xml",
        "usebio/cobalt/cross_imp_howell.xml",
        "usebio/cobalt/mp_pairs_howell.xml",
    ):
        assert not [w for w in parse_fixture(path).warnings if w.code == "total-mismatch"], path


def test_a_known_method_that_cannot_score_the_file_is_a_warning_not_a_failure(monkeypatch):
    """The cross-check never stops an upload, whichever method fails (S12: the file's totals
    are used)."""
    from grading.ingest import crosscheck as module

    def broken(travellers):
        raise ZeroDivisionError("no tops")

    monkeypatch.setattr(module.engine_scoring, "mp_percentages_real_top", broken)
    warnings = crosscheck(_session({"1": 100.0, "2": 0.0, "3": 0.0, "4": 60.0}))
    assert [w.code for w in warnings] == ["crosscheck-failed"]
    assert "no tops" in warnings[0].message


def test_a_method_that_leaves_pairs_out_is_not_the_better_fit(monkeypatch):
    """Pair 4 disagrees with S2.4's scoring; a method that scores only pairs 1-3 would have no
    mismatch by saying nothing about pair 4, and must not silence the warning."""
    from grading.ingest import crosscheck as module

    monkeypatch.setattr(
        module.engine_scoring,
        "mp_percentages_real_top",
        lambda travellers: {"1": 100.0, "2": 0.0, "3": 0.0},
    )
    warnings = crosscheck(_session({"1": 100.0, "2": 0.0, "3": 0.0, "4": 60.0}))
    assert [w.location for w in warnings] == ["session 1, pair 4"]


# ---- issue 29 item 5 (S14.21): the totals are graded, the warning names the pair and board


def test_a_usebio_total_that_its_travellers_contradict_is_graded_and_the_board_named():
    data = fixture_bytes("fidelity/usebio-1.1-relative-tricks.xml")
    # pair 1's percentage says 75 % (6 of 8) and its board 2 line says NS 0, EW 2 match
    # points; the traveller has 430 at both tables, a tie: 1 each, so 7 of 8 = 87.5 %
    data = data.replace(
        b"<PERCENTAGE>87.50</PERCENTAGE><TOTAL_SCORE>7</TOTAL_SCORE>",
        b"<PERCENTAGE>75.00</PERCENTAGE><TOTAL_SCORE>6</TOTAL_SCORE>",
        1,
    )
    data = data.replace(
        b"<SCORE>430</SCORE><NS_MATCH_POINTS>1</NS_MATCH_POINTS><EW_MATCH_POINTS>1",
        b"<SCORE>430</SCORE><NS_MATCH_POINTS>0</NS_MATCH_POINTS><EW_MATCH_POINTS>2",
        1,
    )
    result = parse_file("x.xml", data, "club")
    assert result.ok, result.problems
    pairs = {p.pair_id: p.score for p in result.sessions[0].pairs}
    assert pairs["1"] == 75.0  # the file's total is graded
    (warning,) = [w for w in result.warnings if w.code == "total-mismatch"]
    assert warning.location.endswith("pair 1")
    assert "75%" in warning.message and "87.50%" in warning.message
    # board 2: the file gives pair 1 0 of a top of 2 (0 %), the traveller a tie (50 %)
    assert "board 2 (the file 0.00%, the traveller 50.00%)" in warning.message
    assert "board 1" not in warning.message and "board 3" not in warning.message


def test_a_pbn_butler_total_that_its_travellers_contradict_names_the_board():
    data = fixture_bytes("fidelity/butler-phantom-byes.pbn")
    # pair 1: the ranking says +1 and its board 4 line +-1 IMP; the traveller (-200 against
    # +100, datum -50) gives -4 on board 4 and -2 in all
    data = data.replace(b"7003  -2.00  4", b"7003   1.00  4")
    data = data.replace(b" 1 4 4HX W 9 -    200 -4  4", b" 1 4 4HX W 9 -    200 -1  1")
    result = parse_file("x.pbn", data, "club")
    assert result.ok, result.problems
    assert {p.pair_id: p.score for p in result.sessions[0].pairs}["1"] == 1.0
    (warning,) = [w for w in result.warnings if w.code == "total-mismatch"]
    assert "Pair 1 has 1 IMPs in the file" in warning.message
    assert "board 4 (the file -1.00 IMPs, the traveller -4.00 IMPs)" in warning.message


def test_the_boards_named_are_scored_the_way_that_fits_the_totals_not_s25s_default():
    """A Butler file whose datum drops each board's highest and lowest score (S2.5's club
    setting): the warning for the one pair that disagrees names its boards as that datum
    scores them, not as the default datum would."""
    # NS 1-5 against EW 6-10. Board 1: 620, 170, 140, -100, -1100: the default datum is -54,
    # -50; without 620 and -1100 it is 70. Board 2: -200, 100, 110, 140, 650: 160 by
    # default; 116.67, 120 without -200 and 650.
    scores = {1: (620, 170, 140, -100, -1100), 2: (-200, 100, 110, 140, 650)}
    travellers = tuple(
        TravellerLine(board=board, ns_pair=str(i + 1), ew_pair=str(i + 6), ns_score=score)
        for board, row in scores.items()
        for i, score in enumerate(row)
    )
    # each NS pair's IMPs against the trimmed datum (EW the opposite): board 1 +550 = 11,
    # +100 = 3, +70 = 2, -170 = -5, -1170 = -15; board 2 -320 = -8, -20 = -1, -10 = 0,
    # +20 = 1, +530 = 11
    trimmed = {1: (11, 3, 2, -5, -15), 2: (-8, -1, 0, 1, 11)}
    figures = {}
    for board, row in trimmed.items():
        for i, imps in enumerate(row):
            figures[(str(i + 1), board)] = float(imps)
            figures[(str(i + 6), board)] = float(-imps)
    figures[("2", 2)] = 3.0  # pair 2's board 2 written +3 for -1, and its total with it
    totals = {pair: sum(v for (p, _), v in figures.items() if p == pair) for pair, _ in figures}
    pairs = tuple(
        PairEntry(pid, (Player(f"{pid}1"), Player(f"{pid}2")), total, boards=2)
        for pid, total in totals.items()
    )
    session = _two_winner(Scoring.BUTLER, pairs, travellers)
    (warning,) = crosscheck(session, figures)
    assert warning.location == "session 1, pair 2"
    assert "Pair 2 has 6 IMPs in the file, but scoring its traveller lines gives 2.00" in (
        warning.message
    )
    assert "board 2 (the file 3.00 IMPs, the traveller -1.00 IMPs)" in warning.message
    assert "board 1" not in warning.message
    # S2.5's default datum would name both boards, with its own figures (+6 and -2)
    default = board_differences(session, figures)
    assert default["2"] == [(1, 3.0, 6.0), (2, 3.0, -2.0)]
    assert board_differences(session, figures, Variant(drop=1))["2"] == [(2, 3.0, -1.0)]
