"""Normalisation rules applied while reading USEBIO (S12, S14.1, S14.2, S14.4, FORMATS 5)."""

from __future__ import annotations

import datetime as dt

import pytest

from grading.engine.types import Scoring
from grading.ingest import parse_file
from tests.ingest import usebio_builder as ub
from tests.ingest.conftest import fixture_bytes, parse_fixture

HANDMADE = "handmade/usebio-1.3-host-phantom.xml"


def test_usebio_1_3_names_iso_date_and_club_id():
    result = parse_fixture(HANDMADE)
    assert result.ok, result.problems
    (session,) = result.sessions
    assert session.key.event_id == "HM-2026-01"  # EVENT_ID (1.3) for EVENT_IDENTIFIER
    assert session.key.date == dt.date(2026, 1, 5)  # ISO date (1.3)
    assert result.meta.national_club_id == "12345"  # " 0012345 "
    assert result.meta.charge_code == "10"  # EBU_CHARGE_CODE (1.3)


def test_phantom_pair_is_excluded_and_noted():
    result = parse_fixture(HANDMADE)
    session = result.sessions[0]
    assert [p.pair_id for p in session.pairs] == ["1", "2", "3", "4"]
    assert any(w.code == "phantom" and "PAIR[5]" in w.location for w in result.warnings)
    # the line against the phantom is not a comparison
    assert all("5" not in (t.ns_pair, t.ew_pair) for t in session.travellers)
    assert {p.boards for p in session.pairs} == {2}


def test_membership_numbers_are_normalised():
    pairs = parse_fixture(HANDMADE).sessions[0].pairs
    numbers = [[pl.number for pl in p.players] for p in pairs]
    # "00 1001" -> "1001"; 88888888 and "-" mean unknown (S14.2)
    assert numbers == [["1001", "1002"], [None, "1003"], [None, "1004"], ["1005", "1006"]]


def test_only_the_first_host_pair_is_honoured():
    result = parse_fixture(HANDMADE)
    pairs = {p.pair_id: p for p in result.sessions[0].pairs}
    assert not pairs["1"].rateable and not pairs["1"].players[0].rateable
    assert pairs["3"].rateable  # second RATEABLE="N" pair graded as usual (S14.4)
    assert any(w.code == "second-host" for w in result.warnings)


def test_pass_and_adjusted_lines():
    travellers = parse_fixture(HANDMADE).sessions[0].travellers
    passed = next(t for t in travellers if t.contract == "PASS")
    assert passed.ns_score == 0
    adjusted = next(t for t in travellers if t.ns_adjusted)
    assert (adjusted.ns_adjusted, adjusted.ew_adjusted) == ("A60", "A40")


@pytest.mark.parametrize(
    ("code", "graded"),
    [
        ("11", False),
        ("22", False),
        ("04", False),
        ("4", False),
        ("02", False),
        ("10", True),
        ("12", True),
    ],
)
def test_charge_codes(code, graded):
    # S12 / FORMATS 5.8: 11, 22, 04 and 02 are stored but not graded; compared numerically
    data = fixture_bytes(HANDMADE).replace(
        b"<EBU_CHARGE_CODE>10</EBU_CHARGE_CODE>",
        f"<EBU_CHARGE_CODE>{code}</EBU_CHARGE_CODE>".encode(),
    )
    result = parse_file("x.xml", data, "club")
    assert result.ok
    session = result.sessions[0]
    assert session.graded_flag is graded
    assert (session.not_graded_reason == "") is graded
    if code in ("02",):
        assert "overall-results file" in session.not_graded_reason


def test_missing_percentage_is_a_located_problem():
    data = fixture_bytes(HANDMADE).replace(b"<PERCENTAGE>40.00</PERCENTAGE>", b"")
    result = parse_file("x.xml", data, "club")
    assert not result.ok and result.sessions == ()
    (problem,) = result.problems
    assert problem.location == "EVENT/PARTICIPANTS/PAIR[3]/PERCENTAGE"
    assert problem.line == 25  # the PAIR element's line
    assert "Pair 3 has no score" in problem.message and "Re-export" in problem.message


