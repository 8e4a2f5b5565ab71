"""The tools' forms: input checking only."""

from django import forms

from grading.tools.figures import MAX_BOARDS


class VpScaleForm(forms.Form):
    boards = forms.IntegerField(min_value=1, max_value=MAX_BOARDS, initial=8)


class TravellerForm(forms.Form):
    traveller = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 10, "spellcheck": "false"}),
        max_length=20_000,
        help_text="One line per table: NS pair, EW pair, NS score (or A60, AVE, A6040...).",
    )
    expected = forms.IntegerField(
        min_value=1,
        max_value=400,
        required=False,
        label="Times the board should have been played",
        help_text="Leave empty if every table played it; otherwise Neuberg factors the scores.",
    )
