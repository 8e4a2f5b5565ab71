"""Forms of the accounts flows: sign-up, choosing a login from an invitation, and a club
administrator's invitations (one, or a list)."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model, password_validation

LIST_MAX_BYTES = 256 * 1024


def email_input() -> forms.EmailInput:
    """An email box (the email keyboard on a phone), styled as the site's text boxes."""
    return forms.EmailInput(attrs={"autocomplete": "email"})


class SignUpForm(forms.Form):
    number = forms.CharField(
        label="Membership number",
        max_length=20,
        help_text="The number on your membership card, as your club's results show it.",
    )
    name = forms.CharField(label="Your name", max_length=200)
    email = forms.EmailField(
        label="Email address",
        help_text="Your club's answer and your link come here.",
        widget=email_input(),
    )


class ChooseLoginForm(forms.Form):
    username = forms.CharField(
        label="Username",
        max_length=150,
        help_text="What you will type to log in. Letters, digits and @ . + - _ only.",
    )
    password1 = forms.CharField(label="Password", widget=forms.PasswordInput, strip=False)
    password2 = forms.CharField(label="Password again", widget=forms.PasswordInput, strip=False)

    def __init__(self, *args, email: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        self.email = email
        self.fields[
            "password1"
        ].help_text = password_validation.password_validators_help_text_html()

    def clean_username(self):
        username = self.cleaned_data["username"].strip()
        user_model = get_user_model()
        user_model.username_validator(username)
        if user_model.objects.filter(username__iexact=username).exists():
            raise forms.ValidationError("That username is taken; choose another.")
        return username

    def clean(self):
        cleaned = super().clean()
        first, second = cleaned.get("password1"), cleaned.get("password2")
        if first and second and first != second:
            self.add_error("password2", "The two passwords differ.")
        elif first:
            user = get_user_model()(username=cleaned.get("username", ""), email=self.email)
            try:
                password_validation.validate_password(first, user)
            except forms.ValidationError as error:
                self.add_error("password1", error)
        return cleaned


class InviteForm(forms.Form):
    number = forms.CharField(label="Membership number", max_length=20)
    email = forms.EmailField(label="Email address", widget=email_input())


class InviteListForm(forms.Form):
    text = forms.CharField(
        label="Paste a list",
        required=False,
        widget=forms.Textarea(attrs={"rows": 6, "placeholder": "100001,ann@example.org"}),
        help_text="One member a line: membership number, then email address, separated by a comma.",
    )
    file = forms.FileField(
        label="or upload a CSV file", required=False, help_text="The same two columns."
    )

    def clean(self):
        cleaned = super().clean()
        upload = cleaned.get("file")
        if upload:
            if upload.size > LIST_MAX_BYTES:
                raise forms.ValidationError("The file is larger than 256 KB; send it in parts.")
            try:
                cleaned["text"] = upload.read().decode("utf-8-sig")
            except UnicodeDecodeError as error:
                raise forms.ValidationError(
                    "The file is not plain text (UTF-8); save it from your spreadsheet as CSV."
                ) from error
        if not (cleaned.get("text") or "").strip():
            raise forms.ValidationError("Paste a list or choose a file.")
        return cleaned
