"""Counts on the pages are written with their thousands separated ("37,377 boards in all"), as
a reader writes them (docs/decisions.md, "Counts are written with a thousands separator")."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.template import Context, Template
from django.template.loader import render_to_string

from members.selectors.bands import band_card, status_info
from members.selectors.base import count_text
from members.selectors.public import BandCount, Distribution


@pytest.mark.parametrize(
    ("value", "written"),
    [
        (0, "0"),
        (999, "999"),
        (1000, "1,000"),
        (37377, "37,377"),
        (1234567, "1,234,567"),
        (-1500, "-1,500"),
        (None, ""),
        ("n/a", "n/a"),
        (True, "True"),
    ],
)
def test_a_count_is_written_with_its_thousands_separated(value, written):
    assert count_text(value) == written


def test_the_templates_filter_writes_a_count_so():
    template = Template("{% load figures %}{{ n|count }} boards")
    assert template.render(Context({"n": 12500})) == "12,500 boards"
    assert template.render(Context({"n": None})) == " boards"


def test_the_ppi_card_writes_a_decade_s_boards_with_a_separator():
    ppi = SimpleNamespace(
        ppi=55.1,
        text="55.10%",
        suit=None,
        provisional=False,
        boards=37377,
        recent_boards=1204,
        active=True,
        chart=None,
    )
    html = render_to_string("schemes/ppi_card.html", {"schemes": SimpleNamespace(ppi=ppi)})
    assert "37,377 boards in all, 1,204 in the last 3 months" in html


def test_the_status_meanings_write_their_board_counts_with_a_separator():
    assert status_info("M", 1200).meaning.startswith("1,000 or more boards in the last 3 years")
    assert status_info("E", 408).meaning.startswith("300 to 999 boards in the last 3 years")


def test_the_national_band_counts_are_written_with_a_separator():
    band = band_card("Two")
    assert BandCount(band, 12345).text == "12,345"
    assert BandCount(band, None).text == "fewer than 5"
    assert Distribution("National", "", [], False, private=4321).private_text == "4,321"
