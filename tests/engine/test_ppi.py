"""The PPI engine (SPEC S10, seed 002): formulas, worked examples, the fold."""

from __future__ import annotations

import datetime as dt
import importlib
import inspect
import pkgutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grading.engine import ppi as ppi_module
from grading.engine.ppi import (
    BoardTerm,
    PPIPlayer,
    PPIReason,
    PPIState,
    Suit,
    month_index,
    ppi_apply,
    ppi_apply_event,
    ppi_boards,
    ppi_list,
    ppi_par,
    ppi_replay,
    ppi_session_level,
    ppi_standing,
    ppi_suit,
    ppi_update,
    ppi_weight,
)
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

DAY = dt.date(2026, 11, 16)


def pair(pid, a, b, score=None, boards=None, direction=None, rateable=True):
    return PairEntry(pid, (Player(a, rateable=rateable), Player(b)), score, direction, boards)


def session(
    pairs,
    travellers=(),
    day=DAY,
    scoring=Scoring.MP,
    movement=Movement.ONE_WINNER,
    event="e",
    number=1,
):
    key = SessionKey("club", event, number, day)
    return SessionResult(key, event, scoring, movement, tuple(pairs), travellers=tuple(travellers))


def seasoned(ppis, boards=1000, w=400, day=DAY):
    """A state where each member has ``boards`` boards since the start and ``w`` in the 3
    calendar months before ``day``'s month (so m = 600 when a >= 46)."""
    month = month_index(day) - 1
    return PPIState({n: PPIPlayer(n, v, boards, ((month, w),)) for n, v in ppis.items()}, seq=0)


# ------------------------------------------------------------------ formulas (S10, seed 002)


def test_update_is_the_seed_formula():
    """S10: A = a + (p - ((a + b - c - d)/2 + 50)) / m."""
    assert ppi_update(47, 48.5, 49, 49, 44, 600) == pytest.approx(47 + (44 - 48.75) / 600)
    assert ppi_par(47, 48.5, 49, 49) == 48.75


def test_twenty_board_example_with_the_halving_of_s10():
    """Seed 002 "Examples": a = 47, partners Diamonds (48.5), opponents averaging 49, m = 600,
    44 % over 20 boards. S10: with the formula's /2 the change is -0.158 and the percentage
    needed 48.75 (the seed's own arithmetic drops the /2 and prints -0.117 and 47.5)."""
    c = (3 * 44 + 4 * 48.5 + 2 * 53 + 58) / 10
    assert c == 49
    assert ppi_weight(1000, 400, 47) == 600
    after = ppi_session_level(47, 1000, 400, 20, 44, 48.5, c)
    assert after - 47 == pytest.approx(-0.158333333, abs=1e-9)
    assert round(after - 47, 3) == -0.158
    assert ppi_par(47, 48.5, c, c) == 48.75
    assert round(after - 47, 3) != -0.117  # the seed's printed figure is not what we compute


@pytest.mark.parametrize(
    ("k", "w", "m", "gain"),
    [(1000, 400, 600, 50 / 600), (400, 100, 300, 50 / 300), (100, 0, 100, 0.5)],
)
def test_one_board_at_100_percent_among_equals(k, w, m, gain):
    """Seed 002: one board at 100 % at a table of equal PPIs: +0.083 (m 600, frequent), +0.167
    (m 300, infrequent, > 300 boards), +0.50 (m 100, a newcomer with 100 boards)."""
    assert ppi_weight(k, w, 50) == m
    assert ppi_update(50, 50, 50, 50, 100, m) - 50 == pytest.approx(gain)


