import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q


def new_pages_version() -> int:
    return secrets.randbits(63)


class RegisterStatus(models.TextChoices):
    NONE = "", "Not on the register"
    ACTIVE = "active", "Active"
    LAPSED = "lapsed", "Lapsed"


class Member(models.Model):
    """A person known by their national membership number (S1, S14.2).

    The number is stored normalised (no spaces, no leading zeros); the constraint makes the
    database refuse any other spelling, so one person can never become two members.
    """

    national_number = models.CharField(max_length=20, unique=True)
    name = models.CharField(max_length=200)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="member",
    )
    grade_private = models.BooleanField(
        default=False, help_text="Hide the grade from everyone but the member (S7)."
    )

    class ResultsEmails(models.TextChoices):  # S16: the member's choice
        EACH = "each", "After each session"
        WEEKLY = "weekly", "A weekly summary"
        NONE = "none", "No emails"

    results_emails = models.CharField(
        max_length=8,
        choices=ResultsEmails.choices,
        default=ResultsEmails.EACH,
        db_default=ResultsEmails.EACH,  # rows written by COPY (the national builder) get it too
    )
    created = models.DateTimeField(auto_now_add=True)
    # The member register (S15): "" the member is known only from results files; "active" or
    # "lapsed" as the union's last list said (a member missing from a later list keeps theirs).
    register_status = models.CharField(
        max_length=10, blank=True, choices=RegisterStatus.choices, default="", db_default=""
    )
    register_email = models.EmailField(blank=True, default="", db_default="")
    # The register's national club numbers, ";"-separated, the home club first, as the list
    # gave them: a club registered after the list was loaded takes its members from here.
    register_clubs = models.CharField(max_length=200, blank=True, default="", db_default="")
    # Two numbers, one person (S15): this number was merged into ``merged_into``; its results
    # are the survivor's and looking the number up finds the survivor.
    merged_into = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="merged_numbers"
    )
    # Part of the cache key of the member's own pages (members/pagecache.py): a new random
    # value in the same transaction as every write that changes what those pages show. Random,
    # not counted: after a restore or a reset that reuses ids, no page kept before can match.
    pages_version = models.PositiveBigIntegerField(default=new_pages_version, editable=False)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(national_number__startswith="0")
                & ~Q(national_number__contains=" ")
                & ~Q(national_number=""),
                name="member_number_normalised",
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.national_number})"


# --- Logins for members (issue 19 item 1; members/accounts/) ---------------------------------
# A login is linked to a membership record only through these two rows: an invitation a club
# administrator sends to an email address, or a sign-up request an administrator of one of the
# member's clubs approves (which sends the same invitation). Following the invitation's link,
# from that mailbox, makes the link.


class Invitation(models.Model):
    """A single-use link, sent by email, that lets its holder choose a login for ``member``.

    Only a digest of the token is stored: a database read does not give anyone a usable link.
    """

    member = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField()
    token_digest = models.CharField(max_length=64, unique=True)
    club = models.ForeignKey(
        "clubs.Club", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    # "admin": accepting it also makes the member an administrator of ``club`` (S15).
    role = models.CharField(max_length=10, blank=True, default="", db_default="")
    created = models.DateTimeField(auto_now_add=True)
    expires = models.DateTimeField()
    accepted = models.DateTimeField(null=True, blank=True)
    withdrawn = models.BooleanField(default=False, help_text="A newer invitation replaced it.")

    class Meta:
        ordering = ["-created"]
        indexes = [models.Index(fields=["member", "-created"])]

    def __str__(self) -> str:
        return f"Invitation for {self.member} to {self.email}"


class SignUpRequest(models.Model):
    """A person's request for a login to a membership record, waiting for an administrator of
    one of the member's clubs. Knowing a number is not enough: nothing is linked until an
    administrator approves, and then only the mailbox given here receives the link."""

    class Status(models.TextChoices):
        WAITING = "waiting", "Waiting for the club"
        APPROVED = "approved", "Approved"
        DECLINED = "declined", "Declined"

    member = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="sign_ups")
    name = models.CharField(max_length=200, help_text="The name the person gave.")
    email = models.EmailField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    # The member's home club when the request arrived (S14.25): its administrators decide.
    club = models.ForeignKey(
        "clubs.Club", null=True, blank=True, on_delete=models.SET_NULL, related_name="sign_ups"
    )
    created = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created"]
        indexes = [models.Index(fields=["status", "member"])]

    def __str__(self) -> str:
        return f"Sign-up by {self.name} <{self.email}> for {self.member} ({self.status})"


class SessionReport(models.Model):
    """A member's report of a session graded under their number that they did not play
    (S14.25): listed on the staff page until staff close it."""

    member = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="session_reports")
    version = models.ForeignKey(
        "grading.SessionVersion", on_delete=models.CASCADE, related_name="reports"
    )
    note = models.CharField(max_length=500, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    closed = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]
        constraints = [
            models.UniqueConstraint(fields=["member", "version"], name="one_report_per_version")
        ]

    def __str__(self) -> str:
        return f"{self.member} did not play version {self.version_id}"


class ResultsEmail(models.Model):
    """What was sent, or is being sent, to a member about one session version (S16): the row
    is claimed (created, or a failed one taken back) before the message goes, and the unique
    constraint makes a second delivery of the same task find it; at most one email per member
    and version. ``grading/results/sending.py`` writes it."""

    class Status(models.TextChoices):
        SENDING = "sending", "Being sent"
        SENT = "sent", "Sent"
        FAILED = "failed", "Mail server refused; tried again later"
        WEEKLY = "weekly", "Waiting for the weekly summary"
        SKIPPED = "skipped", "Not sent"

    member = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="results_emails_sent")
    version = models.ForeignKey(
        "grading.SessionVersion", on_delete=models.CASCADE, related_name="+"
    )
    correction = models.BooleanField(default=False)
    status = models.CharField(max_length=8, choices=Status.choices)
    claim = models.CharField(max_length=32, blank=True)
    figures = models.JSONField(default=dict, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    sent = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["member", "version"], name="one_results_email")
        ]
        indexes = [models.Index(fields=["status", "next_attempt"])]

    def __str__(self) -> str:
        return f"results email to {self.member} for version {self.version_id}: {self.status}"
