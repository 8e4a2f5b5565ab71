"""A withdrawal's PPI undo touches only what the withdrawn event reached (issue 21 item 3): its
players from the event on, and the players of every later event one of them played in; every
other member's PPI rows are left as they are, and the result is the replay from empty (S10)."""

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from grading.engine.ppi import ppi_replay
from grading.models import PPIPoint, PPIRating, SessionVersion
from grading.schemes.ppi import ppi_check
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import ClubFactory
from tests.schemes.conftest import live_sessions_in_processing_order, withdraw


def pairs(first: int, count: int = 8) -> list[tuple[str, str]]:
    return [(str(first + 2 * i), str(first + 2 * i + 1)) for i in range(count)]


A, B, C, D = pairs(1001), pairs(2001), pairs(3001), pairs(4001)


def rows() -> dict[str, int]:
    return dict(PPIRating.objects.values_list("member__national_number", "pk"))


def points() -> dict[int, set[int]]:
    found: dict[int, set[int]] = {}
    for member, pk in PPIPoint.objects.values_list("member_id", "pk"):
        found.setdefault(member, set()).add(pk)
    return found


def numbers(groups) -> set[str]:
    return {n for pair in groups for n in pair}


@pytest.fixture
def chain(upload):
    """S1: A; S2: B; S3: half of B with half of C; S4: A again; S5: D."""
    club = ClubFactory(keeps_brambledown=False)
    for event, day, players in (
        ("S1", "2026-11-02", A),
        ("S2", "2026-11-03", B),
        ("S3", "2026-11-04", B[:4] + C[:4]),
        ("S4", "2026-11-05", A),
        ("S5", "2026-11-06", D),
    ):
        upload(csv_bytes(mp_session_rows(event_id=event, date=day, numbers=players)), target=club)
    assert ppi_check() == []
    return {
        v.session.event.event_id: v for v in SessionVersion.objects.select_related("session__event")
    }


def test_withdrawing_a_middle_session_rewrites_only_what_it_reached(chain):
    before, points_before = rows(), points()
    withdraw(chain["S2"])
    after, points_after = rows(), points()

    reached = numbers(B) | numbers(C[:4])
    untouched = set(before) - reached
    assert untouched == numbers(A) | numbers(D)
    assert {n: after[n] for n in untouched} == {n: before[n] for n in untouched}  # same rows
    ids = dict(PPIRating.objects.values_list("member__national_number", "member_id"))
    assert all(points_after[ids[n]] == points_before[ids[n]] for n in untouched)
    # B's second half played only S2: no PPI any more; the others were written again.
    assert set(after) == set(before) - numbers(B[4:])
    assert all(after[n] != before[n] for n in reached & set(after))
    replay = ppi_replay(live_sessions_in_processing_order())
    assert {
        n: (r.ppi, r.boards)
        for n, r in (
            (r.member.national_number, r) for r in PPIRating.objects.select_related("member")
        )
    } == {n: (p.ppi, p.boards) for n, p in replay.players.items()}
    assert ppi_check() == []


def test_withdrawing_the_first_session_replays_its_players_later_events(chain):
    before = rows()
    withdraw(chain["S1"])
    after = rows()
    assert {n for n in before if after.get(n) == before[n]} == numbers(B) | numbers(
        C[:4]
    ) | numbers(D)
    assert ppi_check() == []


def newest_pks() -> tuple[int, int]:
    return tuple(
        model.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
        for model in (PPIRating, PPIPoint)
    )


def rows_written_since(pks: tuple[int, int]) -> int:
    return (
        PPIRating.objects.filter(pk__gt=pks[0]).count()
        + PPIPoint.objects.filter(pk__gt=pks[1]).count()
    )


def test_withdrawing_the_latest_session_costs_the_same_however_many_members(upload):
    """A withdrawal's statements and the PPI rows it writes do not grow with the members
    rated elsewhere (a rebuild wrote every member's rating and history again)."""
    club = ClubFactory(keeps_brambledown=False)

    def withdraw_latest(event: str, day: str) -> tuple[int, int]:
        upload(csv_bytes(mp_session_rows(event_id=event, date=day, numbers=A)), target=club)
        version = SessionVersion.objects.get(session__event__event_id=event)
        pks = newest_pks()
        with CaptureQueriesContext(connection) as queries:
            withdraw(version)
        assert ppi_check() == []
        return len(queries), rows_written_since(pks)

    upload(csv_bytes(mp_session_rows(event_id="X0", date="2026-11-02", numbers=A)), target=club)
    few = withdraw_latest("W1", "2026-11-10")
    for i, group in enumerate((B, C, D, pairs(5001))):
        day = f"2026-11-0{3 + i}"
        upload(
            csv_bytes(mp_session_rows(event_id=f"X{i + 1}", date=day, numbers=group)), target=club
        )
    assert PPIRating.objects.count() == 5 * 16
    many = withdraw_latest("W2", "2026-11-11")
    assert many == few
    assert few[1] == 16  # A's ratings, back to after X0; their X0 history stays as it is


def test_withdrawals_in_any_order_leave_exactly_the_replay(upload):
    """Sessions over one pool of players, paired at random, withdrawn and corrected in a random
    order: after each step the stored PPI is the replay from empty (``ppi_check``)."""
    rng = random.Random(21)
    club = ClubFactory(keeps_brambledown=False)
    pool = [str(7001 + i) for i in range(24)]
    for i in range(8):
        players = rng.sample(pool, 16)
        groups = [(players[2 * k], players[2 * k + 1]) for k in range(8)]
        scores = [rng.choice([35, 42.5, 50, 57.5, 65]) for _ in groups]
        rows = mp_session_rows(
            event_id=f"R{i}", date=f"2026-10-{10 + i}", numbers=groups, scores=scores
        )
        upload(csv_bytes(rows), target=club)
    events = [f"R{i}" for i in range(8)]
    rng.shuffle(events)
    for event in events[:3]:
        version = SessionVersion.objects.get(session__event__event_id=event, state="graded")
        withdraw(version)
        assert ppi_check() == []
    rows = mp_session_rows(event_id=events[3], date=f"2026-10-{10 + int(events[3][1])}")
    upload(csv_bytes(rows), target=club)  # a correction: withdrawal, then the new version
    assert ppi_check() == []