@pytest.mark.parametrize(
    ("k", "w", "a", "m"),
    [
        (0, 0, 50, 30),
        (29, 0, 50, 30),
        (30, 0, 50, 30),
        (31, 0, 50, 31),
        (300, 0, 50, 300),
        (300, 1000, 50, 300),
        (301, 0, 50, 300),
        (301, 149, 50, 300),
        (301, 150, 50, 300),
        (301, 151, 50, 302),
        (301, 299, 50, 598),
        (301, 300, 50, 600),
        (301, 301, 50, 600),
        (5000, 10_000, 50, 600),
        (29, 0, 45.99, 15),
        (29, 0, 46, 30),
        (200, 0, 45.99, 100),
        (301, 301, 45.99, 300),
        (301, 301, 46, 600),
        (301, 100, 45.99, 150),
    ],
)
def test_weight_table_boundaries(k, w, a, m):
    """S10 / seed 002 "The Formula": the m table at k = 29/30/300/301, w = 149/150/300/301,
    and the halving below a = 46 (45.99 halves, 46 does not)."""
    assert ppi_weight(k, w, a) == m


@pytest.mark.parametrize(
    ("value", "suit"),
    [
        (60, Suit.SPADES),
        (55.0001, Suit.SPADES),
        (55, Suit.HEARTS),
        (51, Suit.HEARTS),
        (50.99, Suit.DIAMONDS),
        (46, Suit.DIAMONDS),
        (45.99, Suit.CLUBS),
        (30, Suit.CLUBS),
    ],
)
def test_suit_boundaries(value, suit):
    """S10 symbols: Spades > 55, Hearts 51-55, Diamonds 46-51, Clubs < 46 (seed 002: a PPI
    shown as 51.0 but below 51 is still a Diamond, so 51 itself is a Heart)."""
    assert ppi_suit(value) is suit


# ------------------------------------------------------------------ one player over an event


def test_newcomer_example():
    """Seed 002: a newcomer at a table of 50s scoring 40 % over 12 boards goes from 50 to
    about 46 (m = 30 for every board, k < 30)."""
    assert ppi_session_level(50, 0, 0, 12, 40, 50, 50) == pytest.approx(46)
    state = ppi_apply(
        PPIState(),
        session([pair("1", "new", "p", 40, 12), pair("2", "x", "y", 60, 12)]),
    ).state
    assert state.players["new"].ppi == pytest.approx(46)
    assert state.players["new"].boards == 12
    assert state.players["x"].ppi == pytest.approx(54)


def test_k_grows_board_by_board_within_an_event():
    """S10: k = boards before this board, growing board by board: from k = 25, five boards at
    m = 30 (k 25-29) then m = 30, 31, ... (k >= 30)."""
    terms = [BoardTerm(50, 50, 50, 60)] * 10
    expected = 50 + sum(10 / ppi_weight(25 + i, 0, 50) for i in range(10))
    assert ppi_boards(50, 25, 0, terms) == pytest.approx(expected)
    assert [ppi_weight(25 + i, 0, 50) for i in range(10)] == [30] * 6 + [31, 32, 33, 34]


def test_halving_uses_the_ppi_at_the_start_of_the_event():
    """S10: every board uses the PPIs from the start of the event, so a player starting at 46
    keeps m unhalved for the whole event even when the running value falls below 46."""
    terms = [BoardTerm(50, 50, 50, 0)] * 12
    after = ppi_boards(46, 0, 0, terms)
    assert after == pytest.approx(46 + 12 * (0 - 48) / 30)
    assert ppi_boards(45.99, 0, 0, terms[:1]) == pytest.approx(45.99 + (0 - 47.995) / 15)


@settings(max_examples=200, deadline=None)
@given(
    a=st.floats(30, 70),
    b=st.floats(30, 70),
    opp=st.floats(30, 70),
    p=st.floats(0, 100),
    k=st.integers(0, 2000),
    w=st.integers(0, 600),
    n=st.integers(1, 40),
)
def test_board_by_board_equals_session_level_with_constant_boards(a, b, opp, p, k, w, n):
    """S10: when every board's percentage equals the session percentage (and the opponents are
    the same), board by board gives exactly what session level gives, whatever k, w and a."""
    boards = ppi_boards(a, k, w, [BoardTerm(b, opp, opp, p)] * n)
    assert boards == ppi_session_level(a, k, w, n, p, b, opp)


