"""The fast paths equal the reference path (SPEC S4, S5.2-S5.4, S6, S14.5-S14.11).

``window`` and ``incremental`` (incremental windows behind ``ReplayState(path="fast")``) and ``kernel`` (the
lean national-scale fold) are compared with the reference transcription of S4 on random
ledgers built to reach every corner of the window logic: few players with long histories (the
2000-board cut, blocks cut exactly at 2000), big same-day blocks, gaps of more than 3 years
(careers, restarts, "300 once", out-of-date), late uploads far back (across the cut and the
3-year edge), corrections and withdrawals, hosts, visitors, regular partners, green-pointed
events, Butler, cross-IMP and aggregate sessions. Tolerance 1e-9 (S14.11).
"""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grading.engine.ngs import (
    NGS_2018,
    ProcessOp,
    WithdrawOp,
    compare_steps,
    replay,
    why_not_graded,
)
from grading.engine.ngs.incremental import IncrementalHistory
from grading.engine.ngs.kernel import compare_kernel_steps, kernel_replay
from grading.engine.ngs.params import NGS_DEFAULT
from grading.engine.ngs.types import HistoryEntry
from grading.engine.ngs.window import WindowState
from grading.engine.ngs.windowrules import STATUS_CODES, rules_for
from grading.lab.bench import replay_benchmark
from grading.lab.synthetic import synthetic_ledger
from tests.engine.ledgers import FIELDS, LONG, ledgers, random_ledger


def _check_final_grades(reference, fast) -> None:
    latest = reference.latest_date()
    assert latest is not None
    for number in reference.players:
        for as_of in (latest, latest + dt.timedelta(days=500), latest - dt.timedelta(days=400)):
            a = reference.player_grade(number, as_of)
            b = fast.player_grade(number, as_of)
            assert a is not None and b is not None
            assert (a.status, a.boards_in_window, a.padding_boards, a.sessions_in_window) == (
                b.status,
                b.boards_in_window,
                b.padding_boards,
                b.sessions_in_window,
            )
            assert a.regular_partner == b.regular_partner
            assert a.grade == pytest.approx(b.grade, abs=1e-9)


@settings(max_examples=12, deadline=None)
@given(ledgers(LONG, operations=140))
def test_fast_path_equals_reference_on_long_histories(ledger):
    """ReplayState(path="fast") and the kernel give the reference's every step (S5.4)."""
    reference = replay(ledger, path="reference")
    fast = replay(ledger, path="fast")
    assert compare_steps(reference.steps, fast.steps) == []
    kernel = kernel_replay(ledger, record=True)
    assert compare_kernel_steps(reference.steps, kernel.steps) == []
    _check_final_grades(reference, fast)


@settings(max_examples=15, deadline=None)
@given(ledgers(FIELDS, operations=60, pool=10))
def test_kernel_equals_reference_on_random_ledgers(ledger):
    reference = replay(ledger, path="reference")
    assert compare_kernel_steps(reference.steps, kernel_replay(ledger, record=True).steps) == []


@settings(max_examples=8, deadline=None)
@given(ledgers(LONG, operations=100))
def test_kernel_equals_reference_under_2018_rules(ledger):
    """S9.1: the new-partner rule needs each player's graded boards and status."""
    reference = replay(ledger, NGS_2018, path="reference")
    kernel = kernel_replay(ledger, NGS_2018, record=True)
    assert compare_kernel_steps(reference.steps, kernel.steps) == []
    fast = replay(ledger, NGS_2018, path="fast")
    assert compare_steps(reference.steps, fast.steps) == []


def test_synthetic_ledger_is_deterministic_and_replays_equal():
    """The benchmark's ledger: same seed, same ledger; kernel and fast equal the reference."""
    ledger = synthetic_ledger(300, 160, seed=7)
    assert ledger == synthetic_ledger(300, 160, seed=7)
    kinds = {type(op) for op in ledger}
    assert kinds == {ProcessOp, WithdrawOp}
    reference = replay(ledger[:70])
    assert compare_steps(reference.steps, replay(ledger[:70], path="fast").steps) == []
    kernel = kernel_replay(ledger[:70], record=True)
    assert compare_kernel_steps(reference.steps, kernel.steps) == []


def test_replay_benchmark_reports_its_figures():
    """The figures ``manage.py bench`` reads (no timing is asserted)."""
    ledger = synthetic_ledger(200, 40, seed=3)
    kernel = replay_benchmark(ledger, "kernel")
    fast = replay_benchmark(ledger, "fast")
    for result in (kernel, fast):
        assert set(result) >= {
            "path",
            "player_sessions",
            "seconds",
            "player_sessions_per_s",
            "peak_rss_mb",
        }
    assert kernel["player_sessions"] == fast["player_sessions"] > 0


