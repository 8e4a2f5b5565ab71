"""Reads for the staff parameters page (S9, S9.1, S13): the active NGS parameter set, every
named set field by field, and the audit log's parameter changes and refolds (issue 10)."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

from grading.engine.ngs import NGS_DEFAULT, PARAMETER_SETS
from grading.engine.ngs.params import NGSParams
from grading.models import AuditEvent
from grading.params import active_params_name

__all__ = [
    "FIELD_LABELS",
    "SET_DESCRIPTIONS",
    "parameters_overview",
]

SET_DESCRIPTIONS = {
    "ngs-15a": "The scheme as the EBU published it, March 2018: the default.",
    "ngs-2018": "The EBU's 2018 rules: a Mature player partnering a player with fewer "
    "than 150 graded boards gets no session grade; a session counts by known players, not pairs.",
    "fr18-factors": "The later estimates of the IMP factors in the EBU's grading report: F_butler 5.10 and "
    "F_cross 6.12 instead of 5.4 and 6.48.",
}

# field -> (label, where the specification sets it); a field missing here is shown by its name.
FIELD_LABELS = {
    "version": ("Version of the set", "S9"),
    "window_boards": ("Window: boards", "S4"),
    "window_years": ("Window: years", "S4"),
    "gain": ("Gain", "S3.4"),
    "rpcf": ("Regular-pair convergence factor (RPCF)", "S3.4"),
    "regular_share": ("Regular partner: share of boards above", "S3.4"),
    "initial_grade": ("Initial grade", "S5.1"),
    "initial_grade_green": ("Initial grade, first session green-pointed", "S5.1"),
    "restart_grade": ("Restart grade after 3 years away", "S5.1"),
    "padding_boards": ("Padding: boards", "S4"),
    "mature_boards": ("Mature at: boards", "S4"),
    "f_butler": ("F_butler (Butler IMPs)", "S3.3"),
    "f_cross": ("F_cross (cross-IMPs)", "S3.3"),
    "f_aggregate": ("Aggregate divisor", "S3.3"),
    "f_swiss_imp": ("Swiss pairs IMP factor", "S3.3"),
    "weighting_factors": ("Event weighting factors (type: factor)", "S3.10"),
    "known_threshold": ("Known share above which a session counts", "S3.8"),
    "known_by_players": ("Known share counted by", "S9.1"),
    "default_boards": ("Boards when not reported", "S3.7"),
    "forecast_sd": ("Forecast standard deviation", "S3.5"),
    "multiple_teams_share": ("Multiple-teams share of opponents met", "S3.2"),
    "new_partner_min_boards": ("Mature with a new partner: not graded below, boards", "S9.1"),
}
HISTORY_LIMIT = 25


def _display(name: str, value) -> str:
    if name == "known_by_players":
        return "players" if value else "pairs"
    if value is None:
        return "off"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if name == "weighting_factors":
        return ", ".join(f"{kind}: {_number(factor)}" for kind, factor in value)
    return _number(value)


def _number(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def parameters_overview() -> dict:
    """The active set, every field of every named set side by side (marking where each differs
    from the active set), and the recent parameter changes and refolds, newest first. Two
    queries: the ledger head and the audit log."""
    active_name = active_params_name()
    active = PARAMETER_SETS.get(active_name, NGS_DEFAULT)
    sets = [
        {"name": name, "description": SET_DESCRIPTIONS.get(name, ""), "active": name == active_name}
        for name in PARAMETER_SETS
    ]
    rows = []
    for field in dataclasses.fields(NGSParams):
        if field.name == "name":
            continue
        label, cite = FIELD_LABELS.get(field.name, (field.name.replace("_", " "), "S9"))
        mine = getattr(active, field.name)
        cells = [
            {
                "value": _display(field.name, getattr(params, field.name)),
                "differs": getattr(params, field.name) != mine,
                "active": name == active_name,
            }
            for name, params in PARAMETER_SETS.items()
        ]
        rows.append(
            {
                "field": field.name,
                "label": label,
                "cite": cite,
                "cells": cells,
                "varies": any(c["differs"] for c in cells),
            }
        )
    history = [_history_row(event) for event in _history()]
    return {
        "active": {
            "name": active_name,
            "description": SET_DESCRIPTIONS.get(active_name, ""),
            "known": active_name in PARAMETER_SETS,
        },
        "sets": sets,
        "rows": rows,
        "history": history,
        # The newest of these events is a change: the refold it dispatched has not committed
        # yet (it is running, queued, or failed), so stored grades still come from the old set.
        "refold_pending": bool(history) and history[0]["kind"] == "change",
    }


def _history() -> list[AuditEvent]:
    actions = [AuditEvent.Action.PARAMETERS, AuditEvent.Action.REFOLD]
    return list(AuditEvent.objects.filter(action__in=actions)[:HISTORY_LIMIT])


def _history_row(event: AuditEvent) -> dict:
    details = event.details or {}
    change = event.action == AuditEvent.Action.PARAMETERS
    return {
        "kind": "change" if change else "refold",
        "when": event.created,
        "who": event.actor or "system",
        "from": details.get("from", "") if change else "",
        "to": details.get("to", "") if change else details.get("params", ""),
        "reason": details.get("reason", "") if change else event.subject,
    }