@settings(max_examples=200, deadline=None)
@given(
    a=st.floats(30, 70),
    b=st.floats(30, 70),
    p=st.floats(0, 100),
    w=st.integers(0, 600),
    opponents=st.lists(st.tuples(st.floats(30, 70), st.floats(30, 70)), min_size=1, max_size=30),
)
def test_board_by_board_equals_session_level_against_the_opponents_average(a, b, p, w, opponents):
    """S10: with every board at the session percentage and m constant (k > 300), board by
    board equals session level against the average of the opponents met."""
    terms = [BoardTerm(b, c, d, p) for c, d in opponents]
    average = sum(c + d for c, d in opponents) / (2 * len(opponents))
    boards = ppi_boards(a, 301, w, terms)
    session_level = ppi_session_level(a, 301, w, len(terms), p, b, average)
    assert boards == pytest.approx(session_level, abs=1e-9)


# ------------------------------------------------------------------ sessions with travellers


def mitchell(tables, boards_per_round=2, score=420):
    """A complete Mitchell-like movement with every result equal (every pair 50 % on every
    board): round r, table t: NS pair Nt against EW pair E((t + r) mod T), board set r at
    every table (each NS pair meets each EW pair once; each board is played once by each)."""
    lines = []
    for r in range(tables):
        for t in range(tables):
            board_set = r
            for j in range(boards_per_round):
                board = board_set * boards_per_round + j + 1
                lines.append(TravellerLine(board, f"N{t}", f"E{(t + r) % tables}", score))
    return lines


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_travellers_equal_session_level_when_every_board_is_at_the_session_percentage(data):
    """S10: a complete Mitchell where every board is 50 % for every pair, seasoned players
    (m constant): board by board from the travellers equals the same session without
    travellers (n boards at 50 % against the average of the other direction)."""
    tables = data.draw(st.integers(2, 5))
    names = [f"{side}{t}{seat}" for side in "NE" for t in range(tables) for seat in "ab"]
    values = data.draw(st.lists(st.floats(40, 60), min_size=len(names), max_size=len(names)))
    state = seasoned(dict(zip(names, values, strict=True)))
    entries = [
        pair(
            f"{side}{t}",
            f"{side}{t}a",
            f"{side}{t}b",
            50.0,
            2 * tables,
            Direction.NS if side == "N" else Direction.EW,
        )
        for side in "NE"
        for t in range(tables)
    ]
    with_travellers = session(entries, mitchell(tables), movement=Movement.TWO_WINNER)
    without = session(entries, movement=Movement.TWO_WINNER)
    one = ppi_apply(state, with_travellers)
    two = ppi_apply(state, without)
    assert {c.mode for c in one.result.changes} == {PPIReason.BOARD_BY_BOARD}
    assert {c.mode for c in two.result.changes} == {PPIReason.SESSION_LEVEL}
    for number in names:
        assert one.state.players[number].ppi == pytest.approx(
            two.state.players[number].ppi, abs=1e-9
        )
        assert one.state.players[number].boards == two.state.players[number].boards


def test_board_by_board_against_a_hand_computation():
    """S10: two tables, two rounds of one board; percentages from the travellers (S2.2)."""
    lines = [
        TravellerLine(1, "1", "2", 420),
        TravellerLine(1, "3", "4", 400),
        TravellerLine(2, "1", "3", 100),
        TravellerLine(2, "2", "4", 100),
    ]
    entries = [pair(str(i), f"p{i}a", f"p{i}b", None, 2) for i in range(1, 5)]
    ppis = {"p1a": 52, "p1b": 48, "p2a": 50, "p2b": 50, "p3a": 46, "p3b": 44, "p4a": 55, "p4b": 57}
    state = seasoned(ppis)
    step = ppi_apply(state, session(entries, lines))
    # p1a: board 1 NS v pair 2 at 100 %; board 2 NS v pair 3 at 50 %.
    expected = 52 + (100 - ppi_par(52, 48, 50, 50)) / 600 + (50 - ppi_par(52, 48, 46, 44)) / 600
    assert step.state.players["p1a"].ppi == pytest.approx(expected)
    # p3b at 44 has m halved: board 1 NS v pair 4 at 0 %; board 2 EW v pair 1 at 50 %.
    expected = 44 + (0 - ppi_par(44, 46, 55, 57)) / 300 + (50 - ppi_par(44, 46, 52, 48)) / 300
    assert step.state.players["p3b"].ppi == pytest.approx(expected)
    assert step.state.players["p3b"].boards == 1002
    assert step.result.reason == ""


