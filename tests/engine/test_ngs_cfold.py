"""The compiled fold's member records (``grading.engine.ngs.cfold``) equal the reference path's
session grades, part by part, on random ledgers of every scoring type, fed as operations or as
columns (SPEC S3, S5.4, S14.11: 1e-9)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings

from grading.engine.ngs import NGS_2018, LedgerOp, ProcessOp, replay
from grading.engine.ngs.cfold import RECORD_PARTS, RecordsReplay
from grading.engine.ngs.ckernel import ckernel_available
from grading.engine.ngs.params import NGS_DEFAULT, NGSParams
from tests.engine.foldouts import by_columns, numbers_of
from tests.engine.ledgers import FIELDS, LONG, MIXED, ledgers

pytestmark = pytest.mark.usefixtures("ckernel_built")


def _reference_records(ledger: list[LedgerOp], params: NGSParams):
    out = []
    for step in replay(ledger, params, path="reference").steps:
        if step.outcome is None or not step.outcome.graded:
            continue
        for r in step.outcome.players:
            out.append((step.seq, r.number, tuple(getattr(r, part) for part in RECORD_PARTS)))
    return out


def _fold(ledger: list[LedgerOp], params: NGSParams, columns: bool, chunk: int):
    got = []
    numbers = numbers_of(ledger)

    def sink(seq, version, ids, values):
        for j, i in enumerate(ids):
            row = values[8 * j : 8 * j + 8]
            got.append((seq, numbers[i], tuple(None if math.isnan(v) else v for v in row)))

    fold = RecordsReplay(params, sink=sink, chunk=chunk)
    fold.register(numbers)
    for op in ledger:
        if columns and isinstance(op, ProcessOp) and by_columns(fold, op):
            continue
        fold.apply(op)
    fold.flush()
    return got


def _same(expected, got) -> None:
    assert [(s, n) for s, n, _ in got] == [(s, n) for s, n, _ in expected]
    for (seq, number, want), (_, _, have) in zip(expected, got, strict=True):
        for part, x, y in zip(RECORD_PARTS, want, have, strict=True):
            where = f"seq {seq} member {number} {part}"
            assert (x is None) == (y is None), f"{where}: {x} != {y}"
            # par is in the session's own units (aggregate: points, in the tens of thousands)
            tol = 1e-9 * max(1.0, abs(x)) if part == "par" and x is not None else 1e-9
            assert x is None or abs(x - y) <= tol, f"{where}: {x} != {y}"


@settings(max_examples=12, deadline=None)
@given(ledgers(MIXED))
def test_records_equal_the_reference_on_mixed_ledgers(ledger):
    expected = _reference_records(ledger, NGS_DEFAULT)
    assert expected  # graded sessions with member records
    _same(expected, _fold(ledger, NGS_DEFAULT, columns=False, chunk=7))
    _same(expected, _fold(ledger, NGS_DEFAULT, columns=True, chunk=1000))


@settings(max_examples=8, deadline=None)
@given(ledgers(LONG, operations=120))
def test_records_equal_the_reference_on_long_histories_and_2018_rules(ledger):
    for params in (NGS_DEFAULT, NGS_2018):
        _same(_reference_records(ledger, params), _fold(ledger, params, columns=True, chunk=13))


@settings(max_examples=8, deadline=None)
@given(ledgers(FIELDS, operations=60, pool=10))
def test_records_equal_the_reference_on_fields_with_visitors_and_hosts(ledger):
    _same(_reference_records(ledger, NGS_DEFAULT), _fold(ledger, NGS_DEFAULT, True, 5))


def test_members_are_registered_before_anything_else():
    fold = RecordsReplay(sink=lambda *a: None)
    fold.register(["a", "b"])
    assert ckernel_available() and fold.ids["b"] == 1
    with pytest.raises(ValueError, match="registered before"):
        fold.register(["c"])
