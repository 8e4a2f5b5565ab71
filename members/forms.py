"""Forms of the member pages. Validation only: the reads and writes are in selectors/services."""

from django import forms
from django.forms.utils import flatatt
from django.utils.dateformat import format as date_format
from django.utils.html import format_html, format_html_join

from members.selectors.forecast import Series
from members.selectors.history import HistoryChoices
from members.selectors.public import member_by_number


class PlainSelect(forms.Select):
    """Django's select, written without a template per option: a decade of partners made
    rendering them most of the session history's cost (issue 17). Plain options only."""

    def render(self, name, value, attrs=None, renderer=None):
        chosen = set(self.format_value(value))
        rows = []
        for option, label in self.choices:
            selected = str(option) in chosen
            if selected:
                chosen = set()  # the first match only, as Django's
            rows.append((option, " selected" if selected else "", label))
        options = format_html_join("", '<option value="{}"{}>{}</option>', rows)
        attrs = flatatt(self.build_attrs(self.attrs, attrs))
        return format_html('<select name="{}"{}>{}</select>', name, attrs, options)


class HistoryFilterForm(forms.Form):
    club = forms.TypedChoiceField(required=False, coerce=int, empty_value=None, widget=PlainSelect)
    partner = forms.TypedChoiceField(
        required=False, coerce=int, empty_value=None, widget=PlainSelect
    )
    year = forms.TypedChoiceField(required=False, coerce=int, empty_value=None, widget=PlainSelect)

    def __init__(self, *args, choices: HistoryChoices, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["club"].choices = [("", "All clubs")] + [(str(k), v) for k, v in choices.clubs]
        self.fields["partner"].choices = [("", "All partners")] + [
            (str(k), v) for k, v in choices.partners
        ]
        self.fields["year"].choices = [("", "All years")] + [(str(y), y) for y in choices.years]


THRESHOLD_RANGE = "Type a percentage from 0 to 100, such as 55 or 57.5."


class ForecastForm(forms.Form):
    partner = forms.TypedChoiceField(
        required=False,
        coerce=int,
        empty_value=None,
        label="Partner",
        help_text="Partners whose grade is published; otherwise type their grade below.",
    )
    partner_grade = forms.FloatField(
        required=False,
        min_value=20,
        max_value=90,
        label="…or your partner's grade",
        widget=forms.NumberInput(attrs={"step": "0.01", "inputmode": "decimal"}),
    )
    series = forms.ChoiceField(required=False, label="Club session series")
    field_strength = forms.FloatField(
        required=False,
        min_value=20,
        max_value=90,
        label="…or the field's strength",
        widget=forms.NumberInput(attrs={"step": "0.01", "inputmode": "decimal"}),
    )
    boards = forms.IntegerField(
        min_value=1, max_value=100, initial=24, required=False, label="Boards (for the IMP par)"
    )
    # S3.5: "the chance of beating 37/43/49/55/61% style thresholds, or any threshold asked".
    threshold = forms.FloatField(
        required=False,
        min_value=0,
        max_value=100,
        label="Your own threshold (%)",
        help_text="Optional: the chance of scoring more than this is shown too.",
        error_messages={
            "min_value": THRESHOLD_RANGE,
            "max_value": THRESHOLD_RANGE,
            "invalid": THRESHOLD_RANGE,
        },
        widget=forms.NumberInput(attrs={"step": "0.01", "inputmode": "decimal"}),
    )

    def __init__(self, *args, partners, series: list[Series], **kwargs):
        super().__init__(*args, **kwargs)
        self.partners = {p.pk: (p, view) for p, view in partners}
        self.series_by_key = {s.key: s for s in series}
        self.fields["partner"].choices = [("", "—")] + [
            (str(p.pk), f"{p.name} ({view.text})") for p, view in partners
        ]
        self.fields["series"].choices = [("", "—")] + [(s.key, s.label) for s in series]

    def clean(self):
        data = super().clean()
        if data.get("partner_grade") is None and not data.get("partner"):
            self.add_error("partner", "Choose a partner or type your partner's grade.")
        if data.get("field_strength") is None and not data.get("series"):
            self.add_error("series", "Choose a club session series or type a field strength.")
        data["boards"] = data.get("boards") or 24
        return data

    def resolved(self) -> dict:
        """Grades and labels to forecast with; typed figures win over choices."""
        data = self.cleaned_data
        if data.get("partner_grade") is not None:
            partner_grade, partner_label = data["partner_grade"], "the grade you typed"
        else:
            partner, view = self.partners[data["partner"]]
            partner_grade, partner_label = view.value, partner.name
        if data.get("field_strength") is not None:
            field, field_label = data["field_strength"], "the field strength you typed"
        else:
            series = self.series_by_key[data["series"]]
            field, field_label = series.sof, f"{series.club} — {series.event}"
        return {
            "partner_grade": partner_grade,
            "partner_label": partner_label,
            "field": field,
            "field_label": field_label,
            "boards": data["boards"],
            "threshold": data.get("threshold"),
        }


class PrivacyForm(forms.Form):
    grade = forms.ChoiceField(
        choices=[("public", "Public"), ("private", "Private")], widget=forms.RadioSelect
    )


class HostExemptionForm(forms.Form):
    planned_session = forms.ModelChoiceField(
        queryset=None,
        label="Session you will host",
        empty_label="Choose a session",
        error_messages={
            "invalid_choice": "That session is not open to a host request: requests close 30 "
            "minutes after the start, only your clubs' sessions can be chosen, and only one "
            "pair per session can ask."
        },
    )
    partner = forms.TypedChoiceField(
        required=False, coerce=int, empty_value=None, label="Your partner"
    )
    partner_number = forms.CharField(
        required=False, max_length=20, label="…or your partner's membership number"
    )

    def __init__(self, *args, sessions, partners, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["planned_session"].queryset = sessions
        self.fields["planned_session"].label_from_instance = lambda p: (
            f"{p.club.name}: {p.event_name}, {date_format(p.date, 'D j M Y')} at {p.start:%H:%M}"
        )
        self.partner_members = {p.pk: p for p in partners}
        self.fields["partner"].choices = [("", "—")] + [
            (str(p.pk), f"{p.name} ({p.national_number})") for p in partners
        ]

    def clean(self):
        data = super().clean()
        number = (data.get("partner_number") or "").strip()
        if number:
            partner = member_by_number(number=number)
            if partner is None:
                self.add_error("partner_number", f"No member has the number {number}.")
        elif data.get("partner"):
            partner = self.partner_members.get(data["partner"])
        else:
            partner = None
            self.add_error("partner", "Name your partner: choose one or type their number.")
        data["partner_member"] = partner
        return data
