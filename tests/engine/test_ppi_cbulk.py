"""The compiled PPI fold (grading.engine.ppi.cbulk, csrc/ppi_fold.c) equals PPIBulkFold (S10).

Random logs (the generator of tests/engine/test_ppi_bulk.py: one- and two-winner movements,
unknown players, host pairs requested and marked, boards not reported, Butler sessions PPI does
not rate, travellers rated board by board on the Python side in the same log) folded by both give
the same points and the same rated members' figures. The figures are BIT-EQUAL: compared with
``==`` (stronger than S14.11's 1e-9), as the C code keeps Python's order of operations. Also: a
member twice in one session, the rows given as a block of columns (the rebuild's path), ids
given in number order (the points in PPIBulkFold's order) or as numbers come, and the
fallback when the library is missing. The library is built here when a C compiler exists;
without one these tests skip, except in CI (``REQUIRE_SERVICES=1``), where they fail.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import os
import random
import shutil
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grading.engine.ppi import cbulk
from grading.engine.ppi.bulk import PPIBulkFold, pair_rows
from grading.engine.ppi.cbulk import (
    DIRECTION_CODES,
    CBulkUnavailable,
    CPPIFold,
    RowBlock,
    build_cbulk,
    cbulk_available,
    ppi_bulk_fold,
)
from grading.engine.ppi.state import month_index
from grading.engine.types import Movement, Player, Scoring, SessionResult
from tests.engine.test_ppi_bulk import _session

REQUIRED = os.environ.get("REQUIRE_SERVICES", "") == "1"


@pytest.fixture(scope="module", autouse=True)
def ppi_fold_built() -> None:
    if not cbulk_available() and (shutil.which("cc") or shutil.which("gcc")):
        build_cbulk(quiet=False)
    if cbulk_available():
        return
    why = "the compiled PPI fold could not be built (python -m grading.engine.ppi.cbulk --build)"
    if REQUIRED:
        pytest.fail(why + "; CI requires it")
    pytest.skip(why)


Log = list[tuple[int, SessionResult, str | None]]


def _log(rng: random.Random, sessions: int, members: list[str]) -> Log:
    """A log of ``sessions`` events (the numbers may jump, as after withdrawals)."""
    day, seq, log = dt.date(2024, 1, 3), 0, []
    for index in range(sessions):
        day += dt.timedelta(days=rng.choice([0, 1, 2, 5]))
        seq += rng.choice([1, 1, 1, 4])
        host = rng.choice([None, None, None, "1", "99"])
        log.append((seq, _session(rng, index, day, members), host))
    return log


def _fold_both(log: Log, numbers: list[str], take_every: int = 50, chunk: int = cbulk.CHUNK):
    """Both folds' points (as PPIBulkFold's tuples) and rated members."""
    reference, compiled = PPIBulkFold(keep_history=False), CPPIFold(numbers, chunk=chunk)
    expected, got = [], []
    for i, (seq, session, host) in enumerate(log):
        reference.apply(seq, session, host)
        compiled.apply(seq, session, host)
        if i % take_every == 0:
            expected += reference.points_take()
            got += _as_tuples(compiled)
    expected += reference.points_take()
    got += _as_tuples(compiled)
    assert len(compiled) == len(reference)
    return expected, got, list(reference.rated()), list(compiled.rated())


def _as_tuples(fold: CPPIFold) -> list[tuple]:
    points = fold.points_take()
    return [(fold.numbers[m], seq, ppi, n, k) for m, seq, ppi, n, k in zip(*points, strict=True)]


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_a_random_log_folds_to_the_same_points_and_members_bit_for_bit(seed):
    rng = random.Random(seed)
    members = [str(1000 + i) for i in range(40)]
    log = _log(rng, 400, members)

    expected, got, rated_py, rated_c = _fold_both(log, sorted(members))

    assert got == expected  # ids in number order: the same points in the same order
    assert rated_c == rated_py  # number, PPI, boards, month table, last (seq, date)
    assert len(expected) > 3000
    travellers = [s for _, s, _ in log if s.travellers and s.scoring.value == "MP"]
    assert len(travellers) > 20  # board by board, in the same log
    assert _w_bands(log, expected) == {"w < 150", "150 <= w <= 300", "w > 300"}  # m from w
    assert any(point[2] < 46 for point in expected)  # m halved
    assert any(len(player.months) > 12 for _, player, _ in rated_c)


def _w_bands(log: Log, points: list[tuple]) -> set[str]:
    """The bands of ``w`` the events past 300 boards met (S10: m = 300, 2w, 600)."""
    month_of = {seq: month_index(session.date) for seq, session, _ in log}
    months: dict[str, dict[int, int]] = {}
    bands = set()
    for number, seq, _, n, k in points:
        table, month = months.setdefault(number, {}), month_of[seq]
        w = sum(table.get(month - back, 0) for back in (1, 2, 3))
        if k - n > 300:
            bands.add("w < 150" if w < 150 else "150 <= w <= 300" if w <= 300 else "w > 300")
        table[month] = table.get(month, 0) + n
    return bands


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    size=st.integers(24, 70),
    sessions=st.integers(1, 160),
    chunk=st.sampled_from([1, 2, 7, 4096]),
)
def test_members_numbered_as_they_come_fold_alike(seed, size, sessions, chunk):
    """No numbers given up front: each number gets an id as it comes, so within an event the
    points follow the ids, not the numbers; as sets per event they are the same."""
    rng = random.Random(seed)
    members = [str(rng.randint(1, 10**6)) for _ in range(size)]
    members = sorted(set(members), key=members.index)
    if len(members) < 24:
        return
    log = _log(rng, sessions, members)

    expected, got, rated_py, rated_c = _fold_both(log, [], take_every=7, chunk=chunk)

    assert sorted(got, key=lambda p: (p[1], p[0])) == sorted(expected, key=lambda p: (p[1], p[0]))
    assert [p[1] for p in got] == [p[1] for p in expected]  # events in the log's order
    assert rated_c == rated_py


def _with_a_member_twice(session: SessionResult, rng: random.Random) -> SessionResult:
    """The session with its first pair's first member also in another pair (the later pair's
    figures are the member's) or partnered with themself; that pair sometimes also has the
    first pair's id (both are the host when "1" is)."""
    pairs = list(session.pairs)
    if len(pairs) < 3:
        return session
    twice = pairs[0].players[0]
    other = rng.randrange(1, len(pairs))
    if rng.random() < 0.5:
        players = (pairs[other].players[0], twice)
    else:
        players = (twice, twice)
    pair_id = "1" if rng.random() < 0.3 else pairs[other].pair_id  # (a host id given twice)
    pairs[other] = dataclasses.replace(pairs[other], players=players, pair_id=pair_id)
    return dataclasses.replace(session, pairs=tuple(pairs))


