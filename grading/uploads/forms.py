from django import forms
from django.conf import settings

from grading.uploads import wording


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """Several files in one field (Django's documented pattern), at most
    ``UPLOAD_MAX_FILES_PER_REQUEST`` of them (issue 32 item 9)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput(attrs={"accept": ".xml,.pbn,.csv,.txt"}))
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        single = super().clean
        if isinstance(data, (list, tuple)):
            if len(data) > settings.UPLOAD_MAX_FILES_PER_REQUEST:
                raise forms.ValidationError(
                    wording.too_many_files(settings.UPLOAD_MAX_FILES_PER_REQUEST)
                )
            return [single(d, initial) for d in data]
        return [single(data, initial)]


class UploadForm(forms.Form):
    files = MultipleFileField(label="Results files")

    def __init__(self, *args, too_many_files: bool = False, **kwargs):
        """``too_many_files``: the request carried more files than one may, and its reading was
        stopped there (``grading.common.uploadhandlers``): the form is refused whole."""
        super().__init__(*args, **kwargs)
        self.too_many_files = too_many_files
        self.fields["files"].help_text = (
            "USEBIO XML, PBN with results, or the product's CSV. Up to "
            f"{settings.UPLOAD_MAX_BYTES // (1024 * 1024)} MB each, and up to "
            f"{settings.UPLOAD_MAX_FILES_PER_REQUEST} files at once."
        )

    def clean_files(self):
        if self.too_many_files:
            raise forms.ValidationError(
                wording.too_many_files(settings.UPLOAD_MAX_FILES_PER_REQUEST)
            )
        return self.cleaned_data["files"]
