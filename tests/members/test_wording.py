"""The smaller things of issue 30 item 10: suits only on the Aces' cards, the bands from Two,
counts that agree with their nouns, the admin's "ledger entries"."""

import pytest
from django.template.loader import render_to_string
from django.urls import reverse

from grading.models import LedgerEntry
from members.selectors.bands import band_card


@pytest.mark.parametrize("name", ["Two", "Seven", "Jack", "King"])
def test_a_band_below_the_aces_is_a_rank_without_a_suit(name):
    html = render_to_string("members/_card.html", {"band": band_card(name)})
    assert "pc-suit" not in html and "♠" not in html
    assert f'<span class="pc-rank">{band_card(name).rank}</span>' in html


@pytest.mark.parametrize("name, suit", [("Ace of Clubs", "♣"), ("Ace of Spades", "♠")])
def test_the_aces_keep_their_suits(name, suit):
    html = render_to_string("members/_card.html", {"band": band_card(name)})
    assert f'<span class="pc-suit">{suit}</span>' in html


@pytest.mark.django_db
def test_home_page_bands_start_at_two(client):
    body = client.get(reverse("home")).content.decode()
    assert "from Two up to the four Aces" in body and "from Jack" not in body


def test_one_session_is_singular():
    class Paginator:
        count = 1
        num_pages = 2

    class Page:
        number = 1
        paginator = Paginator()

        def has_other_pages(self):
            return True

        def has_previous(self):
            return False

        def has_next(self):
            return True

        def next_page_number(self):
            return 2

    html = render_to_string(
        "members/_history_content.html", {"rows": [], "page": Page(), "form": None}
    )
    assert "(1 session)" in html and "1 sessions" not in html


def test_ledger_entries_in_the_admin():
    assert LedgerEntry._meta.verbose_name_plural == "ledger entries"


def test_a_scheme_chart_has_its_figures_as_a_table():
    """Issue 30 item 7: every chart has a text alternative."""
    chart = {"data": [{"x": ["2026-01-05", "2026-02-02"], "y": [50.0, 53.25]}]}
    html = render_to_string(
        "schemes/_chart.html",
        {"chart": chart, "chart_id": "ppi-chart", "data_id": "d", "chart_label": "PPI"},
    )
    assert 'role="img" aria-label="PPI: the figures are in the table below the chart"' in html
    body = html[html.index("<tbody>") :]
    assert body.index("2 Feb 2026") < body.index("5 Jan 2026")  # newest first
    assert ">53.25<" in body and ">50<" in body
