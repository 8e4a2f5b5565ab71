"""NGS current grade: decay, padding, careers, statuses and bands (SPEC S4, S5.1, S14.5-8, S14.11)."""

from __future__ import annotations

import datetime as dt

import pytest

from grading.engine.ngs import (
    NGS_DEFAULT,
    History,
    HistoryEntry,
    Status,
    band,
    current_grade,
    decay_weights,
    regular_partner,
    years_before,
)

D0 = dt.date(2020, 3, 2)


def entry(seq, date, boards, grade, factor=1.0, partner=None):
    return HistoryEntry(seq, date, boards, grade, factor, partner)


def test_seed_padding_weights_after_one_session():
    """Seed 000 "Grade initialisation": one 24-board session weighs 24 x 1988, padding 276 x 1838."""
    assert decay_weights([24, 276]) == [24 * 1988, 276 * 1838]


def test_seed_one_session_grade_is_padded_to_300_boards():
    """Seed 000: CG = (a1 w1 + a2 w2) / (w1 + w2) with a2 the initial grade (S4, S5.1)."""
    cg = current_grade(History(42.0, (entry(1, D0, 24, 60.0),)), D0)
    w1, w2 = 24 * 1988, 276 * 1838
    assert cg.grade == pytest.approx((60.0 * w1 + 42.0 * w2) / (w1 + w2), abs=1e-12)
    assert cg.padding_boards == 276
    assert cg.status is Status.PROVISIONAL


def test_seed_weights_of_2000_boards_sum_to_two_million():
    """Seed 000 "Decay": the triangle's area is 2000 x 2000 / 2."""
    assert sum(decay_weights([24] * 90)) == pytest.approx(2_000_000)
    weights = decay_weights([1500, 800, 100])
    assert weights[1] == 500 * (2000 - 1500 - 250)  # the oldest kept session is cut to 500
    assert weights[2] == 0.0


def test_window_cut_keeps_exactly_2000_boards():
    """S4: sessions beyond the most recent 2000 boards do not count; the oldest is reduced."""
    days = [D0 + dt.timedelta(days=i) for i in range(90)]
    entries = [entry(i, d, 24, 40.0 if i < 10 else 60.0) for i, d in enumerate(days)]
    cg = current_grade(History(42.0, tuple(entries)), days[-1])
    # the 2000 most recent boards are 83 whole sessions and 8 boards of the 84th (index 6)
    assert cg.sessions_in_window == 84
    assert cg.grade == pytest.approx(60.0 - 20.0 * _tail_weight(), abs=1e-9)


def _tail_weight():
    """Share of the weight held by the 8 kept boards of a 40-grade session (index 6) plus the
    three whole 40-grade sessions after it (indices 7-9), oldest of the window."""
    kept = [24] * 80 + [24, 24, 24, 8]  # most recent first: 80 sessions at 60, 4 at 40
    weights = decay_weights(kept)
    return sum(weights[80:]) / sum(weights)


def test_same_day_sessions_weigh_each_board_equally():
    """S4: two sessions on one day form a block; each board gets the block's average height."""
    a = entry(1, D0, 24, 60.0)
    b = entry(2, D0, 12, 40.0)
    earlier = [entry(i + 10, D0 - dt.timedelta(days=i + 1), 24, 50.0) for i in range(20)]
    cg = current_grade(History(42.0, (a, b, *earlier)), D0)
    height = 2000 - 36 / 2
    num = 24 * height * 60 + 12 * height * 40
    den = 36 * height
    before = 36
    for e in earlier:
        w = e.boards * (2000 - before - e.boards / 2)
        num += w * e.grade
        den += w
        before += e.boards
    assert cg.grade == pytest.approx(num / den, abs=1e-12)


def test_event_factor_multiplies_weight_not_boards():
    """S3.10: a green-pointed session's weight is doubled; it still uses x boards of the window."""
    green = entry(1, D0, 24, 60.0, factor=2.0)
    club = entry(2, D0 - dt.timedelta(days=1), 300, 50.0)
    cg = current_grade(History(42.0, (green, club)), D0)
    w1 = 2 * 24 * (2000 - 12)
    w2 = 300 * (2000 - 24 - 150)
    assert cg.grade == pytest.approx((w1 * 60 + w2 * 50) / (w1 + w2), abs=1e-12)
    assert cg.padding_boards == 0


