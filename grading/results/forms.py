"""The club's results settings (S16): its switches, strata and estimates."""

from __future__ import annotations

from django import forms

from clubs.models import Club, ClubRole
from grading.results.rules import MAX_LIMITS
from members.models import Member
from members.selectors.public import member_by_number

GRADE_RANGE = (20.0, 80.0)


class ClubResultsForm(forms.Form):
    results_public = forms.BooleanField(
        required=False, label="Anyone may see our results pages (not only members and players)"
    )
    results_emails = forms.BooleanField(
        required=False, label="Players get an email with their result after each session"
    )

    def __init__(self, *args, club: Club, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["results_public"].initial = club.results_public
        self.fields["results_emails"].initial = club.results_emails


def _limit_field(n: int) -> forms.DecimalField:
    return forms.DecimalField(
        required=False,
        max_digits=5,
        decimal_places=2,
        min_value=GRADE_RANGE[0],
        max_value=GRADE_RANGE[1],
        label=f"Limit {n}",
        error_messages={
            "min_value": "A limit is a grade: between 20 and 80.",
            "max_value": "A limit is a grade: between 20 and 80.",
            "invalid": "Type a grade such as 47.5.",
        },
    )


class StrataForm(forms.Form):
    """Up to three limits for one event or for all the club's events; all three empty
    removes the strata."""

    event = forms.TypedChoiceField(required=False, coerce=int, empty_value=None, label="For")

    def __init__(self, *args, events: list[tuple[int, str]], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["event"].choices = [("", "All events")] + list(events)
        for n in range(1, MAX_LIMITS + 1):
            self.fields[f"limit{n}"] = _limit_field(n)

    def clean(self):
        data = super().clean()
        values = [data.get(f"limit{n}") for n in range(1, MAX_LIMITS + 1)]
        limits = [float(v) for v in values if v is not None]
        if len(set(limits)) != len(limits):
            raise forms.ValidationError("Two limits are the same: give different grades.")
        return {"event_id": data.get("event"), "limits": limits}


class EstimateForm(forms.Form):
    number = forms.CharField(max_length=20, label="Membership number")
    grade = forms.DecimalField(
        max_digits=5,
        decimal_places=2,
        min_value=GRADE_RANGE[0],
        max_value=GRADE_RANGE[1],
        label="Estimated grade",
        error_messages={
            "min_value": "An estimate is a grade: between 20 and 80.",
            "max_value": "An estimate is a grade: between 20 and 80.",
        },
    )

    def __init__(self, *args, club: Club, **kwargs):
        super().__init__(*args, **kwargs)
        self.club = club

    def clean_number(self):
        # However it is spelt, and a number merged into another finds the survivor (S15).
        member = member_by_number(number=self.cleaned_data["number"])
        if member is None or not ClubRole.objects.filter(club=self.club, member=member).exists():
            raise forms.ValidationError(
                f"No member of the club has number {self.cleaned_data['number']}."
            )
        return member

    def clean(self):
        data = super().clean()
        if "number" in data and "grade" in data:
            return {"member": data["number"], "grade": float(data["grade"])}
        return data


class EmailChoiceForm(forms.Form):
    choice = forms.ChoiceField(choices=Member.ResultsEmails.choices, widget=forms.RadioSelect)
