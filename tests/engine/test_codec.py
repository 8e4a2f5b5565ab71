"""Session versions are stored as JSON and rebuilt for replay (S5.4): the round trip is exact."""

import datetime as dt
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from grading.engine.codec import dump, fingerprint, load
from grading.engine.scoring import TravellerLine
from grading.engine.types import (
    Direction,
    Movement,
    PairEntry,
    Player,
    Scoring,
    SessionKey,
    SessionResult,
    SwissMatch,
)


def sample_session(score: float = 55.25) -> SessionResult:
    players = (Player("123", "Ann Smith"), Player(None, "Visitor", rateable=False))
    return SessionResult(
        key=SessionKey("riverside", "MON-PAIRS", 1, dt.date(2026, 11, 16)),
        event_name="Monday Pairs",
        scoring=Scoring.MP,
        movement=Movement.TWO_WINNER,
        pairs=(
            PairEntry("1", players, score, Direction.NS, boards=24),
            PairEntry("2", (Player("9", "B"), Player("10", "C")), 44.75, Direction.EW),
        ),
        start=dt.time(19, 30),
        travellers=(
            TravellerLine(1, "1", "2", ns_score=420, contract="4S", declarer="N", tricks=10),
            TravellerLine(
                2, "1", "2", ns_weighted=((Fraction(3, 10), 620), (Fraction(7, 10), -100))
            ),
            TravellerLine(3, "1", "2", ns_adjusted="A60", ew_adjusted="A40"),
        ),
        matches=(SwissMatch("1", 1, ("2",), 7, 12.5),),
        extra=(("program", "EBUScore"),),
    )


def test_round_trip_is_exact():
    session = sample_session()
    assert load(SessionResult, dump(session)) == session


def test_fingerprint_depends_on_content_only():
    assert fingerprint(sample_session()) == fingerprint(sample_session())
    assert fingerprint(sample_session(55.25)) != fingerprint(sample_session(55.26))


@given(
    score=st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False)),
    boards=st.one_of(st.none(), st.integers(0, 200)),
    name=st.text(max_size=30),
)
def test_round_trip_any_pair_entry(score, boards, name):
    entry = PairEntry("7A", (Player("1", name), Player(None, "")), score, None, boards)
    assert load(PairEntry, dump(entry)) == entry
