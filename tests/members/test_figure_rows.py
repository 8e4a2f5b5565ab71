"""The grade card's figures tables are written in Python (``members.charts.figure_rows`` for the
NGS chart, issue 17; ``xy_rows`` for the PPI and Brambledown charts, issue 31): the same text
as the templates they replaced, for any points; ``two_decimals`` is ``floatformat:2`` and
``whole_or_two_decimals`` ``floatformat:"-2"`` to the character."""

import datetime as dt

import django
from django.template import Context, Template
from django.template.defaultfilters import floatformat
from hypothesis import given, settings
from hypothesis import strategies as st

from members.charts import figure_rows, two_decimals, whole_or_two_decimals, xy_rows
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


XY_TEMPLATE = Template(
    '{% for x, y in points %}<tr><td>{% if x.year %}{{ x|date:"j M Y" }}{% else %}{{ x }}'
    '{% endif %}</td><td class="num">{{ y|floatformat:"-2" }}</td></tr>{% endfor %}'
)
values = st.one_of(
    grades,
    st.integers(-(10**12), 10**12),
    st.integers(-500, 500).map(float),  # whole floats: no decimals
    st.sampled_from([None, "n/a", float("nan"), float("inf"), -0.0, 1e27]),
)


@settings(max_examples=500, deadline=None)
@given(values)
def test_whole_or_two_decimals_is_floatformat_minus_2(value):
    assert whole_or_two_decimals(value) == floatformat(value, "-2")


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(
                st.dates(dt.date(2000, 1, 1), dt.date(2040, 12, 31)),
                st.datetimes(dt.datetime(2000, 1, 1), dt.datetime(2040, 12, 31)),
                st.text(max_size=10),
                st.integers(0, 99),
            ),
            values,
        ),
        max_size=30,
    )
)
def test_the_chart_rows_are_the_templates(rows):
    assert xy_rows(rows) == XY_TEMPLATE.render(Context({"points": rows}))
