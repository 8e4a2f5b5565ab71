"""Property tests for the scoring engine (SPEC S2.2-S2.6), with hypothesis."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import product

from hypothesis import given, settings
from hypothesis import strategies as st

from grading.engine.scoring import (
    Method,
    TravellerLine,
    butler_imps,
    cross_imps_exact,
    imps,
    matchpoints,
    matchpoints_by_frequency,
    neuberg_exact,
    parse_adjusted_score,
    score_board,
    score_session,
)

settings.register_profile("engine", deadline=None, max_examples=150)
settings.load_profile("engine")

points = st.integers(min_value=-250, max_value=250).map(lambda tens: tens * 10)
boards = st.lists(points, min_size=1, max_size=16)
# Narrow score ranges make ties common, which is where match points go wrong.
tie_heavy = st.lists(st.sampled_from([-620, -100, 0, 100, 110, 140, 420, 450]), min_size=1)
any_scores = st.one_of(boards, tie_heavy)


def plain(scores: list[int], ew_scores: list[int] | None = None) -> list[TravellerLine]:
    return [
        TravellerLine(
            1,
            f"N{i}",
            f"E{i}",
            ns_score=score,
            ew_score=None if ew_scores is None else ew_scores[i],
        )
        for i, score in enumerate(scores)
    ]


@given(any_scores)
def test_match_points_sum_to_n_times_n_minus_1(scores: list[int]) -> None:
    """S2.2: on a board with no adjustments the NS match points sum to n(n-1)."""
    n = len(scores)
    assert sum(matchpoints(scores)) == n * (n - 1)


@given(any_scores)
def test_frequency_method_equals_pairwise(scores: list[int]) -> None:
    """S2.2 / seed 004 Table D: the frequency-table method equals pairwise comparison."""
    assert matchpoints_by_frequency(scores) == matchpoints(scores)


@given(any_scores)
def test_score_board_mp_mirrors(scores: list[int]) -> None:
    """S2.2: NS + EW = top on every line; NS are Law 78A's numbers, EW those of the negated
    scores."""
    result = score_board(plain(scores), Method.MP)
    assert [line.ns for line in result.lines] == matchpoints(scores)
    assert [line.ew for line in result.lines] == matchpoints([-s for s in scores])
    assert all(line.ns + line.ew == result.top for line in result.lines)


@given(any_scores, st.data())
def test_neuberg_with_n_equal_expected_changes_nothing(
    scores: list[int], data: st.DataObject
) -> None:
    """S2.3: with every expected score present Neuberg is the identity; with fewer, the
    group's average stays the board's average (half the top)."""
    n = len(scores)
    for mp in matchpoints(scores):
        assert neuberg_exact(mp, n, n) == mp
    expected = data.draw(st.integers(min_value=n, max_value=n + 30))
    factored = [neuberg_exact(mp, n, expected) for mp in matchpoints(scores)]
    assert sum(factored) == n * (expected - 1)


@given(any_scores)
def test_cross_imp_totals_sum_to_zero(scores: list[int]) -> None:
    """S2.5: every comparison is counted once each way, so the totals sum to zero."""
    assert sum(cross_imps_exact(scores)) == 0
    result = score_board(plain(scores), Method.CROSS_IMP)
    assert sum(line.ns for line in result.lines) == 0
    assert [line.ns for line in result.lines] == cross_imps_exact(scores, average=True)
    assert all(line.ns == -line.ew for line in result.lines)


@given(any_scores, st.integers(min_value=0, max_value=3))
def test_butler_sides_mirror(scores: list[int], drop: int) -> None:
    """S2.5: NS get IMP(score - datum), EW the negative."""
    result = score_board(plain(scores), Method.BUTLER, drop=drop)
    assert [line.ns for line in result.lines] == butler_imps(scores, drop)
    assert all(line.ns == -line.ew for line in result.lines)


@given(st.integers(min_value=-8000, max_value=8000), st.integers(min_value=0, max_value=8000))
def test_imps_odd_and_monotone(difference: int, more: int) -> None:
    """S2.1: the scale is symmetric in sign and never decreases with the difference."""
    assert imps(-difference) == -imps(difference)
    assert imps(difference + more) >= imps(difference)
    assert 0 <= imps(abs(difference)) <= 24


@given(st.lists(st.tuples(points, points), min_size=1, max_size=12))
def test_split_scores_use_each_directions_own_table(pairs: list[tuple[int, int]]) -> None:
    """S2.6 / seed 004 Table H: with split scores NS are scored on the NS scores alone and EW
    on the EW scores alone, at match points, Butler and cross-IMPs."""
    ns_scores = [ns for ns, _ in pairs]
    ew_scores = [ew for _, ew in pairs]
    for method in (Method.MP, Method.BUTLER, Method.CROSS_IMP, Method.AGGREGATE):
        split = score_board(plain(ns_scores, ew_scores), method)
        ns_only = score_board(plain(ns_scores), method)
        ew_only = score_board(plain(ew_scores), method)
        assert [line.ns for line in split.lines] == [line.ns for line in ns_only.lines]
        assert [line.ew for line in split.lines] == [line.ew for line in ew_only.lines]


weightings = st.lists(
    st.tuples(st.integers(min_value=1, max_value=5), points), min_size=1, max_size=3
).map(
    lambda parts: tuple(
        (Fraction(weight, sum(w for w, _ in parts)), score) for weight, score in parts
    )
)


@given(boards, st.lists(weightings, min_size=1, max_size=2))
def test_weighted_scores_equal_the_weighted_frequency_tables(
    others: list[int], weighted: list[tuple[tuple[Fraction, int], ...]]
) -> None:
    """S2.6 / seed 004 Tables I-K: every line's result is the weighted average, over the
    frequency tables that each combination of components makes, of that table's result
    (for one weighted line exactly the seed's Table I; for two, the product of weights)."""
    weighted_lines = [
        TravellerLine(1, f"W{k}", f"V{k}", ns_weighted=weighting)
        for k, weighting in enumerate(weighted)
    ]
    lines = weighted_lines + plain(others)
    for method in Method:
        actual = score_board(lines, method)
        expected_ns = [Fraction(0)] * len(lines)
        expected_ew = [Fraction(0)] * len(lines)
        for combination in product(*weighted):
            probability = math.prod((w for w, _ in combination), start=Fraction(1))
            table_lines = [
                TravellerLine(1, f"W{k}", f"V{k}", ns_score=score)
                for k, (_, score) in enumerate(combination)
            ] + plain(others)
            table = score_board(table_lines, method)
            for i, line in enumerate(table.lines):
                expected_ns[i] += probability * line.ns
                expected_ew[i] += probability * line.ew
        assert [line.ns for line in actual.lines] == expected_ns
        assert [line.ew for line in actual.lines] == expected_ew


@given(st.lists(st.lists(points, min_size=4, max_size=4), min_size=1, max_size=6))
def test_complete_mitchell_averages_fifty_per_direction(traveller_scores: list[list[int]]) -> None:
    """S2.2, S3.3: in a two-winner movement with every board played by every table and no
    adjustments, each direction's percentages average exactly 50."""
    travellers = [
        [
            TravellerLine(board, f"{table}NS", f"{(table + board) % 4}EW", ns_score=score)
            for table, score in enumerate(scores)
        ]
        for board, scores in enumerate(traveller_scores, start=1)
    ]
    result = score_session(travellers, Method.MP)
    for direction in ("NS", "EW"):
        percentages = [
            pair.percentage_exact
            for pair in result.values()
            if pair.directions == frozenset({direction})
        ]
        assert len(percentages) == 4
        assert sum(p for p in percentages if p is not None) == 200


@given(st.integers(min_value=0, max_value=99), st.integers(min_value=0, max_value=99))
def test_combined_adjusted_codes_round_trip(ns: int, ew: int) -> None:
    """S2.4: any combined code A<NS%><EW%> reads back as its two percentages."""
    assert parse_adjusted_score(f"A{ns:02d}{ew:02d}") == (ns, ew)
    assert parse_adjusted_score(f"a{ns:02d}") == (ns, None)
