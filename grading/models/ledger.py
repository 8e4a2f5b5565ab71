"""The grading ledger and what folding it produced (S5): every stored grade is a deterministic
function of the ledger (S5.4). ``LedgerEntry`` rows are appended one at a time under the lock held
on ``LedgerHead``; ``replay --check`` recomputes the grades from empty."""

from django.db import models

from grading.models.results import SessionVersion


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
        verbose_name_plural = "ledger entries"  # not Django's "ledger entrys" in the admin

    def __str__(self) -> str:
        return f"#{self.seq} {self.operation} {self.version}"


class SessionGrade(models.Model):
    """A member's grade for one session version, with every part of S3.4, or the reason."""

    entry = models.ForeignKey(
        LedgerEntry, null=True, blank=True, on_delete=models.PROTECT, related_name="grades"
    )
    # No index of their own: the unique (version, member) and the (member, date) indexes lead
    # with them (a refold or an upload writes every index of its rows).
    version = models.ForeignKey(
        SessionVersion, on_delete=models.PROTECT, related_name="session_grades", db_index=False
    )
    member = models.ForeignKey(
        "members.Member", on_delete=models.PROTECT, related_name="session_grades", db_index=False
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

    # member_a is led by the unique (member_a, member_b) index, member_b by the one below.
    member_a = models.ForeignKey(
        "members.Member", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    member_b = models.ForeignKey(
        "members.Member", on_delete=models.CASCADE, related_name="+", db_index=False
    )
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


class LedgerSubject(models.Model):
    """A player (``key`` = national number) or partnership (``key`` = "a+b", a < b) the fold has
    met, with the initial grade fixed at its first appearance (S14.3, S14.7, S14.10). Kept
    after its last live session is withdrawn: the engine keeps it too (docs/ngs.md)."""

    key = models.CharField(max_length=64)
    initial = models.FloatField()

    class Meta:
        # A constraint, not ``unique=True``: no second (LIKE) index on PostgreSQL, which no
        # query uses (the only LIKE, '%+%', cannot).
        constraints = [models.UniqueConstraint(fields=["key"], name="one_subject_per_key")]

    def __str__(self) -> str:
        return f"{self.key} from {self.initial:.2f}"


class LedgerHistory(models.Model):
    """One live graded session in a subject's history: the engine's ``HistoryEntry`` (S4),
    deleted when its version is withdrawn. Read per subject in ledger order by a grading step
    (the unique index), deleted per version by a withdrawal (the version index)."""

    subject = models.ForeignKey(LedgerSubject, on_delete=models.CASCADE, related_name="+")
    version_id = models.BigIntegerField(db_index=True)
    seq = models.PositiveBigIntegerField()
    pos = models.PositiveSmallIntegerField(help_text="Order among the version's subjects.")
    date = models.DateField()
    boards = models.PositiveIntegerField()
    grade = models.FloatField()
    factor = models.FloatField()
    partner = models.CharField(max_length=20, blank=True)
    pad = models.FloatField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["subject", "seq"], name="one_history_row_per_step")
        ]

    def __str__(self) -> str:
        return f"{self.subject_id} #{self.seq} {self.date}"


class LedgerTables(models.Model):
    """What the subject tables (``LedgerSubject``, ``LedgerHistory``, ``LedgerLive``) hold: the
    fold of the ledger up to ``seq`` with the set ``params``. One row, written in the same
    transaction as the tables' rows, whichever transaction that is (a grading step's, a refill's,
    a refold's or its second connection's: docs/decisions.md), so it always says what they hold."""

    seq = models.PositiveBigIntegerField(default=0)
    params = models.CharField(max_length=40, blank=True)

    class Meta:
        verbose_name_plural = "ledger tables"

    def __str__(self) -> str:
        return f"subject tables at #{self.seq} ({self.params or 'no set'})"


class LedgerLive(models.Model):
    """A live graded version and its date of play: the latest live date is the ledger's
    reference date (S14.6), found by the date index."""

    version_id = models.BigIntegerField(primary_key=True)
    seq = models.PositiveBigIntegerField()
    date = models.DateField(db_index=True)

    def __str__(self) -> str:
        return f"{self.version_id} #{self.seq} {self.date}"
