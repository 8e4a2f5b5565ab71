"""The nightly refresh and grades as of a date without a fold of the ledger (issue 17): read
from the subject tables a batch of subjects at a time, they give what the whole fold gives (S4
window and statuses, S6 partnerships, S14.6 reference date, S14.7 out of date)."""

from __future__ import annotations

import datetime as dt
import math

import pytest

import grading.engine.ngs.ledger
import grading.ledger.ops
import grading.ledger.step
from grading.engine import codec
from grading.engine.ngs import get_params, replay
from grading.engine.types import SessionResult
from grading.ledger import refresh, subjects
from grading.ledger.ops import ledger_ops
from grading.ledger.refresh import grades_as_of, grades_refresh
from grading.ledger.replay.check import ledger_check
from grading.models import (
    CurrentGrade,
    LedgerEntry,
    LedgerHead,
    LedgerHistory,
    LedgerSubject,
    PartnershipGrade,
)


def whole_fold():
    """The fold the old refresh and grades-as-of read (grading.ledger.ops), for comparison."""
    head = LedgerHead.objects.get()
    entries = LedgerEntry.objects.select_related("version").order_by("seq")
    return replay(ledger_ops(entries), get_params(head.params_name), path="reference")


def expected_refresh(today: dt.date) -> tuple[dict, dict, dt.date]:
    """What the old whole-fold refresh wrote into each stored row."""
    state = whole_fold()
    head = LedgerHead.objects.get()
    as_of = max(today, head.reference_date)
    players = {}
    for row in CurrentGrade.objects.select_related("member"):
        g = state.player_grade(row.member.national_number, as_of)
        players[row.member.national_number] = (
            g.grade,
            g.status.value,
            g.band,
            g.boards_in_window,
            g.sessions_in_window,
        )
    pairs = {}
    for row in PartnershipGrade.objects.select_related("member_a", "member_b"):
        key = (row.member_a.national_number, row.member_b.national_number)
        g = state.partnerships[key].grade(as_of, state.params, subject=f"{key[0]}+{key[1]}")
        pairs[key] = (g.grade, g.boards_in_window, g.status.value != "P")
    return players, pairs, as_of


def stored_rows() -> tuple[dict, dict]:
    players = {
        row.member.national_number: (
            (row.grade, row.status, row.band, row.boards_in_window, row.sessions_in_window),
            row.as_of,
        )
        for row in CurrentGrade.objects.select_related("member")
    }
    pairs = {
        (row.member_a.national_number, row.member_b.national_number): (
            (row.grade, row.boards_in_window, row.shown),
            row.as_of,
        )
        for row in PartnershipGrade.objects.select_related("member_a", "member_b")
    }
    return players, pairs


def same(a: tuple, b: tuple) -> bool:
    return all(
        math.isclose(x, y, abs_tol=1e-9) if isinstance(x, float) else x == y
        for x, y in zip(a, b, strict=True)
    )


@pytest.mark.parametrize(
    "today",
    [
        dt.date(2024, 1, 1),  # before the latest date of play: refreshed as of that date
        dt.date(2024, 6, 1),  # the 2021 field out of date (S14.7), its partnerships too
        dt.date(2025, 6, 1),  # windows passing the 2023 sessions
        dt.date(2027, 6, 1),  # everyone out of date
    ],
)
def test_the_refresh_writes_what_the_whole_fold_gives(ledger, today):
    players, pairs, as_of = expected_refresh(today)
    assert {"3001", "1001"} <= players.keys() and "1901" not in players
    assert len(pairs) > 16  # rotating partners: several per player
    refreshed = grades_refresh(today=today, batch=5)
    assert refreshed == len(players) + len(pairs)  # every stored row has its subject
    stored_players, stored_pairs = stored_rows()
    assert stored_players.keys() == players.keys() and stored_pairs.keys() == pairs.keys()
    for number, figures in players.items():
        assert same(stored_players[number][0], figures), number
        assert stored_players[number][1] == as_of
    for key, figures in pairs.items():
        assert same(stored_pairs[key][0], figures), key
        assert stored_pairs[key][1] == as_of
    assert ledger_check() == []


