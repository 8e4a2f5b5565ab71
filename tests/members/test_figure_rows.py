"""The grade card's figures table is written in Python (``members.charts.figure_rows``, issue
17): the same text as the template it replaced, for any points; and ``two_decimals`` is
``floatformat:2`` to the character."""

import datetime as dt

import django
from django.template import Context, Template
from django.template.defaultfilters import floatformat
from hypothesis import given, settings
from hypothesis import strategies as st

from members.charts import figure_rows, two_decimals
from members.selectors.card import ChartPoint

django.setup()

TEMPLATE = Template(
    '{% for p in points reversed %}<tr><td>{{ p.date|date:"j M Y" }}</td>'
    '<td>{{ p.event }}, {{ p.club }}</td><td class="num">{{ p.grade|floatformat:2 }}</td></tr>'
    "{% endfor %}"
)
grades = st.one_of(
    st.floats(0, 100, allow_nan=False),
    st.floats(-1e9, 1e9, allow_nan=False, allow_infinity=False),
    st.integers(0, 10_000).map(lambda n: n / 1000),  # the halves: x.xx5
)


@settings(max_examples=500, deadline=None)
@given(grades)
def test_two_decimals_is_floatformat_2(value):
    assert two_decimals(value) == floatformat(value, 2)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.dates(dt.date(2000, 1, 1), dt.date(2040, 12, 31)),
            grades,
            st.text(max_size=10),
            st.text(max_size=10),
        ),
        max_size=30,
    )
)
def test_the_rows_are_the_templates(rows):
    points = [ChartPoint(date, grade, event, club) for date, grade, event, club in rows]
    assert figure_rows(points) == TEMPLATE.render(Context({"points": points}))
