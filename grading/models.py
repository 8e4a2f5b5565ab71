"""Results as uploaded, the grading ledger, and the grades it produces (S5, S12).

Every stored grade is a deterministic function of the ledger (S5.4): ``LedgerEntry`` rows are
appended one at a time under the lock held on ``LedgerHead``; ``SessionGrade``,
``CurrentGrade`` and ``PartnershipGrade`` are what folding the ledger produced, and
``replay --check`` recomputes them from empty.
"""

from django.conf import settings
from django.db import models


class Scoring(models.TextChoices):
    MP = "MP", "Match points"
    BUTLER = "BUTLER", "Butler IMPs"
    CROSS_IMP = "CROSS_IMP", "Cross-IMPs"
    AGGREGATE = "AGGREGATE", "Aggregate"
    SWISS_PAIRS_MP = "SWISS_PAIRS_MP", "Swiss pairs (match points)"
    SWISS_PAIRS_IMP = "SWISS_PAIRS_IMP", "Swiss pairs (IMPs)"
    SWISS_TEAMS = "SWISS_TEAMS", "Swiss teams"
    MULTIPLE_TEAMS = "MULTIPLE_TEAMS", "Multiple teams"
    TEAM_LEAGUE = "TEAM_LEAGUE", "Teams league"
    INDIVIDUAL = "INDIVIDUAL", "Individual"
    HEAD_TO_HEAD = "HEAD_TO_HEAD", "Head-to-head teams"
    POINT_A_BOARD = "POINT_A_BOARD", "Point-a-board teams"


class Movement(models.TextChoices):
    ONE_WINNER = "ONE_WINNER", "One winner"
    TWO_WINNER = "TWO_WINNER", "Two winners"


class Upload(models.Model):
    """One results file as received, with what became of it."""

    class Status(models.TextChoices):
        RECEIVED = "received", "Received"
        REFUSED = "refused", "Refused"
        DUPLICATE = "duplicate", "Duplicate file"
        STORED = "stored", "Stored, waiting to be graded"
        GRADED = "graded", "Graded"
        FAILED = "failed", "Grading failed"

    club = models.ForeignKey("clubs.Club", on_delete=models.PROTECT, related_name="uploads")
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


class LedgerHead(models.Model):
    """The single row locked while a ledger operation is appended and folded (S5.2)."""

    last_seq = models.PositiveBigIntegerField(default=0)
    reference_date = models.DateField(null=True, blank=True)
    params_name = models.CharField(max_length=40, default="ngs-15a")

    def __str__(self) -> str:
        return f"ledger at #{self.last_seq}"