def test_unknown_player_at_the_table_counts_for_no_one_at_it():
    """S10: a board with an unknown player at the table counts for no one there; the other
    table's board counts as usual."""
    lines = [
        TravellerLine(1, "1", "2", 420),
        TravellerLine(1, "3", "4", 400),
        TravellerLine(2, "1", "3", 100),
        TravellerLine(2, "2", "4", 50),
    ]
    entries = [
        pair("1", "a1", "b1", None, 2),
        pair("2", "a2", None, None, 2),  # one unknown player
        pair("3", "a3", "b3", None, 2),
        pair("4", "a4", "b4", None, 2),
    ]
    step = ppi_apply(PPIState(), session(entries, lines))
    boards = {n: p.boards for n, p in step.state.players.items()}
    assert boards == {"a1": 1, "b1": 1, "a3": 2, "b3": 2, "a4": 1, "b4": 1}
    assert "a2" not in step.state.players


def test_unknown_opponents_without_travellers_scale_the_boards():
    """S10: without travellers the boards against pairs with an unknown player count for no
    one: a pair with 1 of 3 opponent pairs unknown counts 2/3 of its 24 boards; the unknown
    pair's known member counts none."""
    entries = [
        pair("1", "a1", "b1", 55),
        pair("2", "a2", "b2", 50),
        pair("3", "a3", "b3", 48),
        pair("4", "a4", None, 47),
    ]
    step = ppi_apply(PPIState(), session(entries))
    assert step.state.players["a1"].boards == 16
    assert "a4" not in step.state.players


def test_host_pair_is_not_rated_but_counts_as_opponents():
    """S14.4 applied to S10: the host pair's players keep their PPI and k; the others are
    rated against the host's PPIs."""
    entries = [
        pair("1", "h1", "h2", 40, 24, rateable=False),
        pair("2", "a", "b", 60, 24),
    ]
    state = seasoned({"h1": 60, "h2": 60, "a": 50, "b": 50})
    step = ppi_apply(state, session(entries))
    assert step.state.players["h1"] == state.players["h1"]
    expected = ppi_session_level(50, 1000, 400, 24, 60, 50, 60)
    assert step.state.players["a"].ppi == pytest.approx(expected)


@pytest.mark.parametrize("scoring", [Scoring.BUTLER, Scoring.CROSS_IMP, Scoring.SWISS_PAIRS_MP])
def test_only_match_pointed_pairs_events_count(scoring):
    """S10: match-point events only; others change nothing (the step still takes a seq)."""
    state = seasoned({"a": 50, "b": 50, "c": 50, "d": 50})
    s = session([pair("1", "a", "b", 10), pair("2", "c", "d", -10)], scoring=scoring)
    step = ppi_apply(state, s)
    assert step.state.players == state.players
    assert step.result.reason == PPIReason.NOT_MP
    assert step.state.seq == 1


def test_within_one_event_every_board_uses_the_start_of_event_ppis():
    """S10: two sessions processed as one event use the PPIs from the event's start; as two
    events the second uses the values the first wrote."""
    first = session([pair("1", "a", "b", 70, 10), pair("2", "c", "d", 30, 10)], number=1)
    second = session([pair("1", "a", "b", 50, 10), pair("2", "c", "d", 50, 10)], number=2)
    event = ppi_apply_event(PPIState(), [first, second]).state
    # In one event, session 2 sees everyone at 50: a pair at 50 % against 50s changes nothing.
    assert event.players["a"].ppi == pytest.approx(ppi_session_level(50, 0, 0, 10, 70, 50, 50))
    assert event.players["a"].boards == 20
    separate = ppi_replay([first, second])
    assert separate.players["a"].ppi != pytest.approx(event.players["a"].ppi)
    assert separate.players["a"].boards == 20


