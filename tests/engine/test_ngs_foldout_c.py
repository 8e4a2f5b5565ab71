"""The compiled writing fold (``grading.engine.ngs.cwrite.WritingReplay``, issue 18) hands the
writer what the Python producer (``foldpy``, fast path) hands, and both equal the reference
path's steps (S3-S6, S5.4, S9.1, S14.11: 1e-9), on random ledgers of every kind: late uploads,
corrections, withdrawals, same-day blocks, the 2000-board cut, the 3-year expiry, careers,
padding, statuses, regular partners, partnerships, host pairs, unknown players and the scoring
types C leaves to ``grade_session``; fed as operations or as columns, in chunks of any size."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grading.engine.ngs import NGS_2018, ProcessOp
from grading.engine.ngs.cwrite import WritingReplay, history_cuts, writing_fold
from grading.engine.ngs.foldpy import PythonFold
from grading.engine.ngs.params import NGS_DEFAULT
from tests.engine.foldouts import (
    reference_versions,
    run,
    same_current,
    same_histories,
    same_partnerships,
    same_versions,
)
from tests.engine.ledgers import FIELDS, LONG, MIXED, ledgers, random_ledger

pytestmark = pytest.mark.usefixtures("ckernel_built")


def _c(params, chunk):
    return lambda sink: WritingReplay(params, sink=sink, chunk=chunk)


def _check(ledger, params, chunks=(1, 7, 1000)) -> None:
    expected = reference_versions(ledger, params)
    py = run(lambda sink: PythonFold(params, sink=sink), ledger, columns=False)
    same_versions(expected, py[0])
    for i, chunk in enumerate(chunks):
        c = run(_c(params, chunk), ledger, columns=bool(i % 2))
        same_versions(py[0], c[0])
        same_current(py[1], c[1])
        same_partnerships(py[2], c[2])
        same_histories(py[3], c[3])


@settings(max_examples=12, deadline=None)
@given(ledgers(MIXED))
def test_c_fold_equals_python_and_reference_on_mixed_ledgers(ledger):
    _check(ledger, NGS_DEFAULT)


@settings(max_examples=6, deadline=None)
@given(ledgers(LONG, operations=120))
def test_c_fold_equals_python_and_reference_on_long_histories_and_2018_rules(ledger):
    for params in (NGS_DEFAULT, NGS_2018):
        _check(ledger, params, chunks=(13, 4096))


@settings(max_examples=10, deadline=None)
@given(ledgers(FIELDS, operations=60, pool=10))
def test_c_fold_equals_python_and_reference_on_fields_with_visitors_and_hosts(ledger):
    _check(ledger, NGS_DEFAULT)


def test_every_processed_version_is_handed_out_once_in_order():
    ledger = random_ledger(11, MIXED, operations=80)
    got = []
    fold = WritingReplay(sink=got.append, chunk=5)
    for op in ledger:
        fold.apply(op)
    fold.flush()
    processed = [op.seq for op in ledger if isinstance(op, ProcessOp)]
    assert [v.seq for v in got] == processed
    assert any(not v.graded for v in got) and any(v.graded for v in got)
    graded = [v for v in got if v.graded]
    assert all(len(v.rec_figures) == 10 * len(v.rec_member) for v in graded)
    assert all(len(v.pair_figures) == 4 * len(v.pair_ids) for v in graded)


def test_histories_in_batches_are_the_histories():
    ledger = random_ledger(12, FIELDS, operations=120, pool=20)
    fold = WritingReplay(sink=lambda out: None, chunk=9)
    for op in ledger:
        fold.apply(op)
    whole = fold.histories()
    batches = list(fold.history_batches(subjects=7))
    assert len(batches) > 3 and [b.first_subject for b in batches] == [
        7 * i for i in range(len(batches))
    ]
    assert batches[0].live_version == whole.live_version and not batches[1].live_version
    for name in ("subject_a", "subject_b", "entry_subject", "entry_seq", "entry_pos"):
        joined = [x for b in batches for x in getattr(b, name)]
        assert joined == list(getattr(whole, name)), name
    assert len(whole.subject_a) == len(set(zip(whole.subject_a, whole.subject_b, strict=True)))
    assert min(whole.entry_pos) >= 0


def test_histories_in_batches_of_entries_are_the_histories_and_keep_to_the_budget():
    """Batches are cut by entries too (a national ledger's 50,000 players, who come first,
    hold 14 million entries: a batch of subjects alone held them all at once)."""
    ledger = random_ledger(12, FIELDS, operations=120, pool=20)
    fold = WritingReplay(sink=lambda out: None, chunk=9)
    for op in ledger:
        fold.apply(op)
    whole = fold.histories()
    counts = list(fold._history_counts())
    assert len(counts) == len(whole.subject_a) and sum(counts) == len(whole.entry_seq)
    budget = max(counts) + 2
    batches = list(fold.history_batches(entries=budget))
    assert len(batches) > 3
    assert all(0 < len(b.entry_seq) <= budget for b in batches)
    for name in ("subject_a", "subject_b", "entry_subject", "entry_seq", "entry_pos"):
        joined = [x for b in batches for x in getattr(b, name)]
        assert joined == list(getattr(whole, name)), name


def _cuts_one_by_one(counts, subjects, entries):
    first, held = 0, 0
    for i, n in enumerate(counts):
        if i > first and (i - first >= subjects or held + n > entries):
            yield first, i
            first, held = i, 0
        held += n
    yield first, len(counts)


@given(st.lists(st.integers(0, 30), max_size=40), st.integers(1, 9), st.integers(0, 80))
def test_history_cuts_equal_cutting_subject_by_subject(counts, subjects, entries):
    cuts = list(history_cuts(counts, subjects, entries))
    assert cuts == list(_cuts_one_by_one(counts, subjects, entries))
    assert cuts[0][0] == 0 and cuts[-1][1] == len(counts)
    for first, last in cuts:
        assert last - first <= subjects
        assert sum(counts[first:last]) <= entries or last - first == 1


def test_writing_fold_is_the_compiled_one_when_built():
    assert isinstance(writing_fold(sink=lambda out: None), WritingReplay)