def test_three_year_window_and_leap_day():
    """S14.6: the window is (reference - 3 calendar years, reference]; 29 Feb - 3y = 28 Feb."""
    assert years_before(dt.date(2024, 2, 29), 3) == dt.date(2021, 2, 28)
    old = entry(1, dt.date(2021, 2, 28), 300, 40.0)
    new = entry(2, dt.date(2021, 3, 1), 300, 60.0)
    cg = current_grade(History(42.0, (old, new)), dt.date(2024, 2, 29))
    assert cg.grade == pytest.approx(60.0)
    assert cg.boards_in_window == 300


def test_statuses_evolving_mature_and_out_of_date():
    """S4 statuses: P below 300 once, E 300-999, M 1000+, out of date after falling below 300."""
    sessions = [entry(i, D0 + dt.timedelta(days=7 * i), 25, 50.0) for i in range(60)]
    assert current_grade(History(42.0, tuple(sessions[:11])), D0 + dt.timedelta(70)).status is (
        Status.PROVISIONAL
    )
    at = sessions[11].date
    assert current_grade(History(42.0, tuple(sessions[:12])), at).status is Status.EVOLVING
    at = sessions[39].date
    assert current_grade(History(42.0, tuple(sessions[:40])), at).status is Status.MATURE
    late = years_before(at, -3) - dt.timedelta(days=64)  # 9 sessions (225 boards) left
    cg = current_grade(History(42.0, tuple(sessions[:40])), late)
    assert cg.status is Status.OUT_OF_DATE
    assert cg.padding_boards == 0
    assert cg.boards_in_window < 300


def test_career_restart_after_three_idle_years():
    """S5.1, FR 11, S14.7: no session in 3 years shows 50; a new career pads with 50."""
    first = [entry(i, D0 + dt.timedelta(days=i), 30, 60.0) for i in range(12)]  # 360 boards
    idle = dt.date(2024, 6, 1)
    cg = current_grade(History(42.0, tuple(first)), idle)
    assert (cg.grade, cg.status) == (50.0, Status.OUT_OF_DATE)
    restart = entry(99, idle, 24, 58.0)
    cg = current_grade(History(42.0, (*first, restart)), idle)
    w1, w2 = 24 * 1988, 276 * 1838
    assert cg.grade == pytest.approx((58 * w1 + 50 * w2) / (w1 + w2), abs=1e-12)
    assert cg.status is Status.PROVISIONAL


def test_never_reached_300_shows_provisional_when_idle():
    """S14.7: a member whose last career never reached 300 shows 50, Provisional."""
    cg = current_grade(History(42.0, (entry(1, D0, 24, 60.0),)), dt.date(2024, 1, 1))
    assert (cg.grade, cg.status) == (50.0, Status.PROVISIONAL)


def test_no_history_is_initial_grade():
    """S5.1: a member with no graded session has their initial grade."""
    cg = current_grade(History(55.0), D0)
    assert cg.grade == 55.0 and cg.padding_boards == 300


@pytest.mark.parametrize(
    ("grade", "name"),
    [
        (38.99, "Two"),
        (39.0, "Three"),
        (48.994, "Seven"),
        (48.996, "Eight"),
        (50.0, "Eight"),
        (60.999, "Ace of Clubs"),
        (66.99, "Ace of Hearts"),
        (67.0, "Ace of Spades"),
    ],
)
def test_bands_from_grade_as_shown(grade, name):
    """S4 bands, lower bound inclusive, from the grade shown to 2 decimals (S14.11)."""
    assert band(grade) == name


def test_regular_partner_needs_strictly_more_than_85_percent():
    """S14.5: 20k > 17n; 17 of 20 is not regular, 18 of 20 is."""
    base = [entry(i, D0, 1, 50.0, partner="B") for i in range(17)]
    others = [entry(100 + i, D0, 1, 50.0, partner=f"X{i}") for i in range(3)]
    assert regular_partner(base + others, NGS_DEFAULT) is None
    assert regular_partner(base + [entry(50, D0, 1, 50, partner="B")] + others[:2]) == "B"