class LedgerEntry(models.Model):
    """An append-only record of one operation: process a version, or withdraw it (S5.4)."""

    class Operation(models.TextChoices):
        PROCESS = "process", "Process"
        WITHDRAW = "withdraw", "Withdraw"

    seq = models.PositiveBigIntegerField(unique=True)
    operation = models.CharField(max_length=10, choices=Operation.choices)
    version = models.ForeignKey(
        SessionVersion, on_delete=models.PROTECT, related_name="ledger_entries"
    )
    params_name = models.CharField(max_length=40)
    host_pair = models.CharField(
        max_length=20, blank=True, help_text="An approved host request's pair (S3.9)."
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["seq"]

    def __str__(self) -> str:
        return f"#{self.seq} {self.operation} {self.version}"


class SessionGrade(models.Model):
    """A member's grade for one session version, with every part of S3.4, or the reason."""

    entry = models.ForeignKey(
        LedgerEntry, null=True, blank=True, on_delete=models.PROTECT, related_name="grades"
    )
    version = models.ForeignKey(
        SessionVersion, on_delete=models.PROTECT, related_name="session_grades"
    )
    member = models.ForeignKey(
        "members.Member", on_delete=models.PROTECT, related_name="session_grades"
    )
    partner = models.ForeignKey(
        "members.Member", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    date = models.DateField()
    pair_id = models.CharField(max_length=20)
    grade_before = models.FloatField()
    partner_grade = models.FloatField(null=True, blank=True)
    sopp = models.FloatField(null=True, blank=True)
    score_term = models.FloatField(null=True, blank=True)
    excess = models.FloatField(null=True, blank=True)
    regular_adjustment = models.FloatField(default=0.0)
    gain = models.FloatField()
    par = models.FloatField(null=True, blank=True)
    boards = models.PositiveSmallIntegerField()
    boards_reported = models.BooleanField(default=True)
    factor = models.FloatField(default=1.0)
    session_grade = models.FloatField(null=True, blank=True)
    grade_after = models.FloatField(null=True, blank=True)
    reason = models.CharField(max_length=255, blank=True)
    live = models.BooleanField(default=True, help_text="False once the version is withdrawn.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["version", "member"], name="one_grade_per_version")
        ]
        indexes = [
            models.Index(fields=["member", "-date"]),
            models.Index(fields=["member", "live", "-date"]),
        ]

    def __str__(self) -> str:
        return f"{self.member} {self.date}: {self.session_grade}"


class CurrentGrade(models.Model):
    """A member's grade now (S4), kept up to date after each fold step and each night."""

    class Status(models.TextChoices):
        PROVISIONAL = "P", "Provisional"
        EVOLVING = "E", "Evolving"
        MATURE = "M", "Mature"
        OUT_OF_DATE = "O", "Out of date"

    member = models.OneToOneField(
        "members.Member", on_delete=models.CASCADE, related_name="current_grade"
    )
    grade = models.FloatField()
    status = models.CharField(max_length=1, choices=Status.choices)
    band = models.CharField(max_length=20)
    boards_in_window = models.PositiveIntegerField(default=0)
    sessions_in_window = models.PositiveIntegerField(default=0)
    initial_grade = models.FloatField()
    last_session_date = models.DateField(null=True, blank=True)
    as_of = models.DateField()
    seq = models.PositiveBigIntegerField(default=0, help_text="Last ledger entry applied.")

    class Meta:
        indexes = [models.Index(fields=["status", "-grade"])]

    def __str__(self) -> str:
        return f"{self.member}: {self.grade:.2f} {self.status}"


class PartnershipGrade(models.Model):
    """The grade of two members as a partnership (S6); ``member_a`` has the lower number."""

    member_a = models.ForeignKey("members.Member", on_delete=models.CASCADE, related_name="+")
    member_b = models.ForeignKey("members.Member", on_delete=models.CASCADE, related_name="+")
    grade = models.FloatField()
    first_value = models.FloatField()
    boards_in_window = models.PositiveIntegerField(default=0)
    boards_together = models.PositiveIntegerField(default=0)
    sessions_together = models.PositiveIntegerField(default=0)
    last_played = models.DateField(null=True, blank=True)
    shown = models.BooleanField(default=False, help_text="300 boards in the last 3 years (S6).")
    as_of = models.DateField()
    seq = models.PositiveBigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["member_a", "member_b"], name="one_partnership")
        ]
        indexes = [models.Index(fields=["member_b"])]

    def __str__(self) -> str:
        return f"{self.member_a} & {self.member_b}: {self.grade:.2f}"


# --------------------------------------------------------------------------------------------
# The two other schemes (issue 8, S10, S11): PPI (national, like the NGS) and Brambledown (per
# club that keeps it). Both are deterministic functions of the ledger: see grading/schemes.py.


class SchemeHead(models.Model):
    """The single row saying how far PPI has folded the ledger (``ppi_seq``: the last ledger
    entry applied). A step whose predecessor is not the one applied rebuilds PPI by replay."""

    ppi_seq = models.PositiveBigIntegerField(default=0)

    def __str__(self) -> str:
        return f"PPI at ledger #{self.ppi_seq}"


