"""The compiled kernel fixture of the engine tests (tests/engine/conftest.py), and a ledger of
uploads over five years for the whole-ledger operations."""

import pytest

from grading.ledger.replay.check import ledger_check
from grading.models import LedgerHead, SessionVersion
from grading.uploads.services import session_withdraw, upload_create
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.engine.conftest import ckernel_built  # noqa: F401
from tests.factories import ClubFactory

NOW = [(str(1001 + 2 * i), str(1002 + 2 * i)) for i in range(8)]
OLD = [(str(3001 + 2 * i), str(3002 + 2 * i)) for i in range(8)]
SCORES = [62.5, 55.0, 52.5, 50.0, 47.5, 45.0, 44.0, 43.5]


def rotated(pairs, k: int):
    """The same players, each first player with another partner (new partnerships)."""
    seconds = [b for _, b in pairs]
    return [(a, seconds[(i + k) % len(pairs)]) for i, (a, _) in enumerate(pairs)]


@pytest.fixture
def ledger(db, django_capture_on_commit_callbacks):
    """Uploads over five years: a field that stopped playing in 2021 (out of date three years
    on), a field playing in 2023-2024 with rotating partners, a correction, a correction that
    takes a player's only session, and a withdrawal."""
    club = ClubFactory()

    def send(date: str, event: str, numbers, scores=SCORES):
        with django_capture_on_commit_callbacks(execute=True):
            upload_create(
                club=club,
                filename=f"{event}-{date}.csv",
                data=csv_bytes(
                    mp_session_rows(date=date, event_id=event, numbers=numbers, scores=scores)
                ),
            )

    for k, date in enumerate(("2021-03-01", "2021-03-08", "2021-03-15")):
        send(date, "OLD", rotated(OLD, k))
    mixed = OLD[:4] + NOW[:4]  # some of the old field come back once
    send("2023-01-09", "MIX", mixed)
    for k, date in enumerate(("2023-02-06", "2023-06-05", "2023-11-06", "2024-01-08")):
        send(date, "NOW", rotated(NOW, k % 3))
    send("2023-06-05", "NOW", rotated(NOW, 0), scores=list(reversed(SCORES)))  # a correction
    send("2024-02-05", "ONE", [*NOW[:7], ("1901", "1902")])
    send("2024-02-05", "ONE", NOW)  # corrected: 1901 and 1902 lose their only session
    send("2024-03-04", "NOW", rotated(NOW, 1))
    session_withdraw(
        version=SessionVersion.objects.filter(state=SessionVersion.State.GRADED).latest("pk")
    )
    send("2024-02-26", "NOW", rotated(NOW, 2))  # the latest date of play (S14.6)
    assert ledger_check() == []
    return LedgerHead.objects.get()