def test_a_membership_number_that_is_not_a_number_is_worded_with_the_name_quoted():
    """S12: the player's name as the file gives it (here one that starts with "=") is quoted
    back after the message's own words; the player is kept as unknown."""
    data = (
        fixture_bytes(HANDMADE)
        .replace(b"<PLAYER_NAME>Known Two</PLAYER_NAME>", b"<PLAYER_NAME>=Known Two</PLAYER_NAME>")
        .replace(b">1003</NATIONAL_ID_NUMBER>", b">10O3</NATIONAL_ID_NUMBER>")
    )
    result = parse_file("x.xml", data, "club")
    assert result.ok, result.problems
    (warning,) = [w for w in result.warnings if w.code == "bad-number"]
    assert warning.location.endswith("/PLAYER[2]/NATIONAL_ID_NUMBER") and warning.line == 23
    assert warning.message.startswith(
        'The membership number "10O3" of "=Known Two" is not a number, so the player is '
        "treated as unknown."
    )
    players = [pl for pair in result.sessions[0].pairs for pl in pair.players]
    assert any(pl.name == "=Known Two" and pl.number is None for pl in players)


def test_bad_date_is_a_problem():
    data = fixture_bytes(HANDMADE).replace(b"2026-01-05", b"31/02/2026")
    result = parse_file("x.xml", data, "club")
    assert [p.code for p in result.problems] == ["date"]
    assert result.problems[0].location == "EVENT/DATE"


def test_nested_sessions_and_sections_give_element_paths():
    data = fixture_bytes("usebio/ukbridge-club/mp-pairs.usebio.xml").replace(
        b"<PERCENTAGE>59.77</PERCENTAGE>", b"<PERCENTAGE>n/a</PERCENTAGE>"
    )
    result = parse_file("x.xml", data, "club")
    (problem,) = result.problems
    assert problem.location == "EVENT/SESSION[1]/SECTION[1]/PARTICIPANTS/PAIR[3]/PERCENTAGE"
    assert "Pair 3 in section Sect1" in problem.message


def test_two_sessions_in_one_file():
    raw = fixture_bytes("usebio/ukbridge-club/mp-pairs.usebio.xml")
    start = raw.index(b"<SESSION")
    end = raw.index(b"</SESSION>") + len(b"</SESSION>")
    second = raw[start:end].replace(b'SESSION_ID="1"', b'SESSION_ID="2"')
    data = raw[:end] + second + raw[end:]
    result = parse_file("x.xml", data, "club")
    assert result.ok, result.problems
    assert [s.key.session for s in result.sessions] == [1, 2]
    assert len({s.key.event_id for s in result.sessions}) == 1


def test_swiss_pairs_hand_made():
    # FORMATS 2.7 (inferred layout, no real sample): match scores before VPs
    result = parse_fixture("handmade/swiss-pairs.xml")
    assert result.ok, result.problems
    session = result.sessions[0]
    assert session.scoring is Scoring.SWISS_PAIRS_IMP
    scores = {p.pair_id: (p.score, p.boards) for p in session.pairs}
    assert scores == {"1": (12.0, 4), "2": (-5.0, 4), "3": (-2.0, 4), "4": (-5.0, 4)}
    assert len(session.matches) == 8
    first = [m for m in session.matches if m.pair_id == "1"]
    assert [(m.round, m.opponents) for m in first] == [(1, ("2",)), (2, ("4",))]


def test_head_to_head_teams_are_not_graded():
    data = fixture_bytes("usebio/ukbridge-club/multiple-teams.usebio.xml").replace(
        b'EVENT_TYPE="TEAMS"', b'EVENT_TYPE="KO"'
    )
    session = parse_file("x.xml", data, "club").sessions[0]
    assert session.scoring is Scoring.HEAD_TO_HEAD and not session.graded_flag


def test_usebio_1_0_teams_are_not_graded():
    data = fixture_bytes("usebio/ukbridge-club/multiple-teams.usebio.xml").replace(
        b'Version="1.2"', b'Version="1.0"'
    )
    session = parse_file("x.xml", data, "club").sessions[0]
    assert not session.graded_flag and "1.0" in session.not_graded_reason


def test_encoding_that_lies_is_reread_as_windows_1252():
    data = fixture_bytes(HANDMADE).replace(b"Hand Made BC", "Hånd Madé BC".encode("latin-1"))
    result = parse_file("x.xml", data, "club")
    assert result.ok
    assert result.meta.club_name == "Hånd Madé BC"
    assert any(w.code == "encoding" for w in result.warnings)


# ---- found by review: Mitchell phantoms, session dates, IMPs named by the event type ----------

