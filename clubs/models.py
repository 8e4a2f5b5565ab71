from django.db import models

from members.models import new_pages_version


class Club(models.Model):
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=80, unique=True)
    national_number = models.CharField(
        max_length=20, blank=True, help_text="The club's national (EBU) club number, if any."
    )
    county = models.CharField(max_length=100, blank=True, default="", db_default="")
    keeps_brambledown = models.BooleanField(
        default=False, help_text="The club also keeps Brambledown grades (S11)."
    )
    # Results for the players (S16, grading/results/): who sees a session's results page, and
    # whether its players get an email after each graded session.
    results_public = models.BooleanField(
        default=False,
        db_default=False,  # rows written by COPY (the national builder) get it too
        help_text="Anyone may see the club's results pages, not only its members.",
    )
    results_emails = models.BooleanField(
        default=True,
        db_default=True,
        help_text="Players get an email with their result after each session.",
    )
    created = models.DateTimeField(auto_now_add=True)
    # Part of the cache key of the club's grade list (members/pagecache.py), like a member's
    # ``pages_version``: a new random value in the same transaction as every write that changes
    # what the list shows (grading.common.stale.club_pages_invalidate).
    pages_version = models.PositiveBigIntegerField(default=new_pages_version, editable=False)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ClubRole(models.Model):
    """A member's place in a club. An administrator is a member of the club as well."""

    class Role(models.TextChoices):
        MEMBER = "member", "Member"
        ADMIN = "admin", "Administrator"

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="roles")
    member = models.ForeignKey(
        "members.Member", on_delete=models.CASCADE, related_name="club_roles"
    )
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.MEMBER)
    # The member register (S15) lists the member at this club; ``home``: its first club. A row
    # with neither flag exists because the member played in one of the club's live sessions
    # (or is an administrator): it makes no one a member in the register's sense (S14.25).
    # Database defaults too: bulk loaders that COPY rows (grading/lab) need not name them.
    registered = models.BooleanField(default=False, db_default=False)
    home = models.BooleanField(default=False, db_default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["club", "member"], name="one_role_per_member_per_club")
        ]
        indexes = [models.Index(fields=["member", "role"])]

    def __str__(self) -> str:
        return f"{self.member} — {self.get_role_display()} of {self.club}"


class PlannedSession(models.Model):
    """An upcoming session a club publishes: members use it for host exemptions (S3.9) and the
    forecast; results matching it (same club and date) get the approved host pair excluded."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="planned_sessions")
    event_name = models.CharField(max_length=200)
    date = models.DateField()
    start = models.TimeField()
    scoring = models.CharField(max_length=20, default="MP")
    created_by = models.ForeignKey(
        "auth.User", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["date", "start"]
        indexes = [models.Index(fields=["club", "date"])]

    def __str__(self) -> str:
        return f"{self.event_name} {self.date:%Y-%m-%d} {self.start:%H:%M}"


class HostExemptionRequest(models.Model):
    """A host's request not to be graded in one session (S3.9, FAQ 10). One per session."""

    class Status(models.TextChoices):
        WAITING = "waiting", "Waiting for the club"
        APPROVED = "approved", "Approved"
        DECLINED = "declined", "Declined"

    planned_session = models.OneToOneField(
        PlannedSession, on_delete=models.CASCADE, related_name="exemption"
    )
    member = models.ForeignKey("members.Member", on_delete=models.CASCADE, related_name="+")
    partner = models.ForeignKey("members.Member", on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    created = models.DateTimeField()
    decided_by = models.ForeignKey(
        "auth.User", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["status"])]

    def __str__(self) -> str:
        return f"{self.member} & {self.partner}: {self.planned_session} ({self.status})"


class ClubStrata(models.Model):
    """Up to three grade limits a club sets for one event or, ``event`` empty, for all its
    events (S16, seed 000 "stratification"): a stratum is the pairs whose average grade at the
    start of the session is below its limit. Read by ``grading.results``."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="strata")
    event = models.ForeignKey(
        "grading.Event", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    limits = models.JSONField(default=list, help_text="Grade limits, highest first (1 to 3).")
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["club", "event"], name="one_strata_per_event"),
            models.UniqueConstraint(
                fields=["club"], condition=models.Q(event=None), name="one_strata_for_all_events"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.club} strata {self.limits}"


class ClubEstimate(models.Model):
    """The grade a club's administrator estimates for a member whose grade is private or
    provisional (S8, FAQ 36): it stands in for the grade in the club's strata."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="estimates")
    member = models.ForeignKey("members.Member", on_delete=models.CASCADE, related_name="+")
    grade = models.FloatField()
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["club", "member"], name="one_estimate_per_member")
        ]

    def __str__(self) -> str:
        return f"{self.member}: estimate {self.grade:.2f} at {self.club}"
