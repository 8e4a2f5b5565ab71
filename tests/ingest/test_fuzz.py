"""parse_file never raises: mutated sample bytes either parse or come back with problems."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grading.ingest import parse_file
from tests.ingest.conftest import fixture_bytes

SAMPLES = [
    fixture_bytes(path)
    for path in (
        "usebio/scorebridge/scorebridge_mp_pairs_EXCERPT.xml",
        "handmade/usebio-1.3-host-phantom.xml",
        "handmade/swiss-pairs.xml",
        "usebio/cobalt/mp_pairs_mitchell_03.xml",
        "malformed/good.csv",
    )
] + [fixture_bytes("pbn/ruter_norway/pairs.pbn")[:12000]]


@st.composite
def mutated(draw) -> bytes:
    data = bytearray(draw(st.sampled_from(SAMPLES)))
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["flip", "delete", "insert", "truncate", "duplicate"]))
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        if kind == "flip" and data:
            data[at] = draw(st.integers(0, 255))
        elif kind == "delete":
            del data[at : at + draw(st.integers(1, 200))]
        elif kind == "insert":
            chunk = draw(
                st.sampled_from(
                    [b"<", b">", b"&", b'"', b",", b"\n", b"A5050", b"-", b"\x00", b"\xff"]
                )
            )
            data[at:at] = chunk
        elif kind == "truncate":
            del data[at:]
        else:
            end = min(len(data), at + draw(st.integers(1, 400)))
            data[at:at] = data[at:end]
    return bytes(data)


@settings(max_examples=150, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_parse_file_never_raises(data):
    result = parse_file("fuzz", data, "club")
    assert not any(p.code == "internal-error" for p in result.problems), result.problems
    assert result.ok == (not result.problems)
    if result.problems:
        assert result.sessions == ()
    for session in result.sessions:
        assert len({p.pair_id for p in session.pairs}) == len(session.pairs)
        numbers = [pl.number for p in session.pairs for pl in p.players if pl.number]
        assert len(set(numbers)) == len(numbers)  # one seat per member (grading needs it)


def test_repeated_pair_ids_are_refused_in_every_format():
    """Found by the fuzz test: a damaged PBN gave two pairs the id "N-S". S12: refused whole."""
    rows = [
        "event_id,session,date,scoring,movement,pair,player1_number,player2_number,score",
        "E1,1,2026-11-16,MP,ONE_WINNER,1,11,12,55",
        "E1,1,2026-11-16,MP,ONE_WINNER,2,13,14,50",
        "E1,1,2026-11-16,MP,ONE_WINNER,1,15,16,45",
    ]
    result = parse_file("dup.csv", "\n".join(rows).encode(), "club")
    assert result.sessions == ()
    assert any("pair 1 appears" in p.message.lower() for p in result.problems)


@pytest.mark.parametrize(
    "first, second",
    [
        ("1001", "1001"),  # the same number twice
        ("1001", "0001001"),  # S14.2: the same member, written two ways
    ],
)
def test_a_member_in_two_seats_is_refused_in_every_format(first, second):
    """Found by review: grading cannot give one member two session grades, and a file that
    did this was stored, then failed at grading (blocking every later upload). S12: refused
    whole, saying which number and pairs."""
    rows = [
        "event_id,session,date,scoring,movement,pair,player1_number,player2_number,score",
        f"E1,1,2026-11-16,MP,ONE_WINNER,1,{first},12,55",
        "E1,1,2026-11-16,MP,ONE_WINNER,2,13,14,50",
        f"E1,1,2026-11-16,MP,ONE_WINNER,3,15,{second},45",
    ]
    result = parse_file("dup.csv", "\n".join(rows).encode(), "club")
    assert result.sessions == ()
    (problem,) = [p for p in result.problems if p.code == "member-repeated"]
    assert problem.location == "E1, pairs 1 and 3" and "1001" in problem.message


def test_a_member_twice_in_a_usebio_sample_is_refused():
    data = fixture_bytes("usebio/cobalt/mp_pairs_mitchell_02.xml")
    numbers = re.findall(rb"<NATIONAL_ID_NUMBER>([^<]+)</NATIONAL_ID_NUMBER>", data)
    copied = data.replace(numbers[1], numbers[0], 1)
    result = parse_file("x.xml", copied, "club")
    assert [p.code for p in result.problems] == ["member-repeated"]


@pytest.mark.parametrize(
    "scoring, boards, score, player, says",
    [
        (
            "MP",
            "999999999",
            "55",
            "11",
            "999999999 boards",
        ),  # graded for 10 minutes, PPI -8 million
        ("BUTLER", "24", "867", "11", "867 IMPs over 24 boards"),
    ],
)
def test_implausible_figures_are_refused_saying_which_pair(scoring, boards, score, player, says):
    """Found by review: nothing bounded boards played, IMP totals or number lengths."""
    rows = [
        "event_id,session,date,scoring,movement,pair,player1_number,player2_number,score,boards",
        f"E1,1,2026-11-16,{scoring},ONE_WINNER,1,{player},12,{score},{boards}",
        f"E1,1,2026-11-16,{scoring},ONE_WINNER,2,13,14,{50 if scoring == 'MP' else -5},24",
    ]
    result = parse_file("big.csv", "\n".join(rows).encode(), "club")
    assert result.sessions == ()
    (problem,) = [p for p in result.problems if p.code == "implausible"]
    assert problem.location == "E1, pair 1" and says in problem.message


def test_a_membership_number_too_long_for_the_database_is_refused_saying_where():
    """Found by review: a 30-digit number was a 500 on PostgreSQL (issue 21 item 4)."""
    rows = [
        "event_id,session,date,scoring,movement,pair,player1_number,player2_number,score",
        f"E1,1,2026-11-16,MP,ONE_WINNER,1,{'1' * 30},12,55",
        "E1,1,2026-11-16,MP,ONE_WINNER,2,13,14,45",
    ]
    result = parse_file("big.csv", "\n".join(rows).encode(), "club")
    assert result.sessions == ()
    (problem,) = [p for p in result.problems if p.code == "too-long"]
    assert problem.location == "E1, session of 16 Nov 2026, pair 1, player 1"
    assert "longer than the 20 characters" in problem.message
