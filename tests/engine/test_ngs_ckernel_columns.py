"""The compiled fold fed columns (``ColumnsReplay.process_columns``, the feed of the product's
refold and of the replay benchmark, ``grading.lab.ledgercolumns``) grades exactly as the same
fold fed operations: every session grade, every standing at the end (SPEC S5.4)."""

from __future__ import annotations

import pytest

from grading.engine.ngs.cfold import ColumnsReplay
from grading.engine.ngs.ledger import ProcessOp
from grading.engine.ngs.params import NGS_DEFAULT
from grading.lab.bench import SCALES, _ckernel_replay, fold_in_process
from grading.lab.ledgercolumns import session_columns
from grading.lab.synthetic import iter_synthetic_ledger, synthetic_ledger

pytestmark = pytest.mark.usefixtures("ckernel_built")


def _fold(ledger, *, columns: bool) -> tuple[ColumnsReplay, int]:
    fold = ColumnsReplay(chunk=64)  # many chunks: sessions queued across C calls
    fed = 0
    for op in ledger:
        cols = session_columns(op, fold.member_id) if columns else None
        if cols is not None and fold.process_columns(op.seq, op.version, **cols):
            fed += 1
            continue
        fold.apply(op)
    fold.flush()
    return fold, fed


def test_columns_and_operations_give_the_same_grades_and_standings():
    ledger = synthetic_ledger(300, 600, seed=7)
    by_ops, _ = _fold(ledger, columns=False)
    by_columns, fed = _fold(ledger, columns=True)
    processed = sum(isinstance(op, ProcessOp) for op in ledger)
    # the sessions went as columns, the withdrawals and corrections' withdrawals through apply
    assert processed >= fed > processed // 2
    assert len(ledger) > processed
    assert by_columns.graded == by_ops.graded > 0
    assert by_columns.sessions == by_ops.sessions
    assert list(by_columns.grades) == list(by_ops.grades)
    day = max(op.session.date for op in ledger if isinstance(op, ProcessOp)).toordinal()
    assert sorted(by_columns.numbers) == sorted(by_ops.numbers)
    for number in by_ops.numbers:
        assert by_columns.grade(number, day) == by_ops.grade(number, day), number


def test_a_recording_fold_leaves_columns_to_apply():
    ledger = synthetic_ledger(60, 40, seed=3)
    fold = ColumnsReplay(record=True)
    op = next(op for op in ledger if session_columns(op, fold.member_id) is not None)
    assert not fold.process_columns(op.seq, op.version, **session_columns(op, fold.member_id))
    assert fold.sessions == 0 and not fold.live


def test_a_fold_in_a_process_of_its_own_grades_as_one_here():
    tiny = SCALES["tiny"]
    here = _ckernel_replay(
        iter_synthetic_ledger(tiny.players, tiny.sessions, 2), NGS_DEFAULT, 20000, feed="columns"
    )
    there = fold_in_process(tiny, seed=2, fraction=1.0, feed="columns")
    assert there["player_sessions"] == here["player_sessions"] > 0
    assert there["feed"] == "columns" and there["peak_rss_mb"] > 0
