"""The product's audit log (append-only)."""

from django.db import models


class AuditEvent(models.Model):
    """An append-only record of who did what (issue 10): uploads, corrections, withdrawals,
    exemption decisions, privacy changes and refolds. PostgreSQL refuses to change or delete
    a row (a trigger, migration 0003); the admin shows them read-only to staff."""

    class Action(models.TextChoices):
        UPLOAD = "upload", "Upload"
        CORRECTION = "correction", "Correction"
        WITHDRAWAL = "withdrawal", "Withdrawal"
        EXEMPTION_DECISION = "exemption", "Host exemption decision"
        PRIVACY = "privacy", "Privacy change"
        REFOLD = "refold", "Ledger refolded"
        PARAMETERS = "parameters", "Parameter change"
        LOGIN_LINK = "login-link", "Login linked to a member"
        TOKEN_CREATE = "token-create", "API token made by its owner"
        TOKEN_REVOKE = "token-revoke", "API token revoked"
        CLUB = "club", "Club registered or changed"
        CLUB_ADMIN = "club-admin", "Club administrator appointed or removed"
        REGISTER = "register", "Member register loaded"
        MERGE = "merge", "Two membership numbers merged"
        REPORT = "report", "A member reported a session"
        NIGHTLY = "nightly", "Nightly refresh of the grades"

    # Names, not foreign keys: the record outlives the user or club it names, and no cascade
    # ever needs to touch an append-only row.
    created = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.CharField(max_length=150, blank=True, help_text="Username; empty: the system.")
    action = models.CharField(max_length=12, choices=Action.choices)
    club = models.CharField(max_length=80, blank=True, help_text="The club's slug, if any.")
    subject = models.CharField(max_length=255)
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created", "-pk"]
        indexes = [models.Index(fields=["action", "-created"])]

    def __str__(self) -> str:
        return f"{self.created:%Y-%m-%d %H:%M} {self.get_action_display()}: {self.subject}"
