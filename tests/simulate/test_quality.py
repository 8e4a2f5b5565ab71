"""The quality report's arithmetic on tiny hand-made cases (values worked out by hand)."""

import datetime as dt
import math

import pytest

from grading.engine.quality import (
    GroupSample,
    board_flatness,
    cross_imp_xrvar,
    drift_by_month,
    flatness_histogram,
    fr18,
    maxvar,
    mpp,
    spread,
    truth_errors,
)


def test_board_flatness_by_hand():
    # 100, 100, 200, 300: match points 1, 1, 4, 6 on a top of 6 -> 16.67, 16.67, 66.67, 100 %;
    # mean 50, population variance (1111.1 + 1111.1 + 277.8 + 2500) / 4 = 1250;
    # maxvar(4) = 833.33 x 5/3 = 1388.9, so F = 0.9.
    assert mpp([100, 100, 200, 300]) == pytest.approx([100 / 6, 100 / 6, 400 / 6, 100])
    assert maxvar(4) == pytest.approx(1388.8889, abs=1e-3)
    assert board_flatness([100, 100, 200, 300]) == pytest.approx(0.9)
    assert board_flatness([10, 20, 30]) == pytest.approx(1.0)  # no ties: the maximum
    assert board_flatness([420] * 5) == 0.0  # everyone the same
    assert board_flatness([420]) is None


def test_flatness_histogram_uses_fr18_bins():
    histogram = dict(flatness_histogram([0.95, 0.91, 0.85, 0.0]))
    assert histogram["0.9-1.0"] == 50 and histogram["0.8-0.9"] == 25 and histogram["0.0-0.1"] == 25


def test_fr18_variance_split_by_hand():
    # Population variances within each comparison group (FR 18's convention).
    # Group 1: scores 60/50/40 -> Svar 200/3; pars 52/50/48 -> Gvar 8/3; Rvar = 0.9 x 1388.9
    # / 10 = 125; score - par 8/0/-8 -> Avar 128/3. Group 2: 55/45 -> Svar 25; pars 51/49 ->
    # Gvar 1; residuals 4/-4 -> Avar 16.
    one = GroupSample((60, 50, 40), (52, 50, 48), (52, 50, 48), 0.9, 4, 10)
    two = GroupSample((55, 45), (51, 49), (51, 49), 0.9, 4, 10)
    assert one.svar == pytest.approx(200 / 3) and one.gvar == pytest.approx(8 / 3)
    assert one.avar == pytest.approx(128 / 3) and one.rvar == pytest.approx(125)
    split = fr18([one, two], min_pairs=2)
    assert split.groups == 2
    assert split.svar == pytest.approx(275 / 6) and split.gvar == pytest.approx(11 / 6)
    assert split.rvar == pytest.approx(125)
    assert split.evar == pytest.approx(-81)  # mean of 66.67-125-2.67 = -61 and 25-125-1 = -101
    assert split.evar_ci == pytest.approx(1.96 * 20)  # sample sd of (-61, -101) 28.28, / sqrt 2
    assert split.grading_error_sd == 0.0  # a negative Evar estimate: no measurable error
    assert split.avar == pytest.approx(88 / 3) and split.svar_minus_gvar == pytest.approx(44)
    assert split.session_sd == pytest.approx(math.sqrt(125))
    assert fr18([two]).groups == 0  # fewer than 3 pairs by default


def test_spread_and_drift_by_hand():
    s = spread([2.0, -2.0, 6.0])
    assert (s.n, s.mean) == (3, 2.0) and s.sd == pytest.approx(4.0)
    rows = drift_by_month(
        [
            (dt.date(2025, 1, 5), 40.0, 1.0),
            (dt.date(2025, 1, 20), 44.0, -1.0),
            (dt.date(2025, 2, 1), 50.0, None),
        ]
    )
    assert rows[0] == {"month": "2025-01", "n": 2, "mean_grade": 42.0, "mean_excess": 0.0}
    assert (
        rows[1]["month"] == "2025-02" and rows[1]["n"] == 1 and math.isnan(rows[1]["mean_excess"])
    )


def test_truth_errors_by_hand():
    grades = [("1", 50.0, "E"), ("2", 46.0, "E"), ("3", 40.0, "P"), ("9", 45.0, "E")]
    truth = {"1": 52.0, "2": 47.0, "3": 44.0}  # member 9 is not in the truth: left out
    rows = {r.status: r for r in truth_errors(grades, truth)}
    # Errors -2, -1, -4: the overall offset is -7/3.
    assert rows["E"].n == 2 and rows["E"].bias == -1.5
    assert rows["E"].rmse == pytest.approx(math.sqrt(2.5))
    assert rows["E"].centred_rmse == pytest.approx(math.sqrt(((1 / 3) ** 2 + (4 / 3) ** 2) / 2))
    assert rows["E"].correlation == pytest.approx(1.0)
    assert rows["P"].bias == -4 and math.isnan(rows["P"].correlation)
    assert rows["all"].bias == pytest.approx(-7 / 3)
    assert rows["all"].rmse == pytest.approx(math.sqrt(7))
    assert rows["all"].correlation == pytest.approx(39.333 / math.sqrt(50.667 * 32.667), abs=1e-3)


def test_cross_imp_xrvar_by_hand():
    # 420, 420, -50: averaged cross-IMPs 5, 5, -10 (470 is 10 IMPs); population variance 50;
    # XRvar = 50 x (n-1)/n = 33.33. Edges of +-1 IMP a board take their variance 2/3 off first.
    assert cross_imp_xrvar([([420, 420, -50], [0, 0, 0])], 6.12) == pytest.approx(100 / 3)
    edges = [6.12, 0.0, -6.12]
    assert cross_imp_xrvar([([420, 420, -50], edges)], 6.12) == pytest.approx((50 - 2 / 3) * 2 / 3)


def test_warnings_where_the_data_cannot_support_the_split():
    """Issue 30: on 2 comparison groups the report showed a negative Evar and a zero Gvar with
    no word."""
    from grading.engine.quality import MIN_GROUPS, fr18_warnings, spread_warnings

    one = GroupSample((60, 50, 40), (52, 50, 48), (52, 50, 48), 0.9, 4, 10)
    two = GroupSample((55, 45), (51, 49), (51, 49), 0.9, 4, 10)
    words = " ".join(fr18_warnings(fr18([one, two], min_pairs=2)))
    assert "Only 2 comparison groups" in words and f"{MIN_GROUPS} or more" in words
    assert "Evar is negative (-81.00)" in words
    assert "Gvar is zero" not in words
    flat = GroupSample((60, 50, 40), (50, 50, 50), (50, 50, 50), 0.9, 4, 10)
    assert any("Gvar is zero" in w for w in fr18_warnings(fr18([flat])))
    assert "cannot be worked out" in fr18_warnings(fr18([]))[0]
    many = [one] * MIN_GROUPS
    assert not any("comparison group" in w for w in fr18_warnings(fr18(many)))
    assert spread_warnings("x", spread([1.0])) and not spread_warnings("x", spread([1.0, 2.0]))


def test_a_what_if_that_moves_nothing_says_so():
    from grading.engine.quality import what_if_warnings

    stored = {"F": 0.9, "Evar": math.nan, "sd": 6.5}
    assert what_if_warnings(stored, {"F": 0.9, "Evar": math.nan, "sd": 6.5001})
    assert not what_if_warnings(stored, {"F": 0.9, "Evar": math.nan, "sd": 6.6})
    assert not what_if_warnings(stored, {"F": 0.9, "Evar": 1.0, "sd": 6.5})