class PPIRating(models.Model):
    """A member's Bridge Club Live PPI (S10) after the last event they played.

    ``boards`` is ``k``; ``months`` the qualifying boards per calendar month
    (``[[year * 12 + month - 1, boards], ...]``) from which ``w`` and the active test come;
    ``recent_boards``, ``active`` are as of ``as_of`` (the selectors recompute them for today).
    """

    class Suit(models.TextChoices):
        SPADES = "S", "Spades"
        HEARTS = "H", "Hearts"
        DIAMONDS = "D", "Diamonds"
        CLUBS = "C", "Clubs"

    member = models.OneToOneField(
        "members.Member", on_delete=models.CASCADE, related_name="ppi_rating"
    )
    ppi = models.FloatField()
    boards = models.PositiveIntegerField(default=0)
    months = models.JSONField(default=list)
    recent_boards = models.PositiveIntegerField(default=0)
    shown = models.BooleanField(default=False, help_text="50 qualifying boards or more (S10).")
    active = models.BooleanField(default=False)
    suit = models.CharField(max_length=1, choices=Suit.choices)
    as_of = models.DateField()
    seq = models.PositiveBigIntegerField(default=0, help_text="Ledger entry of the last event.")

    class Meta:
        indexes = [models.Index(fields=["shown", "-ppi"])]

    def __str__(self) -> str:
        return f"{self.member}: PPI {self.ppi:.2f}"


class PPIPoint(models.Model):
    """One value of a member's PPI history: after the event of ledger entry ``seq``."""

    member = models.ForeignKey("members.Member", on_delete=models.CASCADE, related_name="+")
    version = models.ForeignKey(
        SessionVersion, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    seq = models.PositiveBigIntegerField()
    date = models.DateField()
    ppi = models.FloatField()
    boards = models.PositiveIntegerField(help_text="Boards counted in this event.")
    total_boards = models.PositiveIntegerField()
    mode = models.CharField(max_length=20, blank=True)

    class Meta:
        ordering = ["seq"]
        constraints = [
            models.UniqueConstraint(fields=["member", "seq"], name="ppi_point_once_per_event")
        ]

    def __str__(self) -> str:
        return f"{self.member} #{self.seq}: {self.ppi:.2f}"


class BrambledownClubState(models.Model):
    """Where a club's Brambledown grading stands (S11): the last quarter regraded, the open
    quarter, and the engine state right after the last regrade (JSON), from which the open
    quarter's sessions are recorded after each upload."""

    club = models.OneToOneField(
        "clubs.Club", on_delete=models.CASCADE, related_name="brambledown_state"
    )
    regraded = models.CharField(max_length=6, blank=True, help_text="e.g. 2026Q3")
    open_quarter = models.CharField(max_length=6, blank=True)
    snapshot = models.JSONField(default=dict, blank=True)
    sessions = models.PositiveIntegerField(default=0, help_text="Sessions rated in all.")
    updated = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.club}: regraded {self.regraded or '-'}, open {self.open_quarter or '-'}"


class BrambledownQuarter(models.Model):
    """A closed quarter of one club: how many sessions, and each regrade (S11)."""

    club = models.ForeignKey("clubs.Club", on_delete=models.CASCADE, related_name="+")
    quarter = models.CharField(max_length=6)
    sessions = models.PositiveIntegerField(default=0)
    changes = models.JSONField(default=list, help_text="[[number, old, new, n IPRs], ...]")
    closed = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["club", "quarter"]
        constraints = [models.UniqueConstraint(fields=["club", "quarter"], name="bd_quarter_once")]

    def __str__(self) -> str:
        return f"{self.club} {self.quarter}"


