"""Files as the scoring programs really write them (issue 20 items 1-3): sections directly under
the event, handicapped pairs (SPEC S14.15), and files of another kind said for what they are
(S3.1: stored not graded with the reason, or refused naming what the file is).

Fixtures: tests/fixtures/structures/, one per structure, written for these tests (the
travellers and percentages of the pairs files agree with the engine's scoring, S2.2)."""

from __future__ import annotations

import re

import pytest

from grading.engine.types import Scoring
from grading.ingest import parse_file
from grading.ingest.usebio.handicap import FROM_TRAVELLERS, HANDICAP_REMOVED, NOT_POSSIBLE
from tests.ingest.conftest import fixture_bytes, parse_fixture

SECTIONS = "structures/section-under-event.xml"
HANDICAPPED = "structures/handicapped-pairs.xml"
SCRATCH = {"1": 25.0, "2": 75.0, "3": 58.33, "4": 41.67}  # the engine's, from the travellers
HANDICAPS = {"1": -3.0, "2": 2.5, "3": 0.0, "4": 1.0}


def _without_boards(data: bytes) -> bytes:
    return re.sub(rb"<BOARD>.*?</BOARD>\s*", b"", data, flags=re.S)


# ---- 1. SECTIONs directly under EVENT ---------------------------------------------------------


def test_sections_under_the_event_are_one_session_of_several_sections():
    result = parse_fixture(SECTIONS)
    assert result.ok, result.problems
    (session,) = result.sessions
    assert session.scoring is Scoring.MP and session.graded_flag
    assert [(p.pair_id, p.section) for p in session.pairs] == [
        (f"{s}{n}", s) for s in "AB" for n in range(1, 5)
    ]
    assert {p.pair_id: p.score for p in session.pairs}["A2"] == 75.0
    assert len(session.travellers) == 24 and session.boards == 6
    assert {p.boards for p in session.pairs} == {6}
    # each section is its own field here: the cross-check finds the per-section scoring
    assert not [w for w in result.warnings if w.code == "total-mismatch"]


def test_sections_are_found_at_any_depth_under_the_event():
    data = fixture_bytes(SECTIONS).replace(
        b'<SECTION SECTION_ID="A">', b'<RESULTS><SECTION SECTION_ID="A">'
    )
    data = data.replace(b"  </EVENT>", b"</RESULTS>\n  </EVENT>")
    result = parse_file("deep.xml", data, "club")
    assert result.ok, result.problems
    (session,) = result.sessions
    assert len(session.pairs) == 8 and {p.section for p in session.pairs} == {"A", "B"}


def test_an_event_with_no_results_anywhere_is_still_refused_saying_so():
    data = re.sub(rb"<SECTION .*</SECTION>", b"", fixture_bytes(SECTIONS), flags=re.S)
    (problem,) = parse_file("empty.xml", data, "club").problems
    assert problem.code == "no-participants" and problem.location == "EVENT"


# ---- 2. Handicapped pairs (S14.15) ---------------------------------------------------------


def test_handicapped_pairs_are_graded_on_scratch_scores_from_the_travellers():
    result = parse_fixture(HANDICAPPED)
    assert result.ok, result.problems
    (session,) = result.sessions
    assert session.graded_flag
    assert {p.pair_id: p.score for p in session.pairs} == SCRATCH
    assert ("handicapped", FROM_TRAVELLERS) in session.extra
    (warning,) = [w for w in result.warnings if w.code == "handicapped"]
    assert "handicapped" in warning.message and "before handicaps" in warning.message
    assert warning.location == "EVENT"


def test_without_travellers_the_handicap_is_taken_off_the_score():
    result = parse_file("h.xml", _without_boards(fixture_bytes(HANDICAPPED)), "club")
    assert result.ok, result.problems
    (session,) = result.sessions
    assert session.graded_flag and session.travellers == ()
    assert {p.pair_id: p.score for p in session.pairs} == pytest.approx(SCRATCH, abs=0.006)
    assert ("handicapped", HANDICAP_REMOVED) in session.extra
    assert [w.code for w in result.warnings].count("handicapped") == 1


def test_scorebridge_handicaps_are_subtracted_so_they_are_added_back():
    """ScoreBridge and Pianola: a positive handicap lowers the score (issue 20)."""
    data = _without_boards(fixture_bytes(HANDICAPPED)).replace(b"EBUScore Pairs", b"ScoreBridge")
    pairs = parse_file("h.xml", data, "club").sessions[0].pairs
    written = {k: round(SCRATCH[k] + HANDICAPS[k], 2) for k in SCRATCH}
    assert {p.pair_id: p.score for p in pairs} == pytest.approx(
        {k: written[k] + HANDICAPS[k] for k in SCRATCH}, abs=0.006
    )


