"""The fold timed alone over a pickled columns ledger (grading/lab/foldcolumns.py, issue 31
item 5) grades what the benchmark's columns fold grades over the same generated ledger."""

from __future__ import annotations

import pytest

from grading.engine.ngs.params import NGS_DEFAULT
from grading.lab.bench import _ckernel_replay
from grading.lab.foldcolumns import fold, make
from grading.lab.synthetic import iter_synthetic_ledger

pytestmark = pytest.mark.usefixtures("ckernel_built")


def test_the_pickled_fold_grades_as_the_benchmark_fold(tmp_path):
    path = str(tmp_path / "columns.pickle")
    made = make(300, 1200, 5, path)
    assert made["members"] == 300 and made["operations"] >= 1200
    folded = fold(path)
    direct = _ckernel_replay(iter_synthetic_ledger(300, 1200, 5), NGS_DEFAULT, 500)
    assert folded["player_sessions"] == direct["player_sessions"] > 0
    assert folded["subjects"] == list(direct["subjects"])