# ------------------------------------------------------------------ the window state itself


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 2000),  # day offset
            st.sampled_from([12, 24, 27, 100, 500, 1000, 1976]),
            st.floats(20, 80),
            st.sampled_from([1.0, 2.0]),
            st.sampled_from([None, "p", "q"]),
            st.booleans(),  # withdrawn afterwards
        ),
        min_size=1,
        max_size=40,
    ),
    st.integers(0, 1500),
)
def test_incremental_history_equals_reference_current_grade(rows, later):
    """Any order of adds (late ones included), removals and query dates (S4, S14.7, S14.8)."""
    from grading.engine.ngs.ledger import ReferenceHistory

    fast = IncrementalHistory(42.0)
    ref = ReferenceHistory(42.0)
    day0 = dt.date(2016, 2, 29)
    for seq, (off, boards, grade, factor, partner, _) in enumerate(rows, 1):
        e = HistoryEntry(seq, day0 + dt.timedelta(days=off), boards, grade, factor, partner)
        fast.add(e)
        ref.add(e)
        last = max(x.date for x in ref.entries)
        for as_of in (last, last + dt.timedelta(days=later)):
            a = ref.grade(as_of, NGS_DEFAULT)
            b = fast.grade(as_of, NGS_DEFAULT)
            assert (a.status, a.boards_in_window, a.padding_boards, a.sessions_in_window) == (
                b.status,
                b.boards_in_window,
                b.padding_boards,
                b.sessions_in_window,
            )
            assert a.regular_partner == b.regular_partner
            assert a.grade == pytest.approx(b.grade, abs=1e-9)
    for seq, row in enumerate(rows, 1):
        if row[5]:
            fast.remove(seq)
            ref.remove(seq)
            if ref.entries:
                last = max(x.date for x in ref.entries)
                a = ref.grade(last, NGS_DEFAULT)
                b = fast.grade(last, NGS_DEFAULT)
                assert (a.status, a.boards_in_window) == (b.status, b.boards_in_window)
                assert a.grade == pytest.approx(b.grade, abs=1e-9)
    assert fast.history() == ref.history().__class__(
        42.0, tuple(sorted(ref.entries, key=lambda e: (e.date, e.seq)))
    )


def test_window_state_codes_and_restart():
    """No session in the last 3 years: the restart value; out of date once 300 was reached."""
    ws = WindowState(rules_for(NGS_DEFAULT), 42.0)
    d = dt.date(2020, 1, 6).toordinal()
    ws.add(1, d, 300, 55.0, 1.0)
    grade, code, boards, padding = ws.current(d)
    assert STATUS_CODES[code].value == "E" and boards == 300 and padding == 0
    assert grade == pytest.approx(55.0)
    grade, code, boards, _ = ws.current(d + 3 * 366)
    assert (grade, STATUS_CODES[code].value, boards) == (50.0, "O", 0)


@pytest.mark.parametrize("late", [False, True])
def test_window_of_exactly_2000_boards_cuts_nothing(late):
    """S4: when the recent sessions hold exactly 2000 boards, older ones get no weight and do
    not count as sessions in the window (nor toward a regular partner, S14.5)."""
    from grading.engine.ngs.ledger import ReferenceHistory

    day = dt.date(2021, 5, 3)
    rows = [(1, 0, 500, 40.0, "p"), (2, 1, 1976, 60.0, "q"), (3, 2, 24, 50.0, "q")]
    if late:
        rows = [rows[1], rows[2], rows[0]]
    fast, ref = IncrementalHistory(42.0), ReferenceHistory(42.0)
    for seq, off, boards, grade, partner in rows:
        e = HistoryEntry(seq, day + dt.timedelta(days=off), boards, grade, 1.0, partner)
        fast.add(e)
        ref.add(e)
        as_of = day + dt.timedelta(days=2)
        a, b = ref.grade(as_of, NGS_DEFAULT), fast.grade(as_of, NGS_DEFAULT)
        assert (a.sessions_in_window, a.regular_partner) == (
            b.sessions_in_window,
            b.regular_partner,
        )
        assert a.grade == pytest.approx(b.grade, abs=1e-9)
    assert b.sessions_in_window == 2 and b.regular_partner == "q"


def test_synthetic_ledgers_only_withdraw_live_versions():
    """A version that is not graded never becomes live, so it is never withdrawn (S14.9);
    folding the whole generated ledger must raise no LedgerError."""
    from grading.engine.ngs.kernel import kernel_replay

    ledger = synthetic_ledger(300, 1500, seed=7)
    withdrawn = {op.version for op in ledger if isinstance(op, WithdrawOp)}
    processed = {op.version: op.session for op in ledger if isinstance(op, ProcessOp)}
    assert withdrawn and all(not why_not_graded(processed[v]) for v in withdrawn)
    kernel_replay(ledger)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_fast_histories_answer_last_date_and_count_as_the_reference(seed):
    """The queries the Django layer stores (last session date, sessions together) without
    rebuilding a history: equal on both paths after late uploads and withdrawals."""
    ledger = random_ledger(seed, FIELDS, operations=60, pool=10)
    fast, reference = replay(ledger, path="fast"), replay(ledger, path="reference")
    for subjects in ("players", "partnerships"):
        mine, theirs = getattr(fast, subjects), getattr(reference, subjects)
        assert mine.keys() == theirs.keys()
        for key, history in mine.items():
            entries = theirs[key].history().entries
            assert history.last_date() == max((e.date for e in entries), default=None)
            assert history.session_count() == len(entries) == theirs[key].session_count()
