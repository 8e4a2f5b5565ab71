"""The compiled kernel equals the reference path (SPEC S3-S6, S14.3-S14.11; issue 9).

``grading.engine.ngs.ckernel`` folds ledgers in C. Its every step (session grades with their
parts, current grades, partnership grades) is compared with the reference transcription of S4
on random ledgers: long histories (the 2000-board cut, same-day blocks, careers, late uploads,
withdrawals), small fields with visitors and hosts, the 2018 rules, and mixed ledgers whose
Swiss and teams sessions the C kernel hands to ``grade_session`` and takes back. Tolerance
1e-9 (S14.11). The library is built in the test session when a C compiler exists; without one
every test here is skipped (the product then uses the Python kernel).
"""

from __future__ import annotations

import datetime as dt
import math
from array import array

import pytest
from hypothesis import given, settings

from grading.engine.ngs import NGS_2018, LedgerOp, ProcessOp, WithdrawOp, replay, why_not_graded
from grading.engine.ngs import clib as ngs_clib
from grading.engine.ngs.ckernel import (
    CKernelReplay,
    CKernelUnavailable,
    ckernel_available,
    ckernel_replay,
    ckernel_supports,
)
from grading.engine.ngs.decay import years_before
from grading.engine.ngs.kernel import KernelReplay, compare_kernel_steps, kernel_replay
from grading.engine.ngs.ledger import LedgerError, partnership_subject
from grading.engine.ngs.params import NGS_DEFAULT, NGSParams
from grading.engine.types import (
    Movement,
    PairEntry,
    Player,
    Scoring,
    SessionKey,
    SessionResult,
)
from grading.lab.synthetic import synthetic_ledger
from tests.engine.ledgers import FIELDS, LONG, MIXED, ledgers

pytestmark = pytest.mark.usefixtures("ckernel_built")


START = dt.date(2016, 2, 22)  # the regression session's date


# ------------------------------------------------------------------ equality with the reference


def _same_as_reference(ledger: list[LedgerOp], params: NGSParams = NGS_DEFAULT) -> None:
    reference = replay(ledger, params, path="reference")
    ck = CKernelReplay(params, record=True).run(ledger)
    assert compare_kernel_steps(reference.steps, ck.steps) == []
    graded = [
        r.session_grade
        for s in reference.steps
        if s.outcome is not None
        for r in s.outcome.players
        if r.session_grade is not None
    ]
    assert ck.grades is not None and len(ck.grades) == len(graded) == ck.graded
    assert all(abs(x - y) <= 1e-9 for x, y in zip(graded, ck.grades, strict=True))


@settings(max_examples=12, deadline=None)
@given(ledgers(LONG, operations=140))
def test_ckernel_equals_reference_on_long_histories(ledger):
    """The 2000-board cut, same-day blocks, careers, late uploads, withdrawals (S4, S14.6-8)."""
    _same_as_reference(ledger)


@settings(max_examples=15, deadline=None)
@given(ledgers(FIELDS, operations=60, pool=10))
def test_ckernel_equals_reference_on_random_ledgers(ledger):
    """Fields of 3-7 pairs with visitors (S3.8), hosts (S3.9) and regular pairs (S14.5)."""
    _same_as_reference(ledger)


def test_2018_a_host_with_a_visitor_in_a_field_of_unknowns():
    """S9.1/S3.8: the minimal session that crashed the reference path (no known pair, the
    host's visitor counted as a graded member): not graded on every path, and a known field
    after it graded as usual."""
    key = SessionKey("club", "ev", 1, START)
    odd = SessionResult(
        key,
        "Event",
        Scoring.AGGREGATE,
        Movement.ONE_WINNER,
        (
            PairEntry("1", (Player("m0"), Player(None)), -10.652522178348892, None, 60),
            PairEntry(
                "2", (Player("m3", rateable=False), Player(None)), 3.695292920543494, None, 60
            ),
        ),
    )
    known = SessionResult(
        SessionKey("club", "ev", 2, START + dt.timedelta(days=1)),
        "Event",
        Scoring.MP,
        Movement.ONE_WINNER,
        tuple(
            PairEntry(str(i), (Player(f"m{2 * i}"), Player(f"m{2 * i + 1}")), s, None, 24)
            for i, s in enumerate((55.0, 48.5, 46.5))
        ),
    )
    ledger: list[LedgerOp] = [ProcessOp(1, "v1", odd), ProcessOp(2, "v2", known)]
    assert why_not_graded(odd, NGS_2018) != ""
    _same_as_reference(ledger, NGS_2018)
    assert CKernelReplay(NGS_2018).run(ledger).graded == 6


@settings(max_examples=8, deadline=None)
@given(ledgers(LONG, operations=100))
def test_ckernel_equals_reference_under_2018_rules(ledger):
    """S9.1: players counted instead of pairs, and the new-partner rule."""
    _same_as_reference(ledger, NGS_2018)


@settings(max_examples=12, deadline=None)
@given(ledgers(MIXED))
def test_ckernel_equals_reference_on_mixed_ledgers(ledger):
    """Swiss and teams sessions go through grade_session and back into the C state;
    aggregate with direction means, requested hosts and non-graded versions."""
    _same_as_reference(ledger)


