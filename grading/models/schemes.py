"""The two other schemes (S10, S11): PPI (national, like the NGS) and Brambledown (per club that
keeps it). Both are deterministic functions of the schemes' log (:class:`SchemeEntry`): see
``grading/schemes/``."""

from django.db import models

from grading.models.results import SessionVersion


class SchemeEntry(models.Model):
    """The schemes' log (S14.17), append-only: each version PPI and Brambledown were told of,
    in the order processed, and each version leaving them. It mirrors the NGS ledger for the
    versions the NGS grades and holds, besides, the versions the NGS stores not graded: the
    NGS's 2/3 rule is its own, and PPI (S10) and Brambledown (S11) rate such sessions too
    (their engines decide which sessions they rate). ``seq`` is the schemes' own order."""

    class Operation(models.TextChoices):
        PROCESS = "process", "Process"
        WITHDRAW = "withdraw", "Withdraw"

    seq = models.PositiveBigIntegerField(unique=True)
    operation = models.CharField(max_length=10, choices=Operation.choices)
    version = models.ForeignKey(
        SessionVersion, on_delete=models.PROTECT, related_name="scheme_entries"
    )
    host_pair = models.CharField(
        max_length=20, blank=True, help_text="An approved host request's pair (S3.9)."
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["seq"]
        verbose_name_plural = "scheme entries"

    def __str__(self) -> str:
        return f"#{self.seq} {self.operation} {self.version}"


class SchemeHead(models.Model):
    """The single row saying how far the schemes have folded their log. ``ppi_seq``: the last
    entry PPI applied (an entry whose predecessor is not the one applied rebuilds PPI by
    replay). ``steps_seq``: the last entry both PPI and Brambledown have been brought past by
    the task that follows the ledger's steps (``grading.schemes.after_step``); the entries
    after it are waiting for that task. Its row lock serialises every fold of the log."""

    ppi_seq = models.PositiveBigIntegerField(default=0)
    steps_seq = models.PositiveBigIntegerField(default=0)

    def __str__(self) -> str:
        return f"PPI at scheme entry #{self.ppi_seq}"


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
    seq = models.PositiveBigIntegerField(default=0, help_text="Scheme entry of the last event.")

    class Meta:
        indexes = [models.Index(fields=["shown", "-ppi"])]

    def __str__(self) -> str:
        return f"{self.member}: PPI {self.ppi:.2f}"


class PPIPoint(models.Model):
    """One value of a member's PPI history: after the event of scheme entry ``seq``."""

    # No index of its own: the unique (member, seq) and the chart's index lead with it.
    member = models.ForeignKey(
        "members.Member", on_delete=models.CASCADE, related_name="+", db_index=False
    )
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
        # The grade card's PPI chart (``grading.schemes.selectors.ppi_chart_points``) reads a
        # member's points from this index alone: their points lie together in it, where the
        # table holds them in the order they were folded, one page each (docs/decisions.md).
        indexes = [
            models.Index(fields=["member", "date", "seq"], include=["ppi"], name="ppi_chart")
        ]

    def __str__(self) -> str:
        return f"{self.member} #{self.seq}: {self.ppi:.2f}"


class BrambledownClubState(models.Model):
    """Where a club's Brambledown grading stands (S11): the last quarter regraded, the open
    quarter, and the engine state right after the last regrade (JSON), from which the open
    quarter's sessions are recorded again when one of them is corrected or withdrawn.

    The engine state now (that snapshot and the open quarter's sessions) is kept in rows,
    :class:`BrambledownMemberState` and :class:`BrambledownPairState`, as of the club's log
    entry ``seq`` (0: not kept; the next update records the club afresh). ``last_key`` is the
    order of the last session recorded in the open quarter (``[date, club, event id,
    session]``), ``recorded`` how many were, ``latest`` the latest date of play of the club's
    live match-pointed versions: an upload that sorts after them all in the open quarter is
    recorded from the rows of its players alone (``grading.schemes.brambledown.add_session``); one of a later
    quarter closes the open quarter from the rows of those who played in it
    (``last_quarter``; ``grading.schemes.brambledown.close_quarter``)."""

    club = models.OneToOneField(
        "clubs.Club", on_delete=models.CASCADE, related_name="brambledown_state"
    )
    regraded = models.CharField(max_length=6, blank=True, help_text="e.g. 2026Q3")
    open_quarter = models.CharField(max_length=6, blank=True)
    snapshot = models.JSONField(default=dict, blank=True)
    sessions = models.PositiveIntegerField(default=0, help_text="Sessions rated in all.")
    seq = models.PositiveBigIntegerField(default=0, help_text="The club's last entry folded.")
    last_key = models.JSONField(default=list, blank=True)
    recorded = models.PositiveIntegerField(default=0, help_text="Sessions in the open quarter.")
    latest = models.DateField(null=True, blank=True)
    updated = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.club}: regraded {self.regraded or '-'}, open {self.open_quarter or '-'}"


class BrambledownMemberState(models.Model):
    """A member's Brambledown engine state at a club now (S11; ``BrambledownPlayer``): the
    figures in the engine's own form, keyed by membership number as the engine keys them."""

    club = models.ForeignKey(  # (indexed by the unique constraint, which leads with it)
        "clubs.Club", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    number = models.CharField(max_length=20)
    grade = models.SmallIntegerField(null=True, blank=True)
    first_iprs = models.JSONField(default=list)
    quarter_iprs = models.JSONField(default=list)
    tournaments = models.PositiveIntegerField(default=0)
    quarters = models.JSONField(default=list, help_text="[[quarter, tournaments], ...]")
    partners = models.JSONField(default=list, help_text="[[quarter, [numbers]], ...]")
    history = models.JSONField(default=list, help_text="[[date, quarter, grade, reason], ...]")
    last_quarter = models.CharField(max_length=6, blank=True, help_text="Of ``quarters``.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["club", "number"], name="bd_member_state_once")
        ]
        indexes = [models.Index(fields=["club", "last_quarter"], name="bd_member_state_quarter")]

    def __str__(self) -> str:
        return f"{self.number} at {self.club_id}"


class BrambledownPairState(models.Model):
    """Two members' graded tournaments together at a club now (S11; ``PairRecord``)."""

    club = models.ForeignKey(
        "clubs.Club", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    first = models.CharField(max_length=20)
    second = models.CharField(max_length=20)
    tournaments = models.PositiveIntegerField(default=0)
    quarters = models.JSONField(default=list, help_text="[[quarter, tournaments], ...]")
    last_quarter = models.CharField(max_length=6, blank=True, help_text="Of ``quarters``.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["club", "first", "second"], name="bd_pair_state_once")
        ]
        indexes = [models.Index(fields=["club", "last_quarter"], name="bd_pair_state_quarter")]

    def __str__(self) -> str:
        return f"{self.first} & {self.second} at {self.club_id}"


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
