"""The bulk PPI fold (grading.engine.ppi.bulk, issue 18) equals ppi_apply event by event (S10)
to 1e-9: session level (one- and two-winner movements, unknown players, host pairs, boards not
reported, m halved below 46, k across 30 and 300, w in every band) and board by board; the
pairs read as rows find the host pair as the session does."""

from __future__ import annotations

import datetime as dt
import random

import pytest

from grading.engine.ngs.session import host_pair_of
from grading.engine.ppi import PPIState, ppi_apply
from grading.engine.ppi.bulk import PPIBulkFold, _host_of, _inverse_m_sum, pair_rows
from grading.engine.ppi.formulas import ppi_weight
from grading.engine.scoring import TravellerLine
from grading.engine.types import (
    Direction,
    Movement,
    PairEntry,
    Player,
    Scoring,
    SessionKey,
    SessionResult,
)


def _session(rng: random.Random, index: int, day: dt.date, members: list[str]) -> SessionResult:
    two_winner = rng.random() < 0.4
    size = rng.randint(2, 12)
    chosen = rng.sample(members, 2 * size)
    pairs = []
    for i in range(size):
        a, b = chosen[2 * i], chosen[2 * i + 1]
        if rng.random() < 0.06:
            a = None  # an unknown player
        direction = None
        if two_winner:
            direction = Direction.NS if i % 2 == 0 else Direction.EW
            if rng.random() < 0.05:
                direction = None  # a pair the file gives no direction
        score = None if rng.random() < 0.03 else rng.uniform(25, 75)
        boards = None if rng.random() < 0.1 else rng.choice([0, 1, 18, 24, 27, 40])
        rateable = rng.random() > 0.05  # a non-rateable (host) pair
        pairs.append(
            PairEntry(
                str(i + 1), (Player(a, rateable=rateable), Player(b)), score, direction, boards
            )
        )
    scoring = Scoring.MP if rng.random() > 0.05 else Scoring.BUTLER
    movement = Movement.TWO_WINNER if two_winner else Movement.ONE_WINNER
    travellers = ()
    if rng.random() < 0.15 and size >= 2:
        travellers = tuple(_travellers(rng, [p.pair_id for p in pairs]))
    return SessionResult(
        SessionKey("club", f"e{index}", 1, day),
        "",
        scoring,
        movement,
        tuple(pairs),
        travellers=travellers,
    )


def _travellers(rng: random.Random, ids: list[str]) -> list[TravellerLine]:
    lines = []
    for board in range(1, rng.randint(2, 8)):
        order = ids[:]
        rng.shuffle(order)
        for t in range(len(order) // 2):
            score = rng.choice([-620, -100, 110, 140, 420, 450, 650])
            lines.append(TravellerLine(board, order[2 * t], order[2 * t + 1], score))
    return lines


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_bulk_fold_equals_ppi_apply_event_by_event(seed):
    rng = random.Random(seed)
    members = [str(1000 + i) for i in range(40)]
    day = dt.date(2024, 1, 3)
    state = PPIState()
    fold = PPIBulkFold()
    for index in range(260):  # about 60 events each: k crosses 30 and 300, w every band
        day += dt.timedelta(days=rng.choice([0, 1, 2, 5]))
        session = _session(rng, index, day, members)
        seq = index + 1 + rng.choice([0, 0, 3])  # the log's numbers may jump (withdrawals)
        host = rng.choice([None, None, None, "1", "99"])
        state = ppi_apply(PPIState(state.players, seq - 1), session, host_pair=host).state
        fold.apply(seq, session, host)
        if index % 37 == 0:
            _assert_equal(fold.players(), dict(state.players))
    players = fold.players()
    _assert_equal(players, dict(state.players))
    assert any(p.boards > 300 for p in players.values())  # m from w
    assert any(point.ppi < 46 for p in players.values() for point in p.history)  # m halved


def _assert_equal(bulk, engine) -> None:
    assert bulk.keys() == engine.keys()
    for number, expected in engine.items():
        got = bulk[number]
        assert _close(got.ppi, expected.ppi), number
        assert (got.boards, got.months) == (expected.boards, expected.months)
        assert len(got.history) == len(expected.history)
        for a, b in zip(got.history, expected.history, strict=True):
            assert (a.seq, a.date, a.boards, a.total_boards) == (
                b.seq,
                b.date,
                b.boards,
                b.total_boards,
            )
            assert _close(a.ppi, b.ppi)


@pytest.mark.parametrize("k", [0, 1, 25, 29, 30, 31, 150, 290, 299, 300, 301, 500])
@pytest.mark.parametrize("n", [1, 2, 24, 40, 400])
@pytest.mark.parametrize("w", [0, 149, 150, 220, 300, 301])
def test_the_sum_of_one_over_m_is_the_boards_one_by_one(k, n, w):
    expected = sum(1 / ppi_weight(k + j, w, 50.0) for j in range(n))
    assert abs(_inverse_m_sum(k, n, w) - expected) <= 1e-12


@pytest.mark.parametrize("seed", [4, 5])
def test_the_pairs_rows_name_the_host_pair_the_session_names(seed):
    """The fold reads a session's pairs as rows (``pair_rows``, as a rebuild reads them from
    the database) and finds the host pair among them as ``host_pair_of`` does (S3.9, S14.4):
    an approved request, else the first pair marked non-rateable, none when not in the
    session."""
    rng = random.Random(seed)
    members = [str(1000 + i) for i in range(40)]
    seen = set()
    for index in range(300):
        session = _session(rng, index, dt.date(2025, 5, 1), members)
        requested = rng.choice([None, None, "1", "2", "99"])
        expected = host_pair_of(session, requested)[0]
        assert _host_of(pair_rows(session), requested) == expected
        seen.add((requested is None, expected is None))
    assert seen == {(True, True), (True, False), (False, True), (False, False)}
