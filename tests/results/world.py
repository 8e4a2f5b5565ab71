"""Sessions with travellers for the results tests: a simulated Howell (one winner) or Mitchell
(two winners) written as USEBIO by the simulator and uploaded as a club would."""

from __future__ import annotations

import datetime as dt
import random

from grading.engine.types import Movement, Scoring, SessionKey
from grading.lab.simulate.population import Person
from grading.lab.simulate.sessions import Entrant, pairs_session
from grading.lab.simulate.writers import usebio_bytes
from grading.models import Session
from grading.uploads.services import upload_create


def numbers(pairs: int, first: int = 5001) -> list[tuple[str | None, str | None]]:
    return [(str(first + 2 * i), str(first + 2 * i + 1)) for i in range(pairs)]


def session_file(
    *,
    players: list[tuple[str | None, str | None]],
    date: dt.date,
    seed: int = 7,
    movement: Movement = Movement.ONE_WINNER,
    scoring: Scoring = Scoring.MP,
    event: str = "TUE",
) -> bytes:
    rng = random.Random(seed)
    entrants = [
        Entrant(
            (
                Person(a, f"Player {a or 'visitor'} A{i}", rng.gauss(50, 4)),
                Person(b, f"Player {b or 'visitor'} B{i}", rng.gauss(50, 4)),
            )
        )
        for i, (a, b) in enumerate(players)
    ]
    key = SessionKey("club", event, 1, date)
    sim = pairs_session(rng, key, f"{event} Pairs", scoring, movement, entrants)
    return usebio_bytes(sim, "Test club", "999")


def upload_session(club, capture, data: bytes, name: str = "results.xml") -> Session:
    with capture(execute=True):
        upload = upload_create(club=club, filename=name, data=data, check_club=False)
    upload.refresh_from_db()
    assert upload.status == "graded", (upload.status, upload.problems)
    return upload.versions.get().session