@pytest.mark.parametrize("seed", [7, 8])
def test_a_member_twice_in_one_session_folds_alike(seed):
    rng = random.Random(seed)
    members = [str(5000 + i) for i in range(36)]
    log = [(seq, _with_a_member_twice(s, rng), host) for seq, s, host in _log(rng, 250, members)]
    twice = [s for _, s, _ in log if len(_numbers(s)) < 2 * len(s.pairs)]
    assert len(twice) > 100

    expected, got, rated_py, rated_c = _fold_both(log, sorted(members))

    assert got == expected
    assert rated_c == rated_py


def _numbers(session: SessionResult) -> set:
    return {p.number for e in session.pairs for p in e.players if p.number is not None}


def test_rows_given_as_a_block_of_columns_fold_as_apply_rows():
    """The rebuild's path: a chunk's rows as one block of columns (member ids, not numbers),
    each session a span of it, its host decided from the request and the file's marks; amid
    them, sessions with travellers (board by board) and sessions given as rows."""
    rng = random.Random(11)
    members = [str(3000 + i) for i in range(40)]
    reference, compiled = PPIBulkFold(keep_history=False), CPPIFold(sorted(members))
    expected, got = [], []
    log = _log(rng, 700, members)
    hosts = 0
    for start in range(0, len(log), 97):  # a block per chunk of sessions
        part = [(seq, s, host, rng.random() < 0.1) for seq, s, host in log[start : start + 97]]
        spans = [s for _, s, _, as_rows in part if _rated_from_rows(s) and not as_rows]
        block = _block([row for session in spans for row in pair_rows(session)], compiled.ids)
        compiled.use_block(block)
        first = 0
        for seq, session, host, as_rows in part:
            reference.apply(seq, session, host)
            if not _rated_from_rows(session) or as_rows:
                compiled.apply(seq, session, host)
                continue
            two_winner = session.movement is Movement.TWO_WINNER
            rows = pair_rows(session)
            marked = [r[0] for r in rows if not r[6]]
            compiled.add_session(seq, session.date, two_winner, first, len(rows), host, marked)
            first += len(rows)
        hosts += sum(block.host)
        expected += reference.points_take()
        got += _as_tuples(compiled)

    assert got == expected
    assert list(compiled.rated()) == list(reference.rated())
    assert hosts > 50


