"""The Python writing fold (``grading.engine.ngs.foldpy``, issue 18): what it hands the writer
equals the reference path's steps converted as the store stores them (S3, S5.4, S14.11: 1e-9),
fed as operations or as columns; its end-of-fold tables equal the reference state's."""

from __future__ import annotations

import datetime as dt
import math

from hypothesis import given, settings

from grading.engine.ngs import NGS_2018, ProcessOp, ReplayState, replay
from grading.engine.ngs.foldout import REASONS, STATUSES
from grading.engine.ngs.foldpy import PythonFold
from grading.engine.ngs.params import NGS_DEFAULT
from tests.engine.foldouts import (
    by_columns,
    numbers_of,
    reference_versions,
    run,
    same_current,
    same_histories,
    same_partnerships,
    same_versions,
)
from tests.engine.ledgers import FIELDS, LONG, MIXED, ledgers, random_ledger


def _python(params, path="fast"):
    return lambda sink: PythonFold(params, sink=sink, path=path)


def _check_against_reference(ledger, params) -> None:
    expected = reference_versions(ledger, params)
    for columns in (False, True):
        got, current, pships, hist = run(_python(params), ledger, columns=columns)
        same_versions(expected, got)
    ref = run(_python(params, "reference"), ledger, columns=False)
    same_versions(expected, ref[0])
    same_current(ref[1], current)
    same_partnerships(ref[2], pships)
    same_histories(ref[3], hist)
    _check_tables(ledger, params, current, pships, hist)


def _check_tables(ledger, params, current, pships, hist) -> None:
    """The end tables, read straight from a reference ``ReplayState``."""
    state: ReplayState = replay(ledger, params, path="reference")
    numbers = numbers_of(ledger)
    ids = {n: i for i, n in enumerate(numbers)}
    day = state.latest_date() or dt.date.fromordinal(1)
    live = {n: h for n, h in state.players.items() if h.session_count()}
    assert list(current.member) == sorted(ids[n] for n in live)
    for j, i in enumerate(current.member):
        g = live[numbers[i]].grade(day, params)
        assert abs(g.grade - current.grade[j]) <= 1e-9
        assert STATUSES[current.status[j]] is g.status
        assert current.boards_in_window[j] == g.boards_in_window
    keys = [k for k, h in state.partnerships.items() if h.session_count()]
    assert [(numbers[a], numbers[b]) for a, b in zip(pships.a, pships.b, strict=True)] == keys
    n_entries = sum(len(h.history().entries) for h in state.players.values())
    n_entries += sum(len(h.history().entries) for h in state.partnerships.values())
    assert len(hist.entry_seq) == n_entries
    assert len(hist.subject_a) == len(state.players) + len(state.partnerships)
    assert list(hist.live_version) == list(state.live)


@settings(max_examples=10, deadline=None)
@given(ledgers(MIXED))
def test_python_fold_equals_the_reference_on_mixed_ledgers(ledger):
    _check_against_reference(ledger, NGS_DEFAULT)


@settings(max_examples=5, deadline=None)
@given(ledgers(LONG, operations=100))
def test_python_fold_equals_the_reference_on_long_histories_and_2018_rules(ledger):
    for params in (NGS_DEFAULT, NGS_2018):
        _check_against_reference(ledger, params)


@settings(max_examples=8, deadline=None)
@given(ledgers(FIELDS, operations=60, pool=10))
def test_python_fold_equals_the_reference_on_fields_with_visitors_and_hosts(ledger):
    _check_against_reference(ledger, NGS_DEFAULT)


def test_a_version_out_is_what_the_store_writes():
    """grade_after is the step's current grade of the member, the reasons and records are
    the outcome's (grading.ledger.store.store_step)."""
    ledger = random_ledger(3, FIELDS, operations=40, pool=10)
    got = []
    fold = PythonFold(sink=got.append)
    fold.register(numbers_of(ledger))
    steps = [fold.apply(op) for op in ledger]
    processed = [s for s in steps if s.kind == "process"]
    assert len(got) == len(processed)
    seen_reason = set()
    for out, step in zip(got, processed, strict=True):
        outcome = step.outcome
        assert out.graded == outcome.graded and out.total_pairs == outcome.total_pairs
        if not out.graded:
            assert out.reason == outcome.reason and not out.rec_member
            continue
        after = {g.subject: g.grade for g in step.current_grades}
        for j, r in enumerate(outcome.players):
            assert fold.numbers[out.rec_member[j]] == r.number
            assert REASONS[out.rec_reason[j]] == r.reason
            seen_reason.add(r.reason)
            want = after.get(r.number)
            have = out.rec_figures[10 * j + 8]
            assert (want is None and math.isnan(have)) or want == have
    assert "" in seen_reason and len(seen_reason) > 1


def test_process_columns_leaves_other_sessions_to_apply():
    ledger = [op for op in random_ledger(5, MIXED, operations=30) if isinstance(op, ProcessOp)]
    fold = PythonFold(sink=lambda out: None)
    fold.register(numbers_of(ledger))
    swiss = [op for op in ledger if op.session.matches]
    assert swiss
    for op in ledger:
        if not by_columns(fold, op):
            fold.apply(op)
    assert fold.last_seq == ledger[-1].seq
