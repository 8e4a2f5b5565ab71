"""Stateless grading steps (issue 17; S5.2-S5.4, S14.6-S14.11): a step graded from the subject
tables in PostgreSQL equals the reference path's step to 1e-9, on random ledgers that reach
late uploads, corrections, withdrawals, same-day blocks, the 2000-board cut, 3-year expiry and
careers (padding), statuses, regular partners, partnerships, host pairs and unknown players
(the engine's own generators, tests/engine/test_ngs_fast_paths_equal_reference.py)."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest
from django.conf import settings as django_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grading.engine.ngs import (
    NGS_2018,
    NGS_DEFAULT,
    LedgerOp,
    NGSParams,
    ProcessOp,
    ReplayState,
    WithdrawOp,
    apply,
    compare_steps,
    partnership_subject,
    replay,
    why_not_graded,
    years_before,
)
from grading.ledger import step_reads, subjects
from grading.ledger.step_reads import subjects_state, subjects_step
from grading.ledger.subjects import subjects_problems
from grading.models import LedgerHistory, LedgerLive, LedgerSubject
from tests.engine.ledgers import LONG, MIXED, random_ledger

DB_EXAMPLES = settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def numbered(ops: list[LedgerOp]) -> list[LedgerOp]:
    """The engine's generators name versions "v12"; the tables key them by a version's id."""
    out: list[LedgerOp] = []
    for op in ops:
        version = op.version.removeprefix("v")
        out.append(dataclasses.replace(op, version=version))
    return out


def with_hosts(ops: list[LedgerOp], seed: int) -> list[LedgerOp]:
    """Every seventh process names its last pair as an approved host pair (S3.9), where that
    leaves the session as gradeable as the generator made it (a version the generator later
    withdraws must still be live)."""
    out: list[LedgerOp] = []
    for i, op in enumerate(ops):
        if isinstance(op, ProcessOp) and (i + seed) % 7 == 0:
            host = op.session.pairs[-1].pair_id
            graded_before = not why_not_graded(op.session, host_pair=op.host_pair)
            if graded_before == (not why_not_graded(op.session, host_pair=host)):
                op = dataclasses.replace(op, host_pair=host)
        out.append(op)
    return out


def through_the_database(ops: list[LedgerOp], params: NGSParams) -> ReplayState:
    """Each operation graded twice: by the reference fold in memory, and by a step that reads
    only its subjects from the tables and writes its results back. Returns the reference."""
    LedgerHistory.objects.all().delete()
    LedgerLive.objects.all().delete()
    LedgerSubject.objects.all().delete()
    reference = ReplayState(params, "reference")
    last = 0
    for op in ops:
        if isinstance(op, ProcessOp) and why_not_graded(op.session, params, op.host_pair):
            not_graded_grades_equal(reference, subjects_state(params, last, op), op)
        expected = apply(reference, op)
        actual, _ = subjects_step(params, last, op)
        last = op.seq
        assert compare_steps([expected], [actual]) == [], f"seq {op.seq}"
        assert [g.subject for g in actual.current_grades] == [
            g.subject for g in expected.current_grades
        ]
    reference.steps.clear()
    assert subjects_problems(reference) == []
    return reference


def not_graded_grades_equal(reference: ReplayState, state: ReplayState, op: ProcessOp) -> None:
    """A version not graded stores its players' grades on its own date of play, maybe before
    the reference date (grading/ledger/store.py, ``_store_not_graded``): the step's state gives
    the fold's."""
    for number in {p.number for pair in op.session.pairs for p in pair.players if p.number}:
        expected = reference.player_grade(number, op.session.date)
        actual = state.player_grade(number, op.session.date)
        assert (actual is None) == (expected is None), number
        if expected is not None and actual is not None:
            assert compare_steps_grades(expected, actual), (number, op.seq)


def compare_steps_grades(expected, actual) -> bool:
    return (expected.status, expected.boards_in_window, expected.padding_boards) == (
        actual.status,
        actual.boards_in_window,
        actual.padding_boards,
    ) and abs(expected.grade - actual.grade) <= 1e-9


@pytest.mark.django_db
@DB_EXAMPLES
@given(st.integers(0, 10**9))
def test_steps_from_the_database_equal_the_reference_on_long_histories(seed):
    """Few players, long histories: the 2000-board cut, exact cuts, same-day blocks, gaps of
    more than 3 years (careers, restarts), late uploads across the 3-year edge."""
    ops = numbered(with_hosts(random_ledger(seed, LONG, operations=120), seed))
    state = through_the_database(ops, NGS_DEFAULT)
    assert state.players  # the ledger graded someone


@pytest.mark.django_db
@DB_EXAMPLES
@given(st.integers(0, 10**9))
def test_steps_from_the_database_equal_the_reference_on_random_ledgers(seed):
    """More players, unknown players, corrections and withdrawals, green-pointed weightings."""
    through_the_database(numbered(random_ledger(seed, operations=60)), NGS_DEFAULT)


@pytest.mark.django_db
@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 10**9))
def test_steps_from_the_database_equal_the_reference_under_2018_rules(seed):
    through_the_database(numbered(random_ledger(seed, LONG, operations=100)), NGS_2018)


@pytest.mark.django_db
@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 10**9))
def test_steps_from_the_database_equal_the_reference_on_mixed_sessions(seed):
    """Every scoring type, Swiss matches and teams, individuals, versions not graded (their
    players' grades on their own date), requested hosts, late uploads across the 3-year edge."""
    through_the_database(numbered(random_ledger(seed, MIXED, operations=80)), NGS_DEFAULT)