def test_when_neither_can_be_done_the_session_is_stored_not_graded_with_the_reason():
    data = _without_boards(fixture_bytes(HANDICAPPED)).replace(
        b"<HANDICAP>2.5</HANDICAP>", b"<HANDICAP>two and a half</HANDICAP>"
    )
    result = parse_file("h.xml", data, "club")
    assert result.ok, result.problems
    (session,) = result.sessions
    assert not session.graded_flag
    assert "handicapped" in session.not_graded_reason
    assert '"two and a half"' in session.not_graded_reason
    assert ("handicapped", NOT_POSSIBLE) in session.extra


def test_handicaps_of_zero_are_not_a_handicapped_event():
    data = re.sub(
        rb"<HANDICAP>[^<]*</HANDICAP>", b"<HANDICAP>0.0</HANDICAP>", fixture_bytes(HANDICAPPED)
    )
    result = parse_file("h.xml", data, "club")
    assert not [w for w in result.warnings if w.code == "handicapped"]
    assert all(key != "handicapped" for key, _ in result.sessions[0].extra)


# ---- 3. Files of another kind ---------------------------------------------------------------


def _no_useless_advice(message: str) -> None:
    assert "xport" not in message, message  # never "export again" for a file of another kind
    assert not re.search(r"\bS\d", message), message


def test_an_individual_is_stored_not_graded_whatever_its_event_type_says():
    result = parse_fixture("structures/individual.xml")
    assert result.ok, result.problems
    (session,) = result.sessions
    assert session.scoring is Scoring.INDIVIDUAL and not session.graded_flag
    assert session.not_graded_reason.startswith("Individual events")
    _no_useless_advice(session.not_graded_reason)


def test_a_head_to_head_teams_match_is_stored_not_graded():
    result = parse_fixture("structures/head-to-head-teams.xml")
    assert result.ok, result.problems
    (session,) = result.sessions
    assert session.scoring is Scoring.HEAD_TO_HEAD and not session.graded_flag
    assert "head-to-head" in session.not_graded_reason
    assert {p.team for p in session.pairs} == {"HOME", "OXFORD"}
    _no_useless_advice(session.not_graded_reason)


def test_a_head_to_head_match_without_line_ups_is_still_said_to_be_head_to_head():
    data = re.sub(
        rb"<PAIR><PAIR_NUMBER>[^<]*</PAIR_NUMBER><BOARDS_PLAYED>4</BOARDS_PLAYED>"
        rb"<PAIR_IMPS>[^<]*</PAIR_IMPS>|</PAIR>",
        b"",
        fixture_bytes("structures/head-to-head-teams.xml"),
    )
    (session,) = parse_file("h2h.xml", data, "club").sessions
    assert session.scoring is Scoring.HEAD_TO_HEAD and "head-to-head" in session.not_graded_reason


@pytest.mark.parametrize("without_event", [False, True])
def test_a_hand_record_is_refused_saying_it_is_a_hand_record(without_event):
    data = fixture_bytes("structures/hand-record.xml")
    if without_event:
        data = re.sub(rb"<EVENT .*</EVENT>", b"", data, flags=re.S)
    result = parse_file("deals.xml", data, "club")
    (problem,) = result.problems
    assert problem.code == "hand-record" and problem.line
    assert "hand record" in problem.message and "4 board(s)" in problem.message
    _no_useless_advice(problem.message)


def test_a_pbn_hand_record_is_refused_saying_it_is_a_hand_record():
    deal = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"
    games = [f'[Event "Pairs"]\n[Board "{b}"]\n[Deal "{deal}"]\n' for b in (1, 2, 3)]
    result = parse_file("deals.pbn", ("% PBN 2.1\n" + "\n".join(games)).encode(), "club")
    (problem,) = result.problems
    assert problem.code == "pbn-no-results"
    assert "hand record" in problem.message and "3 board(s)" in problem.message
    _no_useless_advice(problem.message)


def test_foreign_xml_is_refused_naming_the_root_element_found():
    (problem,) = parse_fixture("structures/foreign-xml.xml").problems
    assert problem.code == "not-usebio" and problem.line == 3
    assert "<Tournament>" in problem.message  # namespace left out
    assert "another program's own XML" in problem.message
    _no_useless_advice(problem.message)


def test_sections_wrapped_inside_a_session_are_found_too():
    data = fixture_bytes(SECTIONS).replace(
        b'<SECTION SECTION_ID="A">', b'<SESSION SESSION_ID="1"><GROUP><SECTION SECTION_ID="A">'
    )
    data = data.replace(b"  </EVENT>", b"</GROUP></SESSION>\n  </EVENT>")
    result = parse_file("wrapped.xml", data, "club")
    assert result.ok, result.problems
    (session,) = result.sessions
    assert len(session.pairs) == 8 and {p.section for p in session.pairs} == {"A", "B"}
