"""Plotly figures of the club pages, built in Python; the page loads plotly.js from /static/."""

from __future__ import annotations

import datetime as dt
import json

import plotly.graph_objects as go
import plotly.io as pio
from django.utils.html import format_html, json_script

from clubs.selectors.bands import BandDistribution
from clubs.selectors.sessions import SeriesPoint

CONFIG = {
    "displaylogo": False,
    "responsive": True,
    "modeBarButtonsToRemove": ["select2d", "lasso2d"],
}
LAYOUT = {
    "margin": {"l": 50, "r": 20, "t": 40, "b": 40},
    "height": 320,
    "template": "plotly_white",
    "legend": {"orientation": "h", "y": -0.18},
    "font": {"family": "system-ui, sans-serif", "size": 13},
}


def _html(fig: go.Figure, div_id: str, label: str) -> str:
    """The figure as a JSON data block and the element static/js/charts.js draws it in (no
    inline script: the Content-Security-Policy forbids them). The element is an image to a
    screen reader, named by ``label``; the page gives its figures as a table beside it."""
    figure = json.loads(pio.to_json(fig, validate=False))
    figure["config"] = CONFIG
    data_id = f"{div_id}-data"
    return format_html(
        '<div id="{}" class="plotly-graph-div" role="img" aria-label="{}" data-plotly="{}"></div>{}',
        div_id,
        label,
        data_id,
        json_script(figure, data_id),
    )


def sof_chart(name: str, points: list[SeriesPoint], *, window: int, div_id: str) -> str:
    """SoF of each session of a series over time, with the rolling average of ``window``."""
    dates = [p.date.isoformat() for p in points]
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=dates,
            y=[round(p.sof, 2) for p in points],
            mode="markers+lines",
            name="SoF",
            line={"width": 1, "color": "#9db4c8"},
            marker={"size": 7, "color": "#1f5f8b"},
            text=[p.label for p in points],
            hovertemplate="%{x}<br>SoF %{y:.2f}<extra></extra>",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=dates,
            y=[round(p.rolling, 2) for p in points],
            mode="lines",
            name=f"Rolling average ({window} sessions)",
            line={"width": 3, "color": "#c2410c"},
            hovertemplate="%{x}<br>average %{y:.2f}<extra></extra>",
        )
    )
    title = f"{name}: strength of field"  # the page's heading above the chart, not plotly's
    fig.update_layout(**{**LAYOUT, "margin": {**LAYOUT["margin"], "t": 16}})
    fig.update_yaxes(title_text="SoF (average grade)")
    fig.update_xaxes(type="date", tickformat="%-d %b %Y")
    if len({p.date for p in points}) == 1:  # one day: a fortnight either side, not milliseconds
        day = points[0].date
        fig.update_xaxes(
            range=[
                dt.date.fromordinal(max(1, day.toordinal() - 14)).isoformat(),
                dt.date.fromordinal(min(dt.date.max.toordinal(), day.toordinal() + 14)).isoformat(),
            ]
        )
    label = (
        f"{title}, {len(points)} graded session{'s' if len(points) != 1 else ''} from "
        f"{points[0].date:%-d %b %Y} to {points[-1].date:%-d %b %Y}: the figures are in the "
        "table below the chart."
    )
    return _html(fig, div_id, label)


def band_chart(distribution: BandDistribution, *, club_name: str, div_id: str) -> str:
    """Share of published grades by band, the club beside everyone (suppressed groups empty).
    "" when no band has a group large enough to show."""
    if not any(row.club_share or row.national_share for row in distribution.rows):
        return ""
    bands = [row.band for row in distribution.rows]
    fig = go.Figure()
    fig.add_trace(
        go.Bar(
            x=bands,
            y=[row.club_share for row in distribution.rows],
            name=club_name,
            marker_color="#1f5f8b",
            hovertemplate="%{x}: %{y:.1f}%<extra></extra>",
        )
    )
    fig.add_trace(
        go.Bar(
            x=bands,
            y=[row.national_share for row in distribution.rows],
            name="National",
            marker_color="#9db4c8",
            hovertemplate="%{x}: %{y:.1f}%<extra></extra>",
        )
    )
    fig.update_layout(barmode="group", title={"text": "Published grades by band", "x": 0}, **LAYOUT)
    fig.update_yaxes(title_text="% of published grades")
    label = f"Published grades by band, {club_name} beside all clubs: the figures are in the table below."
    return _html(fig, div_id, label)
