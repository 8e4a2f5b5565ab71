"""A chart's figures as rows, for the table that is its text alternative (issue 30: every chart
has one). Reads the plain figure dicts the pages already build; draws nothing."""

import datetime as dt

from django import template
from django.utils.safestring import SafeString

from members.charts import xy_rows

register = template.Library()


@register.filter
def chart_points(chart: dict | None) -> list[tuple[object, object]]:
    """(x, y) of the figure's first trace, newest first; an ISO date x becomes a date."""
    if not chart or not chart.get("data"):
        return []
    trace = chart["data"][0]
    rows = []
    for x, y in zip(trace.get("x") or [], trace.get("y") or [], strict=False):
        if isinstance(x, str):
            try:
                x = dt.date.fromisoformat(x[:10])
            except ValueError:
                pass
        rows.append((x, y))
    return rows[::-1]


@register.filter
def chart_rows(chart: dict | None) -> SafeString:
    """``chart_points`` as the figures table's rows (``members.charts.xy_rows``)."""
    return xy_rows(chart_points(chart))
