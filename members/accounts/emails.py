"""The emails of the accounts flows, each in plain text and HTML (templates/emails/), sent
through Django's email framework (console under make run, SMTP in production)."""

from __future__ import annotations

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string


def email_send(*, to: str, template: str, context: dict) -> None:
    """Send ``templates/emails/<template>.txt`` with its ``.html`` twin; the subject is the
    text template's first line."""
    text = render_to_string(f"emails/{template}.txt", context)
    subject, _, body = text.partition("\n")
    html = render_to_string(f"emails/{template}.html", context)
    message = EmailMultiAlternatives(
        subject=subject.strip(),
        body=body.lstrip("\n"),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[to],
    )
    message.attach_alternative(html, "text/html")
    message.send()