def test_w_is_recomputed_at_each_month_start():
    """S10: w = qualifying boards in the previous 3 calendar months, fixed within a month."""
    jan = dt.date(2026, 1, 20)
    state = ppi_apply(
        PPIState(),
        session([pair("1", "a", "b", 50, 200), pair("2", "c", "d", 50, 200)], day=jan),
    ).state
    player = state.players["a"]
    assert player.w_for(dt.date(2026, 1, 31)) == 0  # the current month does not count
    assert player.w_for(dt.date(2026, 2, 1)) == 200
    assert player.w_for(dt.date(2026, 4, 30)) == 200
    assert player.w_for(dt.date(2026, 5, 1)) == 0


def test_shown_after_50_boards_and_active_over_the_last_3_calendar_months():
    """S10 / seed 002: a PPI is shown after 50 qualifying boards; active = at least 50 boards
    in the last 3 calendar months (the current month and the two before)."""
    day = dt.date(2026, 3, 10)
    state = ppi_apply(
        PPIState(),
        session([pair("1", "a", "b", 50, 49), pair("2", "c", "d", 50, 50)], day=day),
    ).state
    a, c = ppi_standing(state, "a", day), ppi_standing(state, "c", day)
    assert (a.shown, a.active) == (False, False)
    assert (c.shown, c.active) == (True, True)
    assert ppi_standing(state, "c", dt.date(2026, 5, 31)).active
    assert not ppi_standing(state, "c", dt.date(2026, 6, 1)).active
    assert [s.number for s in ppi_list(state, day)] == ["c", "d"]
    newcomer = ppi_standing(state, "nobody", day)
    assert (newcomer.ppi, newcomer.boards, newcomer.suit) == (50, 0, Suit.DIAMONDS)


def test_history_records_each_value_with_its_date():
    """S10: a history of PPI values, one per event the member was rated in."""
    s1 = session(
        [pair("1", "a", "b", 60, 12), pair("2", "c", "d", 40, 12)], day=dt.date(2026, 1, 5)
    )
    s2 = session(
        [pair("1", "a", "c", 45, 12), pair("2", "b", "d", 55, 12)], day=dt.date(2026, 2, 9)
    )
    state = ppi_replay([s1, s2])
    history = state.players["a"].history
    assert [(h.seq, h.date, h.boards, h.total_boards) for h in history] == [
        (1, dt.date(2026, 1, 5), 12, 12),
        (2, dt.date(2026, 2, 9), 12, 24),
    ]
    assert history[-1].ppi == state.players["a"].ppi


def test_replay_is_deterministic_and_pure():
    """S5.4's property for PPI: the same sessions in the same order give the same state, and a
    step never changes the state it was given."""
    sessions = [
        session(
            [pair("1", "a", "b", 60 - i, 12), pair("2", "c", "d", 40 + i, 12)],
            day=dt.date(2026, 1 + i % 12, 1 + i),
        )
        for i in range(20)
    ]
    one, two = ppi_replay(sessions), ppi_replay(list(sessions))
    assert one == two
    before = ppi_replay(sessions[:5])
    snapshot = dict(before.players)
    ppi_apply(before, sessions[5])
    assert dict(before.players) == snapshot


def test_engine_is_pure():
    """S10 engine: standard library and other pure engine modules only; no clock."""
    names = [f"{ppi_module.__name__}.{m.name}" for m in pkgutil.iter_modules(ppi_module.__path__)]
    assert len(names) >= 3  # a package of modules, each checked
    source = "".join(
        inspect.getsource(importlib.import_module(name)) for name in [ppi_module.__name__, *names]
    )
    for forbidden in ("django", "celery", "datetime.now", "date.today"):
        assert forbidden not in source
