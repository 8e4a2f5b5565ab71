"""The audit log (issue 10): one append-only event per upload, correction, withdrawal,
exemption decision, privacy change and refold."""

from __future__ import annotations

from grading.models import AuditEvent


def audit_record(*, action: str, subject: str, actor=None, club=None, **details) -> AuditEvent:
    """Append one event. ``actor`` is a user (or None for the system), ``club`` a Club."""
    username = actor.get_username() if actor is not None and actor.is_authenticated else ""
    return AuditEvent.objects.create(
        action=action,
        subject=subject[:255],
        actor=username,
        club=club.slug if club is not None else "",
        details=details,
    )