def test_the_refresh_moves_statuses_with_the_calendar(ledger):
    """The figures move: the 2021 field has no session in its window by 2024-06 and restarts
    at 50 (S14.7), everyone by 2027."""
    assert CurrentGrade.objects.get(member__national_number="3015").grade != 50.0
    grades_refresh(today=dt.date(2024, 6, 1))
    old = CurrentGrade.objects.get(member__national_number="3015")
    assert (old.grade, old.boards_in_window) == (50.0, 0)
    assert CurrentGrade.objects.get(member__national_number="1001").boards_in_window > 0
    grades_refresh(today=dt.date(2027, 6, 1))
    assert set(CurrentGrade.objects.values_list("boards_in_window", flat=True)) == {0}
    assert not PartnershipGrade.objects.filter(shown=True).exists()


@pytest.mark.parametrize(
    "as_of", [dt.date(2021, 3, 8), dt.date(2023, 6, 30), dt.date(2024, 3, 1), dt.date(2030, 1, 1)]
)
def test_grades_as_of_equal_the_whole_fold(ledger, as_of):
    """Every graded member's grade as of a date, past or future, equals the fold's. A member
    whose only session was taken by a correction has no grade (as in the stored grades; the
    old whole fold listed them at their initial grade)."""
    state = whole_fold()
    expected = {
        n: state.player_grade(n, as_of) for n, h in state.players.items() if h.session_count()
    }
    got = grades_as_of(as_of=as_of)
    assert got.keys() == expected.keys()
    assert "1901" in state.players and "1901" not in got
    for number, grade in expected.items():
        mine = got[number]
        assert mine.grade == pytest.approx(grade.grade, abs=1e-9), number
        assert (mine.status, mine.band, mine.boards_in_window, mine.sessions_in_window) == (
            grade.status,
            grade.band,
            grade.boards_in_window,
            grade.sessions_in_window,
        )


@pytest.fixture
def no_fold(monkeypatch):
    """Any fold of the ledger, or any decoding of a stored session, fails the test."""

    def fold(*_args, **_kwargs):
        raise AssertionError("the ledger was folded")

    for module, name in (
        (grading.engine.ngs.ledger, "_process"),
        (grading.engine.ngs.ledger, "_withdraw"),
        (grading.ledger.step, "subjects_rebuild"),
    ):
        monkeypatch.setattr(module, name, fold)
    load = codec.load

    def no_session(kind, data):
        assert kind is not SessionResult, "a stored session was decoded"
        return load(kind, data)

    monkeypatch.setattr(codec, "load", no_session)


def test_neither_folds_the_ledger(ledger, no_fold):
    assert grades_refresh(today=dt.date(2025, 6, 1)) > 0
    assert grades_as_of(as_of=dt.date(2025, 6, 1))


def test_the_refresh_reads_and_writes_one_batch_at_a_time(ledger, monkeypatch):
    """Memory bounded by the batch: each read is one batch of subjects and their own history
    rows, every row is read once, and each write holds at most one batch of figures."""
    reads: list[tuple[int, int]] = []  # (subjects, rows) of each read
    rows = subjects._rows

    def counted(batch_rows):
        mine = list(rows(batch_rows))
        reads.append((len(batch_rows), len(mine)))
        yield from mine

    writes: list[int] = []
    flush = refresh._flush
    monkeypatch.setattr(subjects, "_rows", counted)
    monkeypatch.setattr(
        refresh, "_flush", lambda c, p, q: writes.append(len(p) + len(q)) or flush(c, p, q)
    )
    batch = 4
    before = subjects.rows_read
    grades_refresh(today=dt.date(2025, 6, 1), batch=batch)
    total = LedgerSubject.objects.count()
    assert len(reads) == math.ceil(total / batch)
    assert all(n <= batch for n, _ in reads)
    assert sum(n for n, _ in reads) == total
    # a subject's read yields its history rows (one row for a subject with none left)
    empty = LedgerSubject.objects.exclude(pk__in=LedgerHistory.objects.values("subject_id")).count()
    assert sum(r for _, r in reads) == LedgerHistory.objects.count() + empty
    longest = max(
        LedgerHistory.objects.filter(subject_id=pk).count()
        for pk in LedgerSubject.objects.values_list("pk", flat=True)
    )
    assert all(r <= batch * max(longest, 1) for _, r in reads)
    assert subjects.rows_read - before == total + LedgerHistory.objects.count()
    assert max(writes) <= batch and sum(writes) == len(stored_rows()[0]) + len(stored_rows()[1])
