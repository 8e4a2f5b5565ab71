"""NGS ledger, fold and replay: chronology, corrections, FAQ 43 (SPEC S5, S6, S14.6-10)."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from grading.engine.ngs import (
    LedgerError,
    ProcessOp,
    ReplayState,
    Status,
    WithdrawOp,
    apply,
    compare_steps,
    correction,
    replay,
    why_not_graded,
)
from grading.engine.types import Movement, PairEntry, Player, Scoring, SessionKey, SessionResult
from tests.engine.ledgers import FIELDS, ledgers, random_ledger

DAY = dt.date(2016, 1, 4)


def mp_session(day, pairs, event="e", weighting=1, number=1):
    """pairs: (a, b, percent) or (a, b, percent, host)."""
    entries = []
    for i, row in enumerate(pairs):
        a, b, score, *host = row
        players = (Player(a, rateable=not (host and host[0])), Player(b))
        entries.append(PairEntry(str(i + 1), players, score, None, 24))
    key = SessionKey("club", event, number, day)
    return SessionResult(key, event, Scoring.MP, Movement.ONE_WINNER, tuple(entries), weighting)


# ------------------------------------------------------------------ FAQ 43


def _twins_ledger(partnerships, cycles):
    """Each session: one partnership of the story against a host pair of restarted members
    (grade 50, never changing: S3.9, S14.7), so SOpp is exactly 50 ("all results are 50%
    except..."). The hosts' only graded session is more than 3 years earlier."""
    ops = [ProcessOp(1, "setup", mp_session(DAY, [("H1", "H2", 50.0), ("X1", "X2", 50.0)]))]
    day = DAY + dt.timedelta(days=4 * 365)
    seq = 1
    for _ in range(cycles):
        for a, b, score in partnerships:
            seq += 1
            day += dt.timedelta(days=1)
            s = mp_session(day, [(a, b, score), ("H1", "H2", 100.0 - score, True)], f"s{seq}")
            ops.append(ProcessOp(seq, f"v{seq}", s))
    return ops


def test_faq43_twins_three_players_steady_state():
    """FAQ 43: Amy and Annie score 54% together, 50% with Bill: grades settle at 54/54/46."""
    story = [("Amy", "Annie", 54.0), ("Amy", "Bill", 50.0), ("Annie", "Bill", 50.0)]
    state = replay(_twins_ledger(story, 150), path="fast")
    last = state.latest_date()
    grades = {n: state.player_grade(n, last).grade for n in ("Amy", "Annie", "Bill")}
    assert grades["Amy"] == pytest.approx(54.0, abs=0.02)
    assert grades["Annie"] == pytest.approx(54.0, abs=0.02)
    assert grades["Bill"] == pytest.approx(46.0, abs=0.02)
    # "the partnership grades are equal to the average of the partners' grades"
    pg = state.partnerships[("Amy", "Annie")].grade(last, state.params).grade
    assert pg == pytest.approx(54.0, abs=0.02)
    assert state.partnerships[("Amy", "Bill")].grade(last, state.params).grade == pytest.approx(
        50.0, abs=0.02
    )


def test_faq43_twins_four_players_mixed_as_often_as_same_sex():
    """FAQ 43: with Ben, and mixed pairs playing as often as same-sex pairs, the girls settle
    at 53 and the boys at 49; partnership grades 50 except Amy/Annie's 54."""
    same = [("Amy", "Annie", 54.0), ("Bill", "Ben", 50.0)]
    mixed = [("Amy", "Bill", 50.0), ("Annie", "Ben", 50.0), ("Amy", "Ben", 50.0)]
    mixed.append(("Annie", "Bill", 50.0))
    cycle = [same[0], mixed[0], same[1], mixed[1], same[0], mixed[2], same[1], mixed[3]]
    state = replay(_twins_ledger(cycle, 110), path="fast")
    last = state.latest_date()
    grades = {n: state.player_grade(n, last).grade for n in ("Amy", "Annie", "Bill", "Ben")}
    for girl in ("Amy", "Annie"):
        assert grades[girl] == pytest.approx(53.0, abs=0.1)
    for boy in ("Bill", "Ben"):
        assert grades[boy] == pytest.approx(49.0, abs=0.1)
    assert sum(grades.values()) / 4 == pytest.approx(51.0, abs=0.05)
    for key, expected in (
        (("Amy", "Annie"), 54.0),
        (("Ben", "Bill"), 50.0),
        (("Amy", "Bill"), 50.0),
    ):
        assert state.partnerships[key].grade(last, state.params).grade == pytest.approx(
            expected, abs=0.15
        )


# ------------------------------------------------------------------ chronology


def _field(day, event, scores=(60.0, 50.0, 40.0), names="abcdef", **kw):
    rows = [(names[2 * i], names[2 * i + 1], s) for i, s in enumerate(scores)]
    return mp_session(day, rows, event, **kw)


def test_initial_grade_fixed_by_first_processed_version():
    """S5.1/S14.7: 42 at a club first session, 55 at a green-pointed one; fixed at the first
    processed graded version, even if a later upload is dated earlier."""
    state = ReplayState()
    apply(state, ProcessOp(1, "v1", _field(DAY, "green", weighting=3)))
    apply(state, ProcessOp(2, "v2", _field(DAY - dt.timedelta(days=5), "club")))
    assert state.players["a"].initial == 55.0
    step = state.steps[0]
    assert step.outcome is not None and step.outcome.player("a").grade_before == 55.0


def test_late_session_takes_its_place_by_date_without_recomputing_later_ones():
    """S5.2: a late upload sees every session processed before it; later-processed sessions are
    never recomputed; the decay order is by date of play."""
    state = ReplayState()
    first = apply(state, ProcessOp(1, "v1", _field(DAY, "e1")))
    second = apply(state, ProcessOp(2, "v2", _field(DAY - dt.timedelta(days=3), "e0")))
    assert second.reference_date == DAY  # S14.6: the later of its date and the latest live date
    assert second.outcome is not None and first.outcome is not None
    sg_first = first.outcome.player("a").session_grade
    # the late session used a's grade after e1
    assert second.outcome.player("a").grade_before == pytest.approx(first.current_grades[0].grade)
    # the history orders e0 before e1 by date of play, and e1's session grade is unchanged
    history = state.players["a"].history()
    ordered = sorted(history.entries, key=lambda e: (e.date, e.seq))
    assert [e.seq for e in ordered] == [2, 1]
    assert ordered[1].grade == sg_first


def test_two_sessions_on_one_day_second_sees_first():
    """S14.13: session 2 of the same day is graded with grades that include session 1."""
    state = ReplayState()
    one = apply(state, ProcessOp(1, "v1", _field(DAY, "ev", number=1)))
    two = apply(state, ProcessOp(2, "v2", _field(DAY, "ev", number=2)))
    assert two.outcome is not None
    assert two.outcome.player("a").grade_before == pytest.approx(one.current_grades[0].grade)
    assert one.current_grades[0].grade != 42.0


def test_regular_pair_detected_from_the_fold():
    """S14.5: a pair's first session together is never regular; after that, two players who
    play only together are regular and the convergence term applies."""
    state = ReplayState()
    for i in range(3):
        s = _field(DAY + dt.timedelta(days=i), f"e{i}", scores=(55.0, 50.0, 45.0))
        step = apply(state, ProcessOp(i + 1, f"v{i}", s))
        assert step.outcome is not None
        adjustment = step.outcome.player("a").regular_adjustment
        assert step.outcome.player("a").partner == "b"
        if i == 0:
            assert adjustment == 0.0
    assert state.player_grade("a", DAY).regular_partner == "b"


def test_host_appearance_fixes_initial_grade_without_session_grade():
    """S14.4: a host's first appearance fixes their initial grade; no session grade."""
    state = ReplayState()
    rows = [("h", "i", 40.0, True), ("a", "b", 60.0), ("c", "d", 50.0)]
    step = apply(state, ProcessOp(1, "v1", mp_session(DAY, rows, weighting=3)))
    assert state.players["h"].initial == 55.0
    assert state.players["h"].history().entries == ()
    assert step.outcome is not None and step.outcome.player("h").session_grade is None


def test_ledger_rules():
    """S5.2-S5.4: strictly increasing sequence numbers, a version is live once, withdrawals of
    versions that are not live are refused."""
    state = ReplayState()
    apply(state, ProcessOp(1, "v1", _field(DAY, "e")))
    with pytest.raises(LedgerError):
        apply(state, ProcessOp(1, "v2", _field(DAY, "e")))
    with pytest.raises(LedgerError):
        apply(state, ProcessOp(2, "v1", _field(DAY, "e")))
    with pytest.raises(LedgerError):
        apply(state, WithdrawOp(3, "nope"))


def test_non_graded_version_changes_nothing():
    """S3.1/S14.9: a non-graded version is reported with its reason and touches no grade."""
    state = ReplayState()
    s = _field(DAY, "teach")
    s = SessionResult(s.key, s.event_name, Scoring.INDIVIDUAL, s.movement, s.pairs)
    step = apply(state, ProcessOp(1, "v1", s))
    assert step.outcome is not None and not step.outcome.graded
    assert state.players == {} and state.live == {}


def test_correction_then_reversal_restores_grades():
    """S5.3: a correction withdraws the old version and processes the new one; reversing it
    (withdraw the new, process the old content again) restores every grade."""
    state = ReplayState()
    apply(state, ProcessOp(1, "v1", _field(DAY, "e1")))
    apply(state, ProcessOp(2, "v2", _field(DAY + dt.timedelta(days=1), "e2", names="acebdf")))
    before = {n: state.player_grade(n, DAY + dt.timedelta(days=1)) for n in "abcdef"}
    original = state.steps[-1]
    assert original.outcome is not None
    fixed = _field(DAY + dt.timedelta(days=1), "e2", scores=(40.0, 50.0, 60.0), names="acebdf")
    for op in correction("v2", "v3", fixed, 3):
        apply(state, op)
    changed = {n: state.player_grade(n, DAY + dt.timedelta(days=1)) for n in "abcdef"}
    assert changed != before
    original_session = _field(DAY + dt.timedelta(days=1), "e2", names="acebdf")
    for op in correction("v3", "v5", original_session, 5):
        apply(state, op)
    after = {n: state.player_grade(n, DAY + dt.timedelta(days=1)) for n in "abcdef"}
    assert after == before


def test_withdrawal_lowers_reference_date():
    """S14.6: the reference date is the latest date among live versions."""
    state = ReplayState()
    apply(state, ProcessOp(1, "v1", _field(DAY, "e1")))
    apply(state, ProcessOp(2, "v2", _field(DAY + dt.timedelta(days=9), "e2")))
    step = apply(state, WithdrawOp(3, "v2"))
    assert step.reference_date == DAY
    assert state.latest_date() == DAY


def test_stale_partnership_restarts_with_new_first_value():
    """S14.10: after 3 years without playing together a partnership restarts at the players'
    average at the start of the session."""
    state = ReplayState()
    apply(state, ProcessOp(1, "v1", _field(DAY, "e1")))
    later = DAY + dt.timedelta(days=3 * 366)
    step = apply(state, ProcessOp(2, "v2", _field(later, "e2", scores=(50.0, 50.0, 50.0))))
    assert step.outcome is not None
    ps = next(p for p in step.outcome.partnerships if p.key == ("a", "b"))
    assert ps.grade_before == pytest.approx(ps.pair_average)
    assert ps.pair_average == pytest.approx(50.0)  # both players restarted at 50 (S5.1)
    assert step.current_grades[0].status is Status.PROVISIONAL


# ------------------------------------------------------------------ properties


@settings(max_examples=15, deadline=None)
@given(ledgers(FIELDS))
def test_replay_from_empty_reproduces_every_stored_step(ledger):
    """S5.4: storing each step's outputs as they happen, then replaying the ledger from empty,
    gives the same outputs (``replay --check`` at 1e-9)."""
    state = ReplayState()
    stored = [apply(state, op) for op in ledger]
    again = replay(ledger)
    assert compare_steps(stored, again.steps) == []
    assert again.steps == stored  # deterministic to the last bit


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10**9))
def test_process_then_withdraw_restores_every_grade(seed):
    """S5.3: withdrawing the version just processed restores every member's grade (no later
    session is recomputed, so nothing else moved)."""
    ledger = random_ledger(seed, FIELDS, operations=25)
    state = replay(ledger)
    extra = random_ledger(seed + 1, FIELDS, operations=1)[0]
    assert isinstance(extra, ProcessOp)
    assume(not why_not_graded(extra.session))
    latest = state.latest_date()
    assert latest is not None
    before = {n: state.player_grade(n, latest) for n in state.players}
    apply(state, ProcessOp(state.last_seq + 1, "extra", extra.session))
    apply(state, WithdrawOp(state.last_seq + 1, "extra"))
    assert {n: state.player_grade(n, latest) for n in before} == before


@settings(max_examples=25, deadline=None)
@given(ledgers(FIELDS, operations=60, pool=10))
def test_fast_path_equals_reference_path(ledger):
    """The incremental path gives the reference path's grades on random histories (late uploads,
    corrections, withdrawals, careers, same-day blocks), to 1e-9."""
    reference = replay(ledger, path="reference")
    fast = replay(ledger, path="fast")
    assert compare_steps(reference.steps, fast.steps) == []
    latest = reference.latest_date()
    assert latest is not None
    for number in reference.players:
        for as_of in (latest, latest - dt.timedelta(days=400)):
            a = reference.player_grade(number, as_of)
            b = fast.player_grade(number, as_of)
            assert a is not None and b is not None
            assert (a.status, a.boards_in_window, a.padding_boards) == (
                b.status,
                b.boards_in_window,
                b.padding_boards,
            )
            assert a.grade == pytest.approx(b.grade, abs=1e-9)
