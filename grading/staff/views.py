"""Staff pages (S13: replay and parameters are staff business): the grading-quality report and
the NGS parameter sets (S9)."""

from __future__ import annotations

import json
import math

import plotly.graph_objects as go
import plotly.io as pio
from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from grading.common.access import staff_required
from grading.engine.ngs import PARAMETER_SETS
from grading.engine.quality import FR18_FIGURES
from grading.ledger.replay.check import refold_progress
from grading.staff.forms import ParametersChangeForm
from grading.staff.quality import quality_report
from grading.staff.selectors import parameters_overview
from grading.staff.services import ledger_refold_request, parameters_change

FR18_ROWS = ("Svar", "Rvar", "Gvar", "Evar", "Avar", "Svar-Gvar", "session_sd", "grading_error_sd")


def _figure_json(figure: go.Figure) -> dict:
    """The figure as plain JSON data, drawn by static/js/charts.js."""
    figure.update_layout(
        margin={"l": 50, "r": 20, "t": 40, "b": 40}, height=320, template="plotly_white"
    )
    return json.loads(pio.to_json(figure, validate=False))


def _charts(report: dict) -> dict[str, dict]:
    columns = [report] + ([report["compare"]] if report.get("compare") else [])
    charts = {}
    flat = go.Figure()
    labels = [label for label, _ in report["flatness_histogram"]]
    flat.add_bar(
        x=labels, y=[share for _, share in report["flatness_histogram"]], name="this database"
    )
    published = (68.7, 19.5, 6.0, 2.4, 1.4, 0.7, 0.9, 0.1, 0.0, 0.3)
    flat.add_bar(x=labels, y=list(published), name="FR 18 (2013-14)")
    flat.update_layout(title="Board flatness F (% of boards)", barmode="group")
    charts["flatness"] = _figure_json(flat)
    spread = go.Figure()
    for c in columns:
        spread.add_histogram(
            x=c["score_minus_par_values"], name=c["params"], opacity=0.6, xbins={"size": 2}
        )
    spread.update_layout(title="Match points: score - par (%)", barmode="overlay")
    charts["spread"] = _figure_json(spread)
    split = go.Figure()
    for c in columns:
        split.add_bar(
            x=list(FR18_ROWS), y=[_finite(c["fr18"].get(k)) for k in FR18_ROWS], name=c["params"]
        )
    split.add_bar(
        x=list(FR18_ROWS), y=[report["published"].get(k) for k in FR18_ROWS], name="FR 18 (2013-14)"
    )
    split.update_layout(title="Session variance split (FR 18)", barmode="group")
    charts["split"] = _figure_json(split)
    drift = go.Figure()
    for c in columns:
        drift.add_scatter(
            x=[d["month"] for d in c["drift"]],
            y=[d["mean_grade"] for d in c["drift"]],
            mode="lines+markers",
            name=f"{c['params']}: mean grade",
        )
    drift.update_layout(title="Grade drift: mean grade of those playing, by month")
    charts["drift"] = _figure_json(drift)
    return charts


def _finite(value):
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


@staff_required
def quality(request):
    """FR 18's figures on the stored grades; ``?params=`` replays with another parameter set."""
    params = (request.GET.get("params") or "").strip()
    error = ""
    try:
        report = quality_report(params=params or None)
    except (KeyError, ValueError) as exc:
        error = str(exc).strip("'\"")
        report = quality_report()
    columns = [report] + ([report["compare"]] if report.get("compare") else [])
    rows = [("F", [c["flatness"] for c in columns], report["published"]["F"])]
    rows += [
        (k, [c["fr18"].get(k) for c in columns], report["published"].get(k)) for k in FR18_FIGURES
    ]
    rows += [
        (
            "score - par sd (MP)",
            [c["score_minus_par_mp"]["sd"] for c in columns],
            report["published"]["session_sd"],
        )
    ]
    rows = [(label, [_finite(v) for v in values], paper) for label, values, paper in rows]
    context = {
        "report": report,
        "columns": [c["params"] for c in columns],
        "rows": rows,
        "charts": _charts(report),
        "params": params,
        "parameter_sets": sorted(PARAMETER_SETS),
        "error": error,
        "xrvar": _finite(report.get("xrvar")),
    }
    return render(request, "staff/quality.html", context)


@staff_required
def parameters(request):
    """The NGS parameter sets side by side, the active one, and the form to change it (S9,
    S13); a change refolds every grade in the background."""
    form = ParametersChangeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        name, reason = form.cleaned_data["params"], form.cleaned_data["reason"]
        try:
            parameters_change(params_name=name, user=request.user, reason=reason)
        except ValueError as refused:
            form.add_error(None, str(refused))
        else:
            messages.success(
                request,
                f"{name} is now the active parameter set. Every grade is being recomputed from "
                'the ledger with it: the refold appears under "Recent changes and refolds" '
                "when it has finished.",
            )
            return redirect("staff-parameters")
    progress = refold_progress()  # a refold running now: (entries done, entries)
    context = {"form": form, "refold_progress": progress, **parameters_overview()}
    return render(request, "staff/parameters.html", context)


@staff_required
@require_POST
def parameters_replay(request):
    """Replay the whole ledger now with the active set: every stored grade recomputed (S5.4)."""
    ledger_refold_request(user=request.user)
    messages.success(
        request,
        "The ledger is being replayed: every grade is being recomputed with the active set. "
        "The refold appears below when it has finished.",
    )
    return redirect("staff-parameters")