MP_TWO_WINNER = (
    "<BOARD_SCORING_METHOD>MATCH_POINTS</BOARD_SCORING_METHOD><WINNER_TYPE>2</WINNER_TYPE>"
)


def test_a_mitchell_phantom_leaves_the_real_pair_of_its_number_alone():
    """FORMATS 5.2: Mitchell numbers repeat per direction; 5.3: a phantom is left out with the
    lines against it. The phantom is EW 3: NS 3 is a real pair, whose lines stay."""
    participants = (
        "".join(ub.pair(n, 50, "NS", ids=(f"1{n}1", f"1{n}2")) for n in (1, 2, 3))
        + "".join(ub.pair(n, 50, "EW", ids=(f"2{n}1", f"2{n}2")) for n in (1, 2))
        + ub.pair(3, None, "EW", names=("PHANTOM", "PHANTOM"), ids=(None, None))
    )
    boards = "".join(
        ub.board(
            b, *(ub.line(ns, (ns + b) % 3 + 1, 420 if ns == 1 else 400, 2, 0) for ns in (1, 2, 3))
        )
        for b in (1, 2, 3)
    )
    xml = ub.usebio(f"<PARTICIPANTS>{participants}</PARTICIPANTS>{boards}", header=MP_TWO_WINNER)
    result = parse_file("x.xml", xml, "club")
    assert result.ok, result.problems
    pairs = {p.pair_id: p for p in result.sessions[0].pairs}
    assert sorted(pairs) == ["1EW", "1NS", "2EW", "2NS", "3NS"]
    assert pairs["3NS"].boards == 2  # of 3: one board was against the phantom
    assert all(t.ew_pair != "3EW" for t in result.sessions[0].travellers)
    assert [w.code for w in result.warnings].count("phantom") == 1


def _dated_session(number: int, date: str | None) -> str:
    participants = ub.pair(1, 55, ids=("11", "12")) + ub.pair(2, 45, ids=("21", "22"))
    dated = f"<DATE>{date}</DATE>" if date else ""
    return (
        f'<SESSION SESSION_ID="{number}">{dated}<PARTICIPANTS>{participants}</PARTICIPANTS>'
        f"{ub.board(1, ub.line(1, 2, 420, 2, 0))}</SESSION>"
    )


def test_sessions_dated_inside_need_no_event_date():
    """A DATE inside a SESSION overrides the event's (docs/decisions.md), so a file that dates
    only its sessions is read, each session on its own date."""
    body = _dated_session(1, "10/01/2026") + _dated_session(2, "11/01/2026")
    result = parse_file("x.xml", ub.usebio(body, date=""), "club")
    assert result.ok, result.problems
    assert [s.key.date for s in result.sessions] == [dt.date(2026, 1, 10), dt.date(2026, 1, 11)]


def test_a_session_without_any_date_is_a_located_problem():
    body = _dated_session(1, "10/01/2026") + _dated_session(2, None)
    result = parse_file("x.xml", ub.usebio(body, date=""), "club")
    assert not result.ok
    assert [p.location for p in result.problems if p.code == "date"] == ["EVENT/SESSION[2]/DATE"]


def test_an_undated_file_is_still_refused_at_the_event_date():
    result = parse_file("x.xml", ub.usebio(_dated_session(1, None), date=""), "club")
    assert [p.location for p in result.problems if p.code == "date"] == ["EVENT/DATE"]


@pytest.mark.parametrize(
    "event_type, scoring",
    [
        ("BUTLER_PAIRS", Scoring.BUTLER),
        ("CROSS_IMP", Scoring.CROSS_IMP),
    ],
)
def test_imps_as_the_method_with_the_kind_in_the_event_type(event_type, scoring):
    """FORMATS 2.3: IMPS is a method value; Butler or cross-IMPs is said by the event type."""
    participants = ub.pair(1, None, total=5, ids=("11", "12")) + ub.pair(
        2, None, total=-5, ids=("21", "22")
    )
    body = (
        f"<PARTICIPANTS>{participants}</PARTICIPANTS>"
        f"{ub.board(1, ub.line(1, 2, 420, 5, -5, tag='BUTLER_POINTS'))}"
    )
    header = "<BOARD_SCORING_METHOD>IMPS</BOARD_SCORING_METHOD><WINNER_TYPE>1</WINNER_TYPE>"
    result = parse_file("x.xml", ub.usebio(body, event_type=event_type, header=header), "club")
    assert result.ok, result.problems
    assert result.sessions[0].scoring is scoring
