"""Helpers for the writing folds' equality tests (``test_ngs_foldout*``): fold a ledger with a
producer, collect what it hands out, and compare two producers' outputs to 1e-9 (helpers
only, no tests)."""

from __future__ import annotations

import math
from dataclasses import fields

from grading.engine.ngs import LedgerOp, ProcessOp, replay
from grading.engine.ngs.foldout import (
    PAIR_FIGURES,
    RECORD_FIGURES,
    CurrentOut,
    HistoriesOut,
    PartnershipsOut,
    VersionOut,
)
from grading.engine.ngs.foldpy import version_out
from grading.engine.ngs.params import NGSParams
from grading.lab.ledgercolumns import session_columns

TOL = 1e-9


def numbers_of(ledger: list[LedgerOp]) -> list[str]:
    """The members of a ledger, sorted: the ids a writer would register."""
    return sorted(
        {
            p.number
            for op in ledger
            if isinstance(op, ProcessOp)
            for pair in op.session.pairs
            for p in pair.players
            if p.number is not None
        }
    )


def by_columns(fold, op: ProcessOp) -> bool:
    """Feed ``op`` as columns, as a writer reading the database's columnar copy would."""
    columns = session_columns(op, fold.ids.__getitem__)
    return columns is not None and fold.process_columns(op.seq, op.version, **columns)


def run(make, ledger: list[LedgerOp], *, columns: bool):
    """Fold ``ledger`` with ``make(sink)`` (a writing fold); returns its versions, current
    grades, partnership grades and histories as of the latest date of play."""
    got: list[VersionOut] = []
    fold = make(got.append)
    fold.register(numbers_of(ledger))
    for op in ledger:
        if columns and isinstance(op, ProcessOp) and by_columns(fold, op):
            continue
        fold.apply(op)
    fold.flush()
    latest = fold.latest()
    day = latest if latest is not None else 1
    return got, fold.current_grades(day), fold.partnership_grades(day), fold.histories()


def reference_versions(ledger: list[LedgerOp], params: NGSParams) -> list[VersionOut]:
    """The reference path's steps, converted as the store stores them."""
    numbers = numbers_of(ledger)
    ids: dict[str | None, int] = {None: -1, **{n: i for i, n in enumerate(numbers)}}
    out = []
    for step in replay(ledger, params, path="reference").steps:
        if step.kind != "process":
            continue
        assert step.outcome is not None
        after = {g.subject: g.grade for g in step.current_grades}
        ref = step.reference_date.toordinal()
        out.append(version_out(step.seq, step.version, ref, step.outcome, after, ids))
    return out


def _close(x: float, y: float, tol: float) -> bool:
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return abs(x - y) <= tol * max(1.0, abs(x))


def _same_floats(where: str, names, a, b, tol: float = TOL) -> None:
    assert len(a) == len(b), f"{where}: {len(a)} != {len(b)} figures"
    k = len(names)
    for j, (x, y) in enumerate(zip(a, b, strict=True)):
        assert _close(x, y, tol), f"{where} #{j // k} {names[j % k]}: {x} != {y}"


def same_versions(expected: list[VersionOut], got: list[VersionOut]) -> None:
    assert [(v.seq, v.version) for v in got] == [(v.seq, v.version) for v in expected]
    for a, b in zip(expected, got, strict=True):
        where = f"seq {a.seq}"
        for f in fields(VersionOut):
            x, y = getattr(a, f.name), getattr(b, f.name)
            if f.name == "sof":
                assert _close(x, y, TOL), f"{where} sof: {x} != {y}"
            elif f.name == "pair_figures":
                _same_floats(f"{where} pair", PAIR_FIGURES, x, y)
            elif f.name == "rec_figures":
                _same_floats(f"{where} record", RECORD_FIGURES, x, y)
            else:
                assert x == y, f"{where} {f.name}: {x} != {y}"


def same_table(expected, got, floats: set[str]) -> None:
    """Two CurrentOut / PartnershipsOut / HistoriesOut: equal columns, floats to 1e-9."""
    for f in fields(expected):
        x, y = getattr(expected, f.name), getattr(got, f.name)
        if f.name in floats:
            _same_floats(f.name, (f.name,), x, y)
        else:
            assert x == y, f"{f.name}: {x} != {y}"


def same_current(expected: CurrentOut, got: CurrentOut) -> None:
    same_table(expected, got, {"grade", "initial"})


def same_partnerships(expected: PartnershipsOut, got: PartnershipsOut) -> None:
    same_table(expected, got, {"grade", "initial"})


def same_histories(expected: HistoriesOut, got: HistoriesOut) -> None:
    same_table(expected, got, {"subject_initial", "entry_grade", "entry_factor", "entry_pad"})