class BrambledownGrade(models.Model):
    """A member's Brambledown grade at one club (S11); ``grade`` is None while new (fewer
    than three performances). List flags are those of the last quarter regraded."""

    club = models.ForeignKey("clubs.Club", on_delete=models.CASCADE, related_name="+")
    member = models.ForeignKey(
        "members.Member", on_delete=models.CASCADE, related_name="brambledown_grades"
    )
    grade = models.SmallIntegerField(null=True, blank=True)
    performances = models.PositiveSmallIntegerField(
        default=0, help_text="First performances while new (a grade after three)."
    )
    quarter_iprs = models.PositiveSmallIntegerField(default=0, help_text="IPRs in open quarter.")
    tournaments = models.PositiveIntegerField(default=0)
    quarter = models.CharField(max_length=6, blank=True, help_text="The last quarter regraded.")
    on_a_list = models.BooleanField(default=False)
    on_b_list = models.BooleanField(default=False)
    last_date = models.DateField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["club", "member"], name="bd_grade_once_per_club")
        ]
        indexes = [models.Index(fields=["member"])]

    def __str__(self) -> str:
        return f"{self.member} at {self.club}: {self.grade if self.grade is not None else 'new'}"


class BrambledownPoint(models.Model):
    """One value of a member's Brambledown grade history at a club: ``grade`` from ``date``."""

    club = models.ForeignKey("clubs.Club", on_delete=models.CASCADE, related_name="+")
    member = models.ForeignKey("members.Member", on_delete=models.CASCADE, related_name="+")
    date = models.DateField()
    quarter = models.CharField(max_length=6)
    grade = models.SmallIntegerField()
    reason = models.CharField(max_length=10, help_text='"new" or "regrade".')

    class Meta:
        ordering = ["date", "pk"]
        indexes = [models.Index(fields=["member", "club", "date"])]

    def __str__(self) -> str:
        return f"{self.member} {self.date}: {self.grade}"


class BrambledownRating(models.Model):
    """A member's PPR and IPR in one session of a club that keeps Brambledown (S11)."""

    club = models.ForeignKey("clubs.Club", on_delete=models.CASCADE, related_name="+")
    version = models.ForeignKey(SessionVersion, on_delete=models.CASCADE, related_name="+")
    member = models.ForeignKey("members.Member", on_delete=models.CASCADE, related_name="+")
    partner = models.ForeignKey(
        "members.Member", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    date = models.DateField()
    pair_id = models.CharField(max_length=20)
    percent = models.FloatField()
    field_average = models.FloatField()
    ppr = models.FloatField()
    own = models.SmallIntegerField(null=True, blank=True, help_text="None while new.")
    partner_grade = models.FloatField()
    ipr = models.FloatField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["version", "member"], name="bd_rating_once")]
        indexes = [models.Index(fields=["club", "date"]), models.Index(fields=["member"])]

    def __str__(self) -> str:
        return f"{self.member} {self.date}: IPR {self.ipr:.1f}"


class BrambledownListEntry(models.Model):
    """One line of a club's A, B or pairs list at the end of a quarter (S11). For the pairs
    list ``partner`` is the second member and ``grade`` the mean of the two grades."""

    class Kind(models.TextChoices):
        A = "A", "A list"
        B = "B", "B list"
        PAIRS = "pairs", "Pairs list"

    club = models.ForeignKey("clubs.Club", on_delete=models.CASCADE, related_name="+")
    quarter = models.CharField(max_length=6)
    kind = models.CharField(max_length=5, choices=Kind.choices)
    rank = models.PositiveSmallIntegerField()
    member = models.ForeignKey("members.Member", on_delete=models.CASCADE, related_name="+")
    partner = models.ForeignKey(
        "members.Member", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    grade = models.FloatField()
    member_grade = models.SmallIntegerField()
    partner_grade = models.SmallIntegerField(null=True, blank=True)
    tournaments = models.PositiveIntegerField()
    in_quarter = models.PositiveIntegerField()
    partners = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["club", "quarter", "kind", "rank"]
        indexes = [models.Index(fields=["club", "quarter", "kind"])]

    def __str__(self) -> str:
        return f"{self.club} {self.quarter} {self.kind} #{self.rank}"


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
