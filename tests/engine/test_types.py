"""Membership numbers as stored (S14.2)."""

import pytest

from grading.engine.types import (
    IMP_SCORING,
    NOT_GRADED_SCORING,
    PAIRS_SCORING,
    PERCENT_SCORING,
    SWISS_PAIRS_SCORING,
    TEAM_EVENT_SCORING,
    TEAMS_SCORING,
    Scoring,
    normalise_number,
)


@pytest.mark.parametrize(
    "raw, stored",
    [
        ("1001", "1001"),
        (" 00 1001 ", "1001"),
        ("0001001", "1001"),
        ("", None),
        ("0", None),
        ("000", None),
        ("-", None),
        (None, None),
        ("88888888", None),
        ("088888888", None),
        (" 8888 8888", None),  # unknown, however padded
        ("888888880", "888888880"),
    ],
)
def test_spaces_and_leading_zeros_are_stripped_before_unknown_is_decided(raw, stored):
    assert normalise_number(raw) == stored


def test_scoring_kinds_find_the_values_the_database_stores():
    """The scorings by kind (engine/types) are the one home the pages and selectors read too,
    with the plain ``str`` a model field holds: each value is found where its member is."""
    kinds = (IMP_SCORING, NOT_GRADED_SCORING, PAIRS_SCORING, PERCENT_SCORING)
    kinds += (SWISS_PAIRS_SCORING, TEAM_EVENT_SCORING, TEAMS_SCORING)
    for kind in kinds:
        for scoring in Scoring:
            assert (str(scoring.value) in kind) == (scoring in kind)
    graded = PAIRS_SCORING | SWISS_PAIRS_SCORING | TEAMS_SCORING
    assert graded | NOT_GRADED_SCORING == set(Scoring) and not graded & NOT_GRADED_SCORING
    assert TEAM_EVENT_SCORING - TEAMS_SCORING <= NOT_GRADED_SCORING
