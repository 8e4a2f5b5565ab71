"""Membership numbers as stored (S14.2)."""

import pytest

from grading.engine.types import normalise_number


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
