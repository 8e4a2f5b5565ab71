"""The history's filters are written by ``members.forms.PlainSelect`` (issue 17): the same
select as Django's own widget, option by option, for any labels, values and choice."""

import django
from django import forms
from django.test.html import parse_html
from hypothesis import given, settings
from hypothesis import strategies as st

from members.forms import HistoryFilterForm, PlainSelect
from members.selectors.history import HistoryChoices

django.setup()

text = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=12)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(text, text), max_size=8),
    st.one_of(st.none(), text, st.integers(-3, 3)),
    st.dictionaries(
        st.sampled_from(["id", "class", "required", "data-x"]),
        st.one_of(text, st.booleans()),
        max_size=3,
    ),
)
def test_the_same_select_as_djangos(choices, value, attrs):
    choices = [("", "All"), *choices]
    mine = PlainSelect(choices=choices).render("partner", value, attrs)
    theirs = forms.Select(choices=choices).render("partner", value, attrs)
    assert parse_html(mine) == parse_html(theirs)


def test_the_filters_keep_what_was_chosen():
    choices = HistoryChoices(
        [(1, "Riverside & Co"), (2, "Hilltop")], [(7, "Ann <Lee>")], [2026, 2025]
    )
    form = HistoryFilterForm({"club": "2", "partner": "7", "year": "2025"}, choices=choices)
    assert form.is_valid()
    html = str(form["club"]) + str(form["partner"]) + str(form["year"])
    assert parse_html(html) == parse_html(
        '<select name="club" id="id_club"><option value="">All clubs</option>'
        '<option value="1">Riverside &amp; Co</option><option value="2" selected>Hilltop</option>'
        '</select><select name="partner" id="id_partner"><option value="">All partners</option>'
        '<option value="7" selected>Ann &lt;Lee&gt;</option></select>'
        '<select name="year" id="id_year"><option value="">All years</option>'
        '<option value="2026">2026</option><option value="2025" selected>2025</option></select>'
    )
