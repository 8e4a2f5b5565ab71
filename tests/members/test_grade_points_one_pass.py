"""The grade chart's points in one pass (``members.selectors.card.grades_on_days``) equal the
reference: ``current_grade`` of the history as of each day (S4, S14.6-8), to 1e-9 (S14.11), on
random histories reaching the window's corners: the 2000-board cut (blocks of 500 and 1976
boards), big same-day blocks, gaps of more than 3 years (careers, restarts with their padding
values, "300 once", out-of-date), histories out of date order, days with no session and days
before the first."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grading.engine.ngs import NGS_2018, NGS_DEFAULT, History, HistoryEntry, current_grade
from members.selectors.card import grades_on_days

DAY0 = dt.date(2012, 2, 29)

entries = st.lists(
    st.tuples(
        st.integers(0, 4000),  # day offset: up to 11 years, so several careers
        st.sampled_from([1, 12, 24, 27, 100, 500, 1000, 1976]),
        st.floats(20, 80),
        st.sampled_from([1.0, 1.5, 2.0]),
        st.sampled_from([None, 45.0, 61.5]),  # the padding of a career this entry starts
    ),
    max_size=60,
)


def _history(initial: float, rows) -> History:
    # The sequence numbers are shuffled against the dates: entries are given in any order.
    return History(
        initial,
        tuple(
            HistoryEntry(seq, DAY0 + dt.timedelta(days=off), boards, grade, factor, None, pad)
            for seq, (off, boards, grade, factor, pad) in enumerate(rows[::-1], 1)
        ),
    )


@settings(max_examples=150, deadline=None)
@given(
    entries,
    st.floats(30, 70),
    st.lists(st.integers(-30, 5500), max_size=12),
    st.sampled_from([NGS_DEFAULT, NGS_2018]),
)
def test_one_pass_equals_the_grade_as_of_each_day(rows, initial, extra, params):
    history = _history(initial, rows)
    days = sorted(
        {e.date for e in history.entries} | {DAY0 + dt.timedelta(days=off) for off in extra}
    )
    got = grades_on_days(history, days, params)
    assert len(got) == len(days)
    for day, grade in zip(days, got, strict=True):
        expected = current_grade(history, day, params).grade
        assert grade == pytest.approx(expected, abs=1e-9), day


def test_a_decade_of_weekly_sessions():
    """A long history (ten years, two sessions a week, the 2000-board cut moving each time)."""
    rows = [
        HistoryEntry(n, DAY0 + dt.timedelta(days=3 * n + (n % 2)), 24 + n % 5, 40 + (n * 7) % 23)
        for n in range(1, 1200)
    ]
    history = History(47.5, tuple(rows))
    days = sorted({e.date for e in rows})
    got = grades_on_days(history, days, NGS_DEFAULT)
    for day, grade in list(zip(days, got, strict=True))[::37]:
        assert grade == pytest.approx(current_grade(history, day, NGS_DEFAULT).grade, abs=1e-9)
    assert got[-1] == pytest.approx(current_grade(history, days[-1], NGS_DEFAULT).grade, abs=1e-9)


def test_no_history_is_the_initial_grade_every_day():
    assert grades_on_days(History(52.0), [DAY0, DAY0 + dt.timedelta(days=9)], NGS_DEFAULT) == [
        52.0,
        52.0,
    ]
