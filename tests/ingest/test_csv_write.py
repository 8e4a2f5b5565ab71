"""write_csv is the inverse of parse_csv for what S12.1 holds."""

import datetime as dt

from grading.engine.types import (
    Direction,
    Movement,
    PairEntry,
    Player,
    Scoring,
    SessionKey,
    SessionResult,
)
from grading.ingest import parse_file
from grading.ingest.csvformat import write_csv


def session(event_id: str, movement: Movement, directions) -> SessionResult:
    pairs = tuple(
        PairEntry(
            str(i + 1),
            (
                Player(str(100 + 2 * i), f"A {i}", rateable=i != 0),  # pair 1 hosts (S12.1)
                Player(None if i == 3 else str(101 + 2 * i), f"B {i}", rateable=i != 0),
            ),
            50.0 + i * 1.25,
            direction,
            boards=24 if i else None,
        )
        for i, direction in enumerate(directions)
    )
    return SessionResult(
        key=SessionKey("club", event_id, 1, dt.date(2026, 11, 16)),
        event_name=f"{event_id} pairs",
        scoring=Scoring.MP,
        movement=movement,
        pairs=pairs,
        start=dt.time(19, 30),
        source="CSV",
    )


def test_csv_round_trip():
    one = session("MON", Movement.ONE_WINNER, [None] * 6)
    two = session("TUE", Movement.TWO_WINNER, [Direction.NS, Direction.EW] * 4)
    parsed = parse_file("x.csv", write_csv([one, two]), "club")
    assert parsed.problems == ()
    assert [s.pairs for s in parsed.sessions] == [one.pairs, two.pairs]
    assert [(s.key, s.start, s.movement) for s in parsed.sessions] == [
        (one.key, one.start, one.movement),
        (two.key, two.start, two.movement),
    ]
