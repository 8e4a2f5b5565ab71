from django import forms

from grading.tools import MAX_BOARDS


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


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """Several files in one field (Django's documented pattern)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput(attrs={"accept": ".xml,.pbn,.csv,.txt"}))
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        single = super().clean
        if isinstance(data, (list, tuple)):
            return [single(d, initial) for d in data]
        return [single(data, initial)]


class UploadForm(forms.Form):
    files = MultipleFileField(
        label="Results files",
        help_text="USEBIO XML, PBN with results, or the product's CSV. Up to 10 MB each.",
    )