def _rated_from_rows(session: SessionResult) -> bool:
    return not session.travellers and session.scoring is Scoring.MP


def _block(rows: list, ids: dict[str, int]) -> RowBlock:
    return RowBlock(
        array("i", (-1 if r[1] is None else ids[r[1]] for r in rows)),
        array("i", (-1 if r[2] is None else ids[r[2]] for r in rows)),
        array("d", (math.nan if r[3] is None else r[3] for r in rows)),
        array("i", (-1 if r[4] is None else r[4] for r in rows)),
        array("b", (DIRECTION_CODES[r[5]] for r in rows)),
        [r[0] for r in rows],
    )


def test_an_unknown_player_a_host_and_boards_not_reported_worked_by_hand():
    """One session worked through: the pair with an unknown player and the host pair (marked
    non-rateable) are not rated, the first is left out of the opponents, and boards not
    reported count DEFAULT_BOARDS scaled to the known opponents (S10)."""
    session = _session(random.Random(3), 0, dt.date(2025, 3, 4), [str(i) for i in range(40)])
    p = list(session.pairs)[:4]
    p[0] = dataclasses.replace(p[0], players=(Player(None), p[0].players[1]))
    p[1] = dataclasses.replace(
        p[1], players=(Player(p[1].players[0].number, rateable=False), p[1].players[1])
    )
    p[2] = dataclasses.replace(p[2], players=_known(p[2]), boards=None, score=60.0)
    p[3] = dataclasses.replace(p[3], players=_known(p[3]), boards=24, score=40.0)
    session = dataclasses.replace(
        session, pairs=tuple(p), travellers=(), movement=Movement.ONE_WINNER, scoring=Scoring.MP
    )
    fold = CPPIFold()

    fold.apply(1, session)

    rated = {number: player for number, player, _ in fold.rated()}
    winners, losers = (_numbers_of(pair) for pair in p[2:])
    assert set(rated) == winners | losers
    # 24 boards (not reported) and 24 reported, at 2 known opponents of 3 others:
    # floor(24 * 2 / 3 + 0.5) = 16
    assert {player.boards for player in rated.values()} == {16}
    assert all(rated[n].ppi > 50 for n in winners) and all(rated[n].ppi < 50 for n in losers)


def _known(pair) -> tuple[Player, Player]:
    return tuple(Player(p.number or "x" + pair.pair_id) for p in pair.players)


def _numbers_of(pair) -> set:
    return {player.number for player in pair.players}


def test_without_the_library_the_python_fold_gives_the_same(monkeypatch):
    rng = random.Random(21)
    members = [str(7000 + i) for i in range(30)]
    log = _log(rng, 150, members)
    compiled = ppi_bulk_fold(sorted(members))
    assert isinstance(compiled, CPPIFold)
    for seq, session, host in log:
        compiled.apply(seq, session, host)

    monkeypatch.setattr(cbulk, "load_library", lambda: None)

    assert not cbulk_available()
    with pytest.raises(CBulkUnavailable):
        CPPIFold()
    fallback = ppi_bulk_fold(sorted(members))
    assert isinstance(fallback, PPIBulkFold) and not fallback.keep_history
    for seq, session, host in log:
        fallback.apply(seq, session, host)
    assert list(fallback.rated()) == list(compiled.rated())


def test_rows_the_fold_cannot_read_are_refused_not_read_out_of_bounds():
    fold = CPPIFold(["1", "2", "3", "4"])
    rows = [("1", "1", "2", 55.0, 24, None, True), ("2", "3", "4", 45.0, 24, None, True)]
    block = _block(rows, fold.ids)
    fold.use_block(block)
    fold.add_session(1, dt.date(2025, 1, 6), False, 1, 2)  # rows 1..3 of a block of 2
    with pytest.raises(ValueError):
        fold.flush()

    bad = _block(rows, fold.ids)
    bad.direction[0] = 3
    fold = CPPIFold(["1", "2", "3", "4"])
    fold.use_block(bad)
    fold.add_session(1, dt.date(2025, 1, 6), False, 0, 2)
    with pytest.raises(ValueError):
        fold.flush()
