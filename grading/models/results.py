"""Results as uploaded (S12): files, events, sessions, their versions and what each version says."""

from django.conf import settings
from django.db import models

from grading.models.enums import Movement, Scoring


class Upload(models.Model):
    """One results file as received, with what became of it."""

    class Status(models.TextChoices):
        RECEIVED = "received", "Received"
        REFUSED = "refused", "Refused"
        DUPLICATE = "duplicate", "Duplicate file"
        STORED = "stored", "Stored, waiting to be graded"
        GRADED = "graded", "Graded"
        FAILED = "failed", "Grading failed"

    club = models.ForeignKey(
        "clubs.Club",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="uploads",
        help_text="Empty only for an operator's import refused before its club was known.",
    )
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    filename = models.CharField(max_length=255)
    size = models.PositiveIntegerField(default=0)
    sha256 = models.CharField(max_length=64, db_index=True)
    content = models.BinaryField(editable=False, help_text="The file exactly as received.")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.RECEIVED)
    problems = models.JSONField(default=list, blank=True)
    warnings = models.JSONField(default=list, blank=True)
    summary = models.JSONField(default=dict, blank=True)
    duplicate_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True, db_index=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]
        indexes = [models.Index(fields=["club", "-created"])]

    def __str__(self) -> str:
        return f"{self.filename} ({self.get_status_display()})"


class Event(models.Model):
    club = models.ForeignKey("clubs.Club", on_delete=models.PROTECT, related_name="events")
    event_id = models.CharField(max_length=200, help_text="The club's identifier for the event.")
    name = models.CharField(max_length=255)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["club", "event_id"], name="event_identity")]

    def __str__(self) -> str:
        return self.name


class Session(models.Model):
    """A session's identity (S14.1): club (through the event), event id, number and date."""

    event = models.ForeignKey(Event, on_delete=models.PROTECT, related_name="sessions")
    number = models.PositiveSmallIntegerField(default=1)
    date = models.DateField()
    start = models.TimeField(null=True, blank=True)
    live_version = models.ForeignKey(
        "SessionVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["event", "number", "date"], name="session_identity")
        ]
        indexes = [models.Index(fields=["date"])]

    def __str__(self) -> str:
        return f"{self.event.name} {self.date:%Y-%m-%d} (session {self.number})"


class SessionVersion(models.Model):
    """One upload of a session. A correction is a new version (S5.3); versions are kept."""

    class State(models.TextChoices):
        STORED = "stored", "Stored, waiting to be graded"
        GRADED = "graded", "Graded"
        NOT_GRADED = "not_graded", "Not graded"
        WITHDRAWN = "withdrawn", "Withdrawn"

    session = models.ForeignKey(Session, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveSmallIntegerField()
    upload = models.ForeignKey(
        Upload, null=True, blank=True, on_delete=models.SET_NULL, related_name="versions"
    )
    scoring = models.CharField(max_length=20, choices=Scoring.choices)
    movement = models.CharField(max_length=12, choices=Movement.choices)
    weighting = models.PositiveSmallIntegerField(default=1)
    boards = models.PositiveSmallIntegerField(null=True, blank=True)
    content_hash = models.CharField(max_length=64)
    payload = models.JSONField(help_text="The engine's SessionResult, as parsed.")
    state = models.CharField(max_length=12, choices=State.choices, default=State.STORED)
    not_graded_reason = models.CharField(max_length=255, blank=True)
    grading_failed = models.BooleanField(
        default=False,
        help_text="Not graded because grading raised (the product's fault, not the file's): "
        "the ledger and the schemes never saw it.",
    )
    sof = models.FloatField(null=True, blank=True)
    known_pairs = models.PositiveSmallIntegerField(null=True, blank=True)
    total_pairs = models.PositiveSmallIntegerField(null=True, blank=True)
    late = models.BooleanField(
        default=False, help_text="Processed after a session with a later date of play (S5.2)."
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["session", "number"], name="version_number")]
        indexes = [models.Index(fields=["state"])]

    def __str__(self) -> str:
        return f"{self.session} v{self.number}"


class PairResult(models.Model):
    """A pair's line in a session version, with the figures grading gave it (S3.2-S3.5)."""

    version = models.ForeignKey(SessionVersion, on_delete=models.CASCADE, related_name="pairs")
    pair_id = models.CharField(max_length=20)
    direction = models.CharField(max_length=2, blank=True)
    section = models.CharField(max_length=20, blank=True)
    team = models.CharField(max_length=100, blank=True)
    player1 = models.ForeignKey(
        "members.Member", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    player1_name = models.CharField(max_length=200, blank=True)
    player2 = models.ForeignKey(
        "members.Member", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    player2_name = models.CharField(max_length=200, blank=True)
    score = models.FloatField(null=True, blank=True)
    boards = models.PositiveSmallIntegerField(null=True, blank=True)
    direction_mean = models.FloatField(null=True, blank=True)
    host = models.BooleanField(default=False)
    known = models.BooleanField(default=True)
    score_term = models.FloatField(null=True, blank=True)
    sopp = models.FloatField(null=True, blank=True)
    par = models.FloatField(null=True, blank=True)
    excess = models.FloatField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["version", "pair_id"], name="pair_once_per_version")
        ]

    def __str__(self) -> str:
        return f"pair {self.pair_id} of {self.version}"


class Match(models.Model):
    """One match of a Swiss or teams event, from one pair's point of view (S3.2)."""

    version = models.ForeignKey(SessionVersion, on_delete=models.CASCADE, related_name="matches")
    pair_id = models.CharField(max_length=20)
    round = models.PositiveSmallIntegerField()
    opponents = models.JSONField(default=list)
    boards = models.PositiveSmallIntegerField()
    score = models.FloatField()

    def __str__(self) -> str:
        return f"pair {self.pair_id} round {self.round}"


class TravellerLine(models.Model):
    version = models.ForeignKey(
        SessionVersion, on_delete=models.CASCADE, related_name="traveller_lines"
    )
    board = models.PositiveSmallIntegerField()
    ns_pair = models.CharField(max_length=20)
    ew_pair = models.CharField(max_length=20)
    contract = models.CharField(max_length=20, blank=True)
    declarer = models.CharField(max_length=2, blank=True)
    lead = models.CharField(max_length=4, blank=True)
    tricks = models.SmallIntegerField(null=True, blank=True)
    ns_score = models.IntegerField(null=True, blank=True)
    ew_score = models.IntegerField(null=True, blank=True)
    ns_adjusted = models.CharField(max_length=8, blank=True)
    ew_adjusted = models.CharField(max_length=8, blank=True)

    class Meta:
        indexes = [models.Index(fields=["version", "board"])]

    def __str__(self) -> str:
        return f"board {self.board}: {self.ns_pair} v {self.ew_pair}"
