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


class ClubForm(forms.Form):
    name = forms.CharField(label="Name", max_length=200)
    national_number = forms.CharField(
        label="National club number",
        max_length=20,
        help_text="The number the club's scoring program writes as its club number.",
    )
    county = forms.CharField(label="County", max_length=100, required=False)
    keeps_brambledown = forms.BooleanField(
        label="The club keeps Brambledown grades", required=False
    )


class AdminAppointForm(forms.Form):
    number = forms.CharField(label="Membership number", max_length=20)
    email = forms.EmailField(
        label="Email", help_text="The invitation to become administrator goes here."
    )
    name = forms.CharField(
        label="Name",
        max_length=200,
        required=False,
        help_text="Only for a number the product does not know yet.",
    )


class RegisterForm(forms.Form):
    file = forms.FileField(
        label="Membership list (CSV)",
        help_text="Columns membership_number, first_name, surname, email (may be left out), "
        "clubs (club numbers separated by ;, the home club first), status (active or lapsed).",
    )


class MergeForm(forms.Form):
    merged = forms.CharField(label="Number to merge (it stops being used)", max_length=20)
    survivor = forms.CharField(label="Into the number that stays", max_length=20)
    reason = forms.CharField(
        label="Reason",
        max_length=PARAMETERS_REASON_MAX,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Kept in the audit log.",
    )