def test_ckernel_equals_python_kernel_without_record():
    """The chunked path (many operations per C call) gives the Python kernel's figures, and
    every final current grade and partnership grade is the reference's (S14.11)."""
    ledger = synthetic_ledger(400, 300, seed=11)
    python = kernel_replay(ledger)
    ck = CKernelReplay(chunk=37).run(ledger)
    assert (ck.graded, ck.partnership_graded, ck.sessions) == (
        python.graded,
        python.partnership_graded,
        python.sessions,
    )
    assert python.grades is not None and ck.grades is not None
    assert len(ck.grades) == len(python.grades)
    assert max(abs(x - y) for x, y in zip(python.grades, ck.grades, strict=True)) <= 1e-9
    reference = replay(ledger, path="reference")
    latest = reference.latest_date()
    assert latest is not None and ck.latest() == latest.toordinal()
    assert set(ck.players) == set(reference.players)
    for number in reference.players:
        for as_of in (latest, latest + dt.timedelta(days=800)):
            a = reference.player_grade(number, as_of)
            b = ck.grade(number, as_of.toordinal())
            assert a is not None and b is not None
            assert (a.status.value, a.boards_in_window, a.padding_boards) == (
                ("P", "E", "M", "O")[b[1]],
                b[2],
                b[3],
            )
            assert abs(a.grade - b[0]) <= 1e-9
    assert sorted(ck.partnerships) == sorted(reference.partnerships)
    for key, history in reference.partnerships.items():
        a = history.grade(latest, NGS_DEFAULT, subject=partnership_subject(key))
        b = ck.partnership_grade(key, latest.toordinal())
        assert b is not None and abs(a.grade - b[0]) <= 1e-9 and a.boards_in_window == b[2]


def test_partnership_grades_at_once_equal_them_one_by_one():
    """``partnership_grades_of`` (replay --check's chunks) asks each partnership as
    ``partnership_grade`` does, in the same order, dates going forward and back; a pair that
    never played together is not found."""
    ledger = synthetic_ledger(150, 400, seed=11)
    one, many = CKernelReplay(), CKernelReplay()
    for op in ledger:
        one.apply(op)
        many.apply(op)
    latest = one.latest()
    assert latest is not None
    keys = sorted(one.partnerships)
    assert len(keys) > 50
    days = [latest + (0, 400, 30, 1200)[i % 4] for i in range(len(keys))]
    a = [many.ids[x] for x, _ in keys]
    b = [many.ids[y] for _, y in keys]
    never = next(
        (x, y) for x in many.players for y in many.players if x < y and (x, y) not in set(keys)
    )
    a.append(many.ids[never[1]])  # (either order)
    b.append(many.ids[never[0]])
    days.append(latest)
    grades, found = many.partnership_grades_of(array("i", a), array("i", b), array("i", days))
    for j, (key, day) in enumerate(zip(keys, days, strict=False)):
        single = one.partnership_grade(key, day)
        assert single is not None and found[j] == 1
        assert grades[j] == single[0]  # the same arithmetic, bit for bit
    assert found[-1] == 0 and math.isnan(grades[-1])
    assert one.partnership_grade(never, latest) is None


def test_ledger_errors_match_the_python_kernel():
    """Sequence order, a version processed twice, withdrawing what is not live (S5.3): the
    same errors, raised after everything before them was performed."""
    ledger = [op for op in synthetic_ledger(200, 30, seed=5) if isinstance(op, ProcessOp)][:10]
    ck = CKernelReplay()
    for op in ledger[:5]:
        ck.apply(op)
    with pytest.raises(LedgerError, match="not after"):
        ck.apply(ledger[2])
    graded = ck.graded
    assert graded == kernel_replay(ledger[:5]).graded
    with pytest.raises(LedgerError, match="already live"):
        ck.apply(ProcessOp(ledger[5].seq, ledger[0].version, ledger[5].session))
    with pytest.raises(LedgerError, match="not live"):
        ck.apply(WithdrawOp(ledger[5].seq, "nope"))
    ck.apply(WithdrawOp(ledger[5].seq, ledger[0].version))
    ck.apply(WithdrawOp(ledger[5].seq + 1, ledger[1].version))
    assert ck.graded == graded  # withdrawn grades stay counted as computed (as the Python kernel)


# ------------------------------------------------------------------ availability and fallback


def test_calendar_matches_python():
    """The 3-year lower bound of S14.6 (29 February becomes 28 February)."""
    lib = ngs_clib.load_library()
    day = dt.date(1999, 12, 1)
    while day < dt.date(2030, 3, 5):
        assert lib.ck_years_before(day.toordinal(), 3) == years_before(day, 3).toordinal()
        day += dt.timedelta(days=1)
    for d in (dt.date(2000, 2, 29), dt.date(2400, 2, 29), dt.date(9999, 12, 31)):
        assert lib.ck_years_before(d.toordinal(), 4) == years_before(d, 4).toordinal()


def test_falls_back_to_the_python_kernel(monkeypatch):
    ledger = synthetic_ledger(100, 20, seed=1)
    odd = NGSParams(name="odd", weighting_factors=((1, 1.0), (3, 0.1)))
    assert not ckernel_supports(odd)
    assert isinstance(ckernel_replay(ledger, odd), KernelReplay)
    with pytest.raises(CKernelUnavailable):
        ckernel_replay(ledger, odd, fallback=False)
    assert isinstance(ckernel_replay(ledger), CKernelReplay)
    monkeypatch.setattr(ngs_clib, "load_library", lambda: None)
    assert not ckernel_available()
    assert isinstance(ckernel_replay(ledger), KernelReplay)
    with pytest.raises(CKernelUnavailable):
        CKernelReplay()
