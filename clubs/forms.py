"""Forms of the club administration pages: input checking only, no business rules."""

from __future__ import annotations

import datetime as dt

from django import forms
from django.utils import timezone

from clubs.rules import planned_date_problem
from clubs.selectors.grades import GRADE_SORTS, GRADE_STATUS_FILTERS
from grading.models import Scoring


class GradeListForm(forms.Form):
    q = forms.CharField(required=False, max_length=100, label="Search name or number")
    sort = forms.ChoiceField(
        required=False, choices=[(key, key) for key in GRADE_SORTS], initial="name"
    )
    status = forms.ChoiceField(
        required=False,
        label="Status",
        choices=[("", "All members")]
        + [(key, label) for key, (label, _) in GRADE_STATUS_FILTERS.items()],
    )
    recent = forms.BooleanField(required=False, label="Played here in the last 12 months")


# The grade list's query strings made by its own form and links, without a search: the lists
# kept rendered (members/pagecache.py), a bounded number per club.
GRADE_LIST_QUERIES = {
    "q": {""},
    "sort": {"", *GRADE_SORTS},
    "status": {"", *GRADE_STATUS_FILTERS},
    "recent": {"on"},
}


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
        problem = planned_date_problem(date, self.today)
        if problem:
            raise forms.ValidationError(problem)
        return date


class ExemptionDecisionForm(forms.Form):
    decision = forms.ChoiceField(choices=[("approve", "Approve"), ("decline", "Decline")])

    @property
    def approve(self) -> bool:
        return self.cleaned_data["decision"] == "approve"
