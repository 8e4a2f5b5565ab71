"""Forms of the club administration pages: input checking only, no business rules."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

from django import forms
from django.utils import timezone

from clubs.handicaps import PAIRS, SLOTS, TEAMS, FormRow, RawEntry
from clubs.models import PlannedSession
from clubs.selectors import GRADE_SORTS
from grading.models import Scoring

TEAM_SCORING = {
    Scoring.SWISS_TEAMS,
    Scoring.MULTIPLE_TEAMS,
    Scoring.TEAM_LEAGUE,
    Scoring.HEAD_TO_HEAD,
    Scoring.POINT_A_BOARD,
}


class GradeListForm(forms.Form):
    q = forms.CharField(required=False, max_length=100, label="Search name or number")
    sort = forms.ChoiceField(
        required=False, choices=[(key, key) for key in GRADE_SORTS], initial="name"
    )


class PlannedSessionForm(forms.Form):
    event_name = forms.CharField(max_length=200)
    date = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}))
    start = forms.TimeField(widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"))
    scoring = forms.ChoiceField(choices=Scoring.choices, initial=Scoring.MP)

    def __init__(self, *args, today: dt.date | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.today = today or timezone.localdate()

    def clean_date(self):
        date = self.cleaned_data["date"]
        if date < self.today:
            raise forms.ValidationError("Planned sessions are upcoming: choose today or later.")
        return date


class ExemptionDecisionForm(forms.Form):
    decision = forms.ChoiceField(choices=[("approve", "Approve"), ("decline", "Decline")])

    @property
    def approve(self) -> bool:
        return self.cleaned_data["decision"] == "approve"


class HandicapForm(forms.Form):
    """What the table is for. The rows themselves are read by ``handicap_entries``."""

    planned = forms.ModelChoiceField(
        queryset=PlannedSession.objects.none(),
        required=False,
        label="Planned session",
        empty_label="— an ad-hoc event —",
    )
    event = forms.CharField(required=False, max_length=200, label="Event (ad hoc)")
    kind = forms.ChoiceField(
        choices=[(PAIRS, "Pairs"), (TEAMS, "Teams")],
        initial=PAIRS,
        widget=forms.RadioSelect,
        required=False,
    )
    boards = forms.IntegerField(
        min_value=1, max_value=200, initial=24, required=False, label="Boards per match"
    )
    rows = forms.IntegerField(min_value=1, max_value=60, required=False, widget=forms.HiddenInput)

    def __init__(self, data=None, *args, planned_sessions=None, **kwargs):
        if data is not None and not data.get("kind") and not data.get("planned"):
            data = data.copy()
            data["kind"] = PAIRS
        super().__init__(data, *args, **kwargs)
        if planned_sessions is not None:
            self.fields["planned"].queryset = planned_sessions

    def settings(self) -> dict:
        """kind, boards, rows and title, with defaults for an unbound or invalid form."""
        data = {}
        if self.is_bound:
            self.is_valid()  # the fields that are valid count, the others take their defaults
            data = self.cleaned_data
        planned = data.get("planned")
        kind = data.get("kind") or (
            TEAMS if planned is not None and planned.scoring in TEAM_SCORING else PAIRS
        )
        rows = data.get("rows") or (8 if kind == PAIRS else 4)
        if planned is not None:
            title = f"{planned.event_name}, {planned.date:%A %d %B %Y} at {planned.start:%H:%M}"
        else:
            title = data.get("event") or "Handicap table"
        return {"kind": kind, "boards": data.get("boards") or 24, "rows": rows, "title": title}


def _estimate(text: str) -> tuple[float | None, str]:
    text = (text or "").strip().replace("%", "")
    if not text:
        return None, ""
    try:
        value = float(text)
    except ValueError:
        return None, f"{text!r} is not a grade: type a number such as 48.5."
    if not 20 <= value <= 80:
        return None, f"An estimate of {value:g} is not a grade: grades lie between 20 and 80."
    return value, ""


def handicap_entries(data, *, kind: str, rows: int) -> tuple[list[RawEntry], list[str]]:
    """The typed rows: ``r<i>name``, players ``r<i>p<j>`` and estimates ``r<i>e<j>``."""
    entries, errors = [], []
    for i in range(1, rows + 1):
        players, estimates = [], []
        for j in range(1, SLOTS[kind] + 1):
            players.append((data.get(f"r{i}p{j}") or "").strip()[:200])
            value, error = _estimate(data.get(f"r{i}e{j}", ""))
            if error:
                errors.append(f"Row {i}, player {j}: {error}")
            estimates.append(value)
        entries.append(
            RawEntry(
                i, (data.get(f"r{i}name") or "").strip()[:100], tuple(players), tuple(estimates)
            )
        )
    return entries, errors


ESTIMATE_TEXT_MAX = 20


def estimates_as_typed(rows: list[FormRow], data) -> list[FormRow]:
    """The form's rows with every estimate box as the administrator typed it (``r<i>e<j>``),
    so a rejected estimate ("abc", "95") comes back to be corrected, not emptied; the
    problem list says what is wrong with it. A box left empty stays empty."""
    out = []
    for row in rows:
        cells = []
        for cell in row.cells:
            typed = (data.get(f"r{row.index}e{cell.slot}") or "").strip()[:ESTIMATE_TEXT_MAX]
            cells.append(replace(cell, estimate_text=typed) if typed else cell)
        out.append(replace(row, cells=cells))
    return out
