"""Plotly figures of the member and public pages, built in Python and embedded as JSON."""

from __future__ import annotations

import datetime as dt
import functools
import json
import math
from decimal import ROUND_HALF_UP, Context, Decimal
from html import escape as html_escape

import plotly.graph_objects as go
from django.template.defaultfilters import date as date_filter
from django.template.defaultfilters import floatformat
from django.utils.formats import date_format
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

from members.selectors.bands import band_limits
from members.selectors.card import ChartPoint
from members.selectors.public import Distribution

SHADES = ("rgba(31, 95, 139, 0.10)", "rgba(31, 95, 139, 0.03)")
FONT = {"family": "system-ui, -apple-system, Segoe UI, Roboto, sans-serif", "size": 13}


def _as_dict(fig: go.Figure) -> dict:
    return json.loads(fig.to_json())


CENT = Decimal("0.01")


def two_decimals(value: float) -> str:
    """``value|floatformat:2`` (half up, on the shortest decimal of the float), without the
    filter's localisation machinery: the same text (tested equal) at a fraction of the cost."""
    number = Decimal(repr(value))
    _, digits, exponent = number.as_tuple()
    if not number.is_finite() or len(digits) + abs(exponent) > 200:
        return floatformat(value, 2)  # the filter writes such a number as it is
    # Enough digits for the whole number and its cents: 1e27 took /me/ down (issue 32 item 5).
    places = Context(prec=max(28, len(digits) + exponent + 3))
    text = format(number.quantize(CENT, ROUND_HALF_UP, context=places), "f")
    return "0.00" if text == "-0.00" else text


def whole_or_two_decimals(value) -> str:
    """``value|floatformat:"-2"``: a whole number without decimals, any other to 2 decimals
    (``two_decimals``), the same text (tested equal) without the filter's machinery."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return floatformat(value, -2)
    if isinstance(value, float) and not math.isfinite(value):
        return floatformat(value, -2)
    number = Decimal(repr(value))
    if number == number.to_integral_value():
        return str(int(number))
    return two_decimals(value)


def _months() -> dict[int, str]:
    return _month_names(get_language())


@functools.lru_cache(maxsize=16)
def _month_names(language: str | None) -> dict[int, str]:
    # date_format costs about a millisecond a month: once per language, not once per table
    return {m: date_format(dt.date(2000, m, 1), "M") for m in range(1, 13)}


def _day(x, months: dict[int, str]) -> object:
    """``x|date:"j M Y"`` for a date (the month's name from ``months``), ``x`` otherwise."""
    if isinstance(x, dt.date):
        return f"{x.day} {months[x.month]} {x.year}"
    return date_filter(x, "j M Y") if getattr(x, "year", None) else x


def _text(value) -> str:
    """``{{ value }}`` in a template: escaped (a safe string as it is). Django's ``escape`` is
    the standard library's behind its lazy-string wrapper, which cost most of a decade's
    figures tables on a cold grade card (issue 31, docs/benchmarks.md)."""
    if hasattr(value, "__html__"):
        return value.__html__()
    return html_escape(str(value))


def figure_rows(points: list[ChartPoint]) -> SafeString:
    """The chart's figures as table rows, newest first: date (``j M Y``), event and club, grade
    to 2 decimals. Written without a template per row: a decade of points made that most of
    the grade card's first rendering (issue 17)."""
    months = _months()
    return mark_safe(  # noqa: S308 - every value escaped by _text
        "".join(
            f"<tr><td>{_text(_day(p.date, months))}</td><td>{_text(p.event)}, "
            f'{_text(p.club)}</td><td class="num">{_text(two_decimals(p.grade))}</td></tr>'
            for p in reversed(points)
        )
    )


def xy_rows(points: list[tuple[object, object]]) -> SafeString:
    """A small chart's figures (``chartfigures.chart_points``) as table rows: the date as
    ``j M Y`` (any other x as it is) and the value as ``floatformat:"-2"``. Written without a
    template per row: a decade of PPI points made that most of the grade card's rendering."""
    months = _months()
    return mark_safe(  # noqa: S308 - every value escaped by _text
        "".join(
            f"<tr><td>{_text(_day(x, months))}</td>"
            f'<td class="num">{_text(whole_or_two_decimals(y))}</td></tr>'
            for x, y in points
        )
    )


def grade_chart(points: list[ChartPoint]) -> dict:
    """The grade at the end of each day played (as of that day, from every result known now),
    with the band boundaries shaded (S4).

    Built as a plain figure dict: plotly.py's per-shape validation cost most of the grade
    card's time (docs/benchmarks.md), and plotly.js needs nothing more than this.
    """
    grades = [p.grade for p in points]
    low = min(grades, default=45) - 1.5
    high = max(grades, default=55) + 1.5
    shapes, annotations = [], []
    for i, (name, lower, upper) in enumerate(band_limits()):
        y0, y1 = (lower if lower is not None else 0.0), (upper if upper is not None else 100.0)
        if y1 <= low or y0 >= high:
            continue
        shapes.append(
            {
                "type": "rect",
                "xref": "paper",
                "x0": 0,
                "x1": 1,
                "yref": "y",
                "y0": y0,
                "y1": y1,
                "fillcolor": SHADES[i % 2],
                "line": {"width": 0},
                "layer": "below",
            }
        )
        annotations.append(
            {
                "x": 1,
                "xref": "paper",
                "xanchor": "right",
                "yref": "y",
                "y": (max(y0, low) + min(y1, high)) / 2,
                "text": name,
                "showarrow": False,
                "font": {"size": 11, "color": "#5b6575"},
            }
        )
    trace = {
        "type": "scatter",
        "x": [p.date.isoformat() for p in points],
        "y": grades,
        "mode": "lines+markers",
        "name": "Grade",
        "line": {"color": "#1f5f8b", "width": 2},
        "marker": {"size": 6},
        "customdata": [[p.event, p.club] for p in points],
        "hovertemplate": "%{x|%d %b %Y}<br>%{y:.2f}<br>%{customdata[0]}, %{customdata[1]}"
        "<extra></extra>",
    }
    layout = {
        "margin": {"l": 45, "r": 10, "t": 10, "b": 40},
        "height": 340,
        "showlegend": False,
        "yaxis": {"title": {"text": "Grade (%)"}, "range": [low, high], "fixedrange": True},
        "xaxis": {"fixedrange": True, "type": "date"},
        "font": FONT,
        "plot_bgcolor": "#fff",
        "paper_bgcolor": "#fff",
        "shapes": shapes,
        "annotations": annotations,
    }
    return {"data": [trace], "layout": layout}


def band_chart(distribution: Distribution) -> dict:
    """Members by band (counts only; suppressed bands are drawn empty and labelled, S7)."""
    names = [b.band.name for b in distribution.bands]
    counts = [b.count if b.count is not None else 0 for b in distribution.bands]
    labels = [b.text if b.count else ("<5" if b.count is None else "") for b in distribution.bands]
    fig = go.Figure(
        go.Bar(
            x=names,
            y=counts,
            text=labels,
            textposition="outside",
            marker_color="#1f5f8b",
            hovertemplate="%{x}: %{text}<extra></extra>",
        )
    )
    fig.update_layout(
        margin={"l": 40, "r": 10, "t": 20, "b": 90},
        height=360,
        font=FONT,
        yaxis={"title": "Members", "fixedrange": True, "rangemode": "tozero"},
        xaxis={"tickangle": -45, "fixedrange": True},
        plot_bgcolor="#fff",
        paper_bgcolor="#fff",
    )
    return _as_dict(fig)
