"""Forms of the staff pages (S13)."""

from django import forms

from grading.engine.ngs import PARAMETER_SETS
from grading.staff.services import PARAMETERS_REASON_MAX


class ParametersChangeForm(forms.Form):
    params = forms.ChoiceField(
        label="New active set",
        choices=[("", "Choose a set")] + [(name, name) for name in PARAMETER_SETS],
    )
    reason = forms.CharField(
        label="Reason",
        max_length=PARAMETERS_REASON_MAX,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Kept in the audit log with your name, the time and both sets.",
    )
