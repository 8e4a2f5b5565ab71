"""The bulk Brambledown replay (grading.engine.brambledown.bulk, issue 18) equals
brambledown_replay (S11): every quarter's regrades, A, B and pairs lists and ratings, the last
closed quarter's state, the open quarter's ratings and the final state."""

from __future__ import annotations

import datetime as dt
import random

import pytest

from grading.engine.brambledown import Quarter, brambledown_replay
from grading.engine.brambledown.bulk import brambledown_replay_bulk
from grading.engine.types import Movement, PairEntry, Player, Scoring, SessionKey, SessionResult


def _sessions(rng: random.Random, count: int) -> list[SessionResult]:
    members = [str(5000 + i) for i in range(45)]
    day = dt.date(2024, 1, 2)
    sessions = []
    for index in range(count):
        day += dt.timedelta(days=rng.choice([1, 3, 7, 7, 14, 40]))
        size = rng.randint(2, 9)
        chosen = rng.sample(members, 2 * size)
        if rng.random() < 0.05:
            chosen[-1] = chosen[0]  # a member named twice in one session
        pairs = []
        for i in range(size):
            a, b = chosen[2 * i], chosen[2 * i + 1]
            if rng.random() < 0.05:
                b = None  # an unknown player
            score = None if rng.random() < 0.03 else round(rng.uniform(30, 70), 2)
            rateable = rng.random() > 0.04
            pairs.append(PairEntry(str(i + 1), (Player(a, rateable=rateable), Player(b)), score))
        number = rng.choice([1, 1, 1, 2])
        key = SessionKey("club", f"e{index % 7}", number, day)
        sessions.append(SessionResult(key, "", Scoring.MP, Movement.ONE_WINNER, tuple(pairs)))
    rng.shuffle(sessions)  # the replay orders them by date
    return sessions


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_bulk_replay_equals_the_replay(seed):
    rng = random.Random(seed)
    sessions = _sessions(rng, 180)
    last = max(s.date for s in sessions)
    through = Quarter.of(last).previous()
    hosts = {
        (s.key.club, s.key.event_id, s.key.session, s.key.date): "1"
        for s in rng.sample(sessions, 10)
    }
    expected = brambledown_replay(sessions, through, host_pairs=hosts)
    got = brambledown_replay_bulk(sessions, through, host_pairs=hosts)
    assert len(got.quarters) == len(expected.quarters) > 5
    for a, b in zip(got.quarters, expected.quarters, strict=True):
        assert (a.quarter, a.changes, a.a_list, a.b_list, a.pairs_list, a.sessions) == (
            b.quarter,
            b.changes,
            b.a_list,
            b.b_list,
            b.pairs_list,
            b.sessions,
        )
    assert any(q.a_list for q in expected.quarters) and any(q.pairs_list for q in expected.quarters)
    assert got.quarters[-1].state == expected.quarters[-1].state
    assert list(got.quarters[-1].state.players) == list(expected.quarters[-1].state.players)
    assert got.open_sessions == expected.open_sessions and got.open_sessions
    assert got.state == expected.state
    assert list(got.state.pairs) == list(expected.state.pairs)


def test_no_sessions_and_sessions_after_the_open_quarter():
    empty = brambledown_replay_bulk([], "2026Q1")
    assert empty == brambledown_replay([], "2026Q1")
    rng = random.Random(9)
    sessions = _sessions(rng, 40)
    with pytest.raises(ValueError, match="after the open quarter"):
        brambledown_replay_bulk(sessions, Quarter.of(min(s.date for s in sessions)))


def test_every_session_in_the_open_quarter():
    rng = random.Random(5)
    sessions = [s for s in _sessions(rng, 60) if Quarter.of(s.date) == Quarter(2024, 1)]
    assert sessions
    through = Quarter(2023, 4)
    assert brambledown_replay_bulk(sessions, through) == brambledown_replay(sessions, through)