@pytest.mark.django_db
def test_a_step_reads_long_histories_from_the_cut_on(monkeypatch):
    """A step reads a subject's rows after its cut, 3 years before the date it grades at (S4,
    S14.6), when they hold the 300 padding boards, and the rest whole (S14.7, S14.8); the
    ledgers below reach every case, and every step equals the reference's: subjects read
    from the cut and whole, late sessions older than the cut, withdrawals of rows older than
    the cut (the subject read from the cut still counts them in its totals)."""
    seen = dict.fromkeys(("cut", "whole", "late", "withdrawn"), 0)
    read = step_reads._step_rows

    def spy(state, subjects, as_of, own, withdrawn):
        rows, older = read(state, subjects, as_of, own, withdrawn)
        cut = years_before(as_of, 3)
        seen["cut"] += len(older)
        seen["whole"] += sum(
            1 for pk, mine in rows.items() if pk not in older and mine[0][1] <= cut
        )
        seen["withdrawn"] += sum(1 for pk, _, date, *_ in own if pk in older and date <= cut)
        spy.asked = as_of
        return rows, older

    def late(params, last, op):
        state = step_reads.subjects_state(params, last, op)
        if isinstance(op, ProcessOp) and op.session.date <= years_before(spy.asked, 3):
            seen["late"] += 1
        return state

    monkeypatch.setattr(step_reads, "_step_rows", spy)
    for seed in (1, 3):
        ops = numbered(with_hosts(random_ledger(seed, LONG, operations=160), seed))
        reference = ReplayState(NGS_DEFAULT, "reference")
        for op in ops:  # through the database, the process's state read by ``late``
            expected = apply(reference, op)
            state = late(NGS_DEFAULT, op.seq - 1, op)
            actual = apply(state, op)
            subjects.subjects_store(actual, state)
            assert compare_steps([expected], [actual]) == [], f"seq {op.seq}"
        reference.steps.clear()
        assert subjects_problems(reference) == []
        LedgerHistory.objects.all().delete()
        LedgerLive.objects.all().delete()
        LedgerSubject.objects.all().delete()
    assert all(n > 0 for n in seen.values()), seen


@pytest.mark.django_db
def test_a_withdrawn_only_session_keeps_the_initial_grade():
    """A member whose only session is withdrawn keeps the initial grade fixed at their first
    appearance (S14.7): the next session, with another weighting, does not fix it again."""
    ops = random_ledger(5, operations=30)
    first = next(op for op in ops if isinstance(op, ProcessOp) and not why_not_graded(op.session))
    later = dataclasses.replace(first.session, weighting=3)
    ledger = numbered(
        [
            ProcessOp(1, "v1", dataclasses.replace(first.session, weighting=1)),
            WithdrawOp(2, "v1"),
            ProcessOp(3, "v3", later),
        ]
    )
    state = through_the_database(ledger, NGS_DEFAULT)
    number = first.session.pairs[0].players[0].number
    stored = LedgerSubject.objects.get(key=number)
    assert stored.initial == state.players[number].initial == NGS_DEFAULT.first_grade(1)
    assert NGS_DEFAULT.first_grade(3) != NGS_DEFAULT.first_grade(1)


@pytest.mark.django_db
def test_a_withdrawal_lowers_the_reference_date_read_from_the_live_dates():
    """The reference date after withdrawing the only version on the latest date is the next
    latest live date (S14.6): the step reads the two latest dates, not every live version."""
    ops = numbered(random_ledger(11, operations=12))
    before = replay(ops)
    latest = max(before.live.items(), key=lambda item: (item[1].date, item[1].seq))
    ledger = [*ops, WithdrawOp(ops[-1].seq + 1, latest[0])]
    after = through_the_database(ledger, NGS_DEFAULT)
    assert after.latest_date() is not None and after.latest_date() <= latest[1].date


@pytest.mark.django_db
@pytest.mark.parametrize("seed", [3, 17])
def test_steps_on_the_reference_path_equal_too(seed, monkeypatch):
    """A step may grade with either path (GRADING_ENGINE_PATH): both give the reference's step."""
    monkeypatch.setattr(django_settings, "GRADING_ENGINE_PATH", "reference")
    through_the_database(numbered(random_ledger(seed, LONG, operations=80)), NGS_DEFAULT)


@pytest.mark.django_db
def test_grades_read_in_batches_from_the_tables_equal_the_fold():
    """The nightly refresh's figures without a fold: every subject's grade as of a date, read
    a few subjects at a time, equals the whole fold's (S4)."""
    ops = numbered(random_ledger(29, LONG, operations=120))
    state = through_the_database(ops, NGS_DEFAULT)
    as_of = state.latest_date() + dt.timedelta(days=400)
    read = {key: grade for key, grade, _ in subjects.subjects_grades(NGS_DEFAULT, as_of, batch=3)}
    players = {n for n, h in state.players.items() if h.session_count()}
    pairs = {k for k, h in state.partnerships.items() if h.session_count()}
    assert read.keys() == players | {partnership_subject(k) for k in pairs}
    for number in players:
        expected = state.player_grade(number, as_of)
        assert read[number].grade == pytest.approx(expected.grade, abs=1e-9)
        assert read[number].status == expected.status
    for key in pairs:
        expected = state.partnerships[key].grade(as_of, NGS_DEFAULT)
        assert read[partnership_subject(key)].grade == pytest.approx(expected.grade, abs=1e-9)
