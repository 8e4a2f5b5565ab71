"""Reads about clubs, and who may administer them (S13)."""

import datetime as dt
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING

from django.db.models import Avg, Case, Count, F, FloatField, Q, QuerySet, When
from django.db.models.functions import Length
from django.shortcuts import get_object_or_404

from clubs.models import Club, ClubRole, HostExemptionRequest, PlannedSession
from grading.engine.ngs.decay import BANDS, shown
from grading.engine.ngs.handicap import match_handicap, mean_grade, pair_handicap, team_handicap
from grading.models import (
    CurrentGrade,
    LedgerEntry,
    Movement,
    PairResult,
    Scoring,
    Session,
    SessionVersion,
    Upload,
)
from grading.privacy import (
    PRIVATE,
    PROVISIONAL,
    PUBLISHED_STATUSES,
    SMALLEST_GROUP,
    grade_withheld_reason,
    published_grade,
    published_grade_q,
    suppressed,
)
from members.models import Member

if TYPE_CHECKING:
    from clubs.handicaps import HandicapTable, MatchLine, TableEntry


def clubs_administered_by(*, user) -> QuerySet[Club]:
    if not user.is_authenticated:
        return Club.objects.none()
    if user.is_staff:
        return Club.objects.all()
    return Club.objects.filter(roles__member__user=user, roles__role=ClubRole.Role.ADMIN).distinct()


def clubs_with_admin_role(*, user) -> QuerySet[Club]:
    """Clubs where the user holds the administrator role (staff status aside)."""
    if not user.is_authenticated:
        return Club.objects.none()
    return Club.objects.filter(roles__member__user=user, roles__role=ClubRole.Role.ADMIN)


def clubs_of_user(*, user) -> QuerySet[Club]:
    if not user.is_authenticated:
        return Club.objects.none()
    return Club.objects.filter(roles__member__user=user).distinct()


def user_can_administer(*, user, club: Club) -> bool:
    """Club administrators of this club and staff (S13)."""
    if not user.is_authenticated:
        return False
    if user.is_staff:
        return True
    return ClubRole.objects.filter(club=club, member__user=user, role=ClubRole.Role.ADMIN).exists()


def club_members(*, club: Club) -> QuerySet[ClubRole]:
    return club.roles.select_related("member").order_by("member__name")


# --------------------------------------------------------------------------------------------
# Club administration reads (issue 7): grade lists, sessions and SoF, band distributions,
# planned sessions, exemptions. Privacy (S7) is applied here, once, for every page and export.

BAND_ORDER = ("Two",) + tuple(name for _, name in reversed(BANDS))  # lowest first


CENT = Decimal("0.01")


def as_printed(value: float | Decimal) -> Decimal:
    """A figure as the decimal it prints as: the grade as shown, 53.33, is exactly 53.33
    (S14.11), not the binary number just below it."""
    return value if isinstance(value, Decimal) else Decimal(repr(float(value)))


def round2(value: float | Decimal | None) -> float | None:
    """To 2 decimals, halves away from zero (3.745 -> 3.75), as a scorer rounds by hand (S8,
    docs/decisions.md "Club pages"). A float is read as the decimal it prints as, so it must be
    the float nearest the exact figure: compute handicaps from the grades as shown with
    ``Decimal`` (``player_handicap``) or ``grading.engine.ngs.handicap``, never in binary
    (``(50 - 53.33) / 2`` is -1.66499999..., a cent short of the published -1.67)."""
    return None if value is None else cents(value)


def cents(value: float | Decimal) -> float:
    """``round2`` of a figure that is there."""
    return float(as_printed(value).quantize(CENT, rounding=ROUND_HALF_UP))


def player_handicap(grade: float, share: int = 1) -> Decimal:
    """A player's handicap ``(50 - G) / share``, exactly, from the grade as shown (S8;
    docs/decisions.md: per-player ``50 - grade``, half of it at 50 %; a pair's is the
    average of its players')."""
    return (Decimal(50) - as_printed(grade)) / share


# ------------------------------------------------------------------------------ grade list

GRADE_SORTS = {
    "name": ("member__name",),
    "-name": ("-member__name",),
    "number": (Length("member__national_number").asc(), "member__national_number"),
    "-number": (Length("member__national_number").desc(), "-member__national_number"),
    "grade": (F("published").asc(nulls_last=True), "member__name"),
    "-grade": (F("published").desc(nulls_last=True), "member__name"),
}


@dataclass(frozen=True)
class GradeRow:
    number: str
    name: str
    role: str
    grade: float | None  # as shown, only when published
    band: str
    status: str  # "Evolving", "Mature", "Out of date", "Provisional" or ""
    withheld: str  # "Private", "Provisional", "No grade" or ""

    @property
    def handicap_100(self) -> float | None:
        return None if self.grade is None else round2(player_handicap(self.grade))

    @property
    def handicap_50(self) -> float | None:
        return None if self.grade is None else round2(player_handicap(self.grade, share=2))


def club_grade_rows(*, club: Club, query: str = "", sort: str = "name") -> list[GradeRow]:
    """The club's members with their published grades (S7, S13), searched and sorted.

    Sorting by grade uses the published grade only: private and provisional members sort last
    whatever their grade, so their place in the list reveals nothing.
    """
    roles = (
        ClubRole.objects.filter(club=club)
        .select_related("member", "member__current_grade")
        .annotate(
            published=Case(
                When(published_grade_q("member__"), then=F("member__current_grade__grade")),
                default=None,
                output_field=FloatField(),
            )
        )
    )
    query = query.strip()
    if query:
        roles = roles.filter(
            Q(member__name__icontains=query) | Q(member__national_number__startswith=query)
        )
    roles = roles.order_by(*GRADE_SORTS.get(sort, GRADE_SORTS["name"]))
    rows = []
    for role in roles:
        member = role.member
        withheld = grade_withheld_reason(member)
        current = getattr(member, "current_grade", None)
        grade = None if withheld else shown(current.grade)
        status = ""
        if withheld == PROVISIONAL:
            status = PROVISIONAL
        elif not withheld:
            status = current.get_status_display()
        rows.append(
            GradeRow(
                number=member.national_number,
                name=member.name,
                role=role.get_role_display(),
                grade=grade,
                band=current.band if grade is not None else "",
                status=status,
                withheld=withheld,
            )
        )
    return rows


# ----------------------------------------------------------------- handicap tables (S8)


@dataclass(frozen=True)
class EntryFigures:
    """A pair's or team's line of a handicap table as published: the average of the grades
    (or estimates) as shown and the handicap, each computed exactly and rounded to the cent,
    halves away from zero (S8, FR 7; docs/decisions.md "Club pages"). The page, the printable
    page and the exports all show these, so they agree to the cent."""

    entry: "TableEntry"
    average: float | None
    handicap: float | None  # pairs: percentage points; teams: IMPs over the table's boards
    handicap_whole: int | None  # teams: to the whole IMP (FR 7's "= 37 IMPs")


@dataclass(frozen=True)
class MatchFigures:
    """Between two teams, what the weaker starts with (FR 7), as published."""

    match: "MatchLine"
    stronger_average: float
    weaker_average: float
    imps: float
    imps_whole: int | None


def _entry_grades(entry: "TableEntry") -> list[float] | None:
    """The grades (or estimates) as shown of every player, or None while one is missing."""
    grades = [p.grade for p in entry.players if p.grade is not None]
    return grades if grades and len(grades) == len(entry.players) else None


def handicap_figures(table: "HandicapTable") -> tuple[list[EntryFigures], list[MatchFigures]]:
    """Every line of the table and every match, to the cent, from the grades as shown (S8).

    ``TableEntry.average`` adds the grades in binary (53.33 + 50.90 gives 52.11499...); these
    figures are computed exactly from the grades as shown (``grading.engine.ngs.handicap``),
    so 52.115 publishes as 52.12 and its handicap -2.115 as -2.12."""
    from clubs.handicaps import PAIRS, whole_imps

    lines: list[EntryFigures] = []
    averages: dict[int, float] = {}
    for entry in table.entries:
        grades = _entry_grades(entry)
        average = handicap = None
        if grades is not None:
            average = averages[id(entry)] = mean_grade(grades)
            if entry.kind == PAIRS:
                first, second = grades
                handicap = pair_handicap(first, second)
            else:
                handicap = team_handicap(average, entry.boards)
        lines.append(
            EntryFigures(
                entry=entry,
                average=round2(average),
                handicap=round2(handicap),
                handicap_whole=whole_imps(handicap) if entry.kind != PAIRS else None,
            )
        )
    matches = []
    for match in table.matches:  # teams with an average only
        stronger, weaker = averages[id(match.stronger)], averages[id(match.weaker)]
        imps = match_handicap(stronger, weaker, table.boards)
        matches.append(
            MatchFigures(match, cents(stronger), cents(weaker), cents(imps), whole_imps(imps))
        )
    return lines, matches


# ------------------------------------------------------------------------- band distribution


@dataclass(frozen=True)
class BandCount:
    band: str
    club: int | None  # None: suppressed (fewer than SMALLEST_GROUP)
    national: int | None
    club_share: float | None
    national_share: float | None


@dataclass(frozen=True)
class BandDistribution:
    rows: list[BandCount]
    club_total: int
    national_total: int
    club_private: int | None
    national_private: int | None


def band_distribution(*, club: Club) -> BandDistribution:
    """Published grades by band for the club and for everyone (S7): counts only, any group of
    fewer than 5 suppressed. Private grades are counted apart, never by band, so the counts
    beside the club's named list reveal nobody's band; provisional grades are not counted."""
    graded = CurrentGrade.objects.filter(status__in=PUBLISHED_STATUSES)
    club_graded = graded.filter(member__club_roles__club=club)
    national = dict(
        graded.filter(member__grade_private=False)
        .values_list("band")
        .annotate(n=Count("id"))
        .values_list("band", "n")
    )
    in_club = dict(
        club_graded.filter(member__grade_private=False)
        .values_list("band")
        .annotate(n=Count("id"))
        .values_list("band", "n")
    )
    private = graded.filter(member__grade_private=True).aggregate(
        national=Count("id"), club=Count("id", filter=Q(member__club_roles__club=club))
    )
    club_total, national_total = sum(in_club.values()), sum(national.values())
    rows = []
    for name in BAND_ORDER:
        c, n = suppressed(in_club.get(name, 0)), suppressed(national.get(name, 0))
        rows.append(
            BandCount(
                band=name,
                club=c,
                national=n,
                club_share=100.0 * c / club_total if c is not None and club_total else None,
                national_share=(
                    100.0 * n / national_total if n is not None and national_total else None
                ),
            )
        )
    return BandDistribution(
        rows=rows,
        club_total=club_total,
        national_total=national_total,
        club_private=suppressed(private["club"]),
        national_private=suppressed(private["national"]),
    )


# ------------------------------------------------------------------- sessions and their SoF

DATE_IN_NAME = re.compile(r"\s*[-–(,]?\s*\b(\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{2,4})\b\)?\s*")
ROLLING_WINDOW = 5


def series_name(event_name: str) -> str:
    """The session series an event belongs to: its name without any date in it, so
    "Monday Pairs 2026-11-16" and "Monday Pairs 2026-11-23" are one series."""
    return DATE_IN_NAME.sub(" ", event_name).strip() or event_name


@dataclass
class SessionRow:
    session: Session
    version: SessionVersion
    pairs: int
    tables: int
    known_pairs: int | None
    sof: float | None
    ns_sof: float | None = None
    ew_sof: float | None = None
    series: str = ""

    @property
    def graded(self) -> bool:
        return self.version.state == SessionVersion.State.GRADED

    @property
    def status(self) -> str:
        if self.graded:
            return "Graded"
        if self.version.state == SessionVersion.State.NOT_GRADED:
            return "Not graded"
        return self.version.get_state_display()

    @property
    def known_share(self) -> float | None:
        if self.known_pairs is None or not self.pairs:
            return None
        return 100.0 * self.known_pairs / self.pairs

    @property
    def two_winner(self) -> bool:
        return self.version.movement == Movement.TWO_WINNER


def _field_sof(value: float | None, players: int) -> float | None:
    """A strength of field is an average of grades: suppressed under 5 players (S7)."""
    return value if value is not None and players >= SMALLEST_GROUP else None


def club_session_rows(*, club: Club, series: str = "") -> list[SessionRow]:
    """Every session of the club with its live version, most recent first (S3.2, S3.8).

    NS and EW SoF of a two-winner movement are the means of the pairs' SOpp in each direction:
    with SOpp_i the average of the other pairs' grades, the mean of the SOpps over a direction
    is the average grade of all its players (unknown players at their S3.8 value ``h_u``)."""
    sessions = list(
        Session.objects.filter(event__club=club, live_version__isnull=False)
        .select_related("event", "live_version")
        .order_by("-date", "-start", "-number", "-pk")
    )
    version_ids = [s.live_version_id for s in sessions]
    groups: dict[int, dict[str, tuple[int, int, float | None]]] = defaultdict(dict)
    for row in (
        PairResult.objects.filter(version_id__in=version_ids)
        .values("version_id", "direction")
        .annotate(n=Count("id"), with_sopp=Count("sopp"), mean_sopp=Avg("sopp"))
        .order_by()
    ):
        groups[row["version_id"]][row["direction"]] = (row["n"], row["with_sopp"], row["mean_sopp"])
    rows = []
    for session in sessions:
        version = session.live_version
        by_direction = groups.get(version.pk, {})
        counted = sum(n for n, _, _ in by_direction.values())
        pairs = version.total_pairs or counted
        if version.movement == Movement.TWO_WINNER and (
            "NS" in by_direction or "EW" in by_direction
        ):
            tables = max(by_direction.get(d, (0, 0, None))[0] for d in ("NS", "EW"))
        else:
            tables = math.ceil(pairs / 2)
        row = SessionRow(
            session=session,
            version=version,
            pairs=pairs,
            tables=tables,
            known_pairs=version.known_pairs,
            sof=_field_sof(version.sof, 2 * pairs),
            series=series_name(session.event.name),
        )
        if row.two_winner and row.graded:
            for direction in ("NS", "EW"):
                n, with_sopp, mean = by_direction.get(direction, (0, 0, None))
                value = _field_sof(mean, 2 * n) if n and with_sopp == n else None
                setattr(row, f"{direction.lower()}_sof", value)
        rows.append(row)
    if series:
        rows = [r for r in rows if r.series == series]
    return rows


@dataclass(frozen=True)
class SeriesPoint:
    date: dt.date
    sof: float
    rolling: float
    label: str


def sof_series(rows: list[SessionRow], window: int = ROLLING_WINDOW) -> dict[str, list]:
    """Graded sessions with a SoF by series, oldest first, with the trailing mean of the last
    ``window`` sessions' SoF (fewer at the start of a series)."""
    by_series: dict[str, list[SessionRow]] = defaultdict(list)
    for row in rows:
        if row.graded and row.sof is not None:
            by_series[row.series].append(row)
    out: dict[str, list[SeriesPoint]] = {}
    for name in sorted(by_series):
        ordered = sorted(by_series[name], key=lambda r: (r.session.date, r.session.number))
        points = []
        for i, row in enumerate(ordered):
            recent = [r.sof for r in ordered[max(0, i + 1 - window) : i + 1]]
            points.append(
                SeriesPoint(
                    date=row.session.date,
                    sof=row.sof,
                    rolling=sum(recent) / len(recent),
                    label=f"{row.session.event.name}, session {row.session.number}",
                )
            )
        out[name] = points
    return out


@dataclass
class PlayerCell:
    name: str
    number: str
    grade: float | None  # published current grade, as shown
    withheld: str


@dataclass
class PairLine:
    pair: PairResult
    players: list[PlayerCell]
    hidden: str = ""  # why SOpp, par and excess are not shown ("" when they are)
    host: bool = False  # the session's host pair: "host — not graded" (S3.9, S14.4)

    @property
    def sopp(self):
        return None if self.hidden else self.pair.sopp

    @property
    def par(self):
        return None if self.hidden else self.pair.par

    @property
    def excess(self):
        return None if self.hidden else self.pair.excess


@dataclass
class SessionDetail:
    session: Session
    version: SessionVersion
    row: SessionRow
    lines: list[PairLine] = field(default_factory=list)
    versions: int = 1

    @property
    def unit(self) -> str:
        scoring = self.version.scoring
        if scoring in (Scoring.MP, Scoring.SWISS_PAIRS_MP):
            return "%"
        if scoring == Scoring.AGGREGATE:
            return "points"
        return "IMPs"


def _player_cell(member: Member | None, name: str) -> PlayerCell:
    withheld = grade_withheld_reason(member) if member is not None else ""
    return PlayerCell(
        name=member.name if member is not None else (name or "Unknown player"),
        number=member.national_number if member is not None else "",
        grade=published_grade(member) if member is not None else None,
        withheld=withheld if member is not None else "Unknown",
    )


PAIRS_SCORINGS = frozenset({Scoring.MP, Scoring.BUTLER, Scoring.CROSS_IMP, Scoring.AGGREGATE})


def comparison_group(version: SessionVersion, pair: PairResult) -> str:
    """The group whose grades a pair's SOpp averages (S3.2, S14.3): its direction in a
    two-winner pairs movement, else the whole field (""). Swiss pairs and teams count the
    opponents met at the table, across directions, so their whole session is one group."""
    if version.movement == Movement.TWO_WINNER and version.scoring in PAIRS_SCORINGS:
        return pair.direction
    return ""


def version_host_pair(version: SessionVersion, pairs: list[PairResult]) -> str | None:
    """The pair grading treated as the host pair (S3.9, S14.4): an approved request, as the
    ledger recorded it when it processed this version, wins over the file's marks; else the
    first pair the file marks non-rateable (``PairResult.host`` is the file's mark only)."""
    ids = {pair.pair_id for pair in pairs}
    if version.state == SessionVersion.State.GRADED:
        requested = (
            LedgerEntry.objects.filter(version=version, operation=LedgerEntry.Operation.PROCESS)
            .order_by("-seq")
            .values_list("host_pair", flat=True)
            .first()
        )
        if requested:
            return requested if requested in ids else None
    marked = sorted((pair.pk, pair.pair_id) for pair in pairs if pair.host)
    return marked[0][1] if marked else None


def club_session_detail(*, club: Club, session_id: int) -> SessionDetail:
    """One session of the club: every pair's score, SOpp, par and excess (S3.5).

    A pair with a private or provisional player shows none of SOpp, par and excess: par and
    SOpp together give the pair's average grade, and with the partner's grade, the player's
    (S7). Nor does any other pair of its comparison group (S3.2): each visible pair's grade is
    ``par - 50 + SOpp`` and the group's total ``(n - 1) SOpp + grade``, so the hidden pair's
    grade would be the total less the others'; any one of SOpp, par or excess per pair does
    the same with the SoF, which the page shows (S7 allows it, 5 players or more). What stays
    is the SoF, the scores and today's published grades: ``n x SoF`` less the other players'
    grades today still approximates the hidden pair's, off by however far the field's grades
    have moved since the session (an S7 residual the SoF report carries everywhere). Grades
    shown are published current grades only."""
    session = get_object_or_404(
        Session.objects.select_related("event", "live_version"),
        pk=session_id,
        event__club=club,
        live_version__isnull=False,
    )
    version = session.live_version
    pairs = list(
        version.pairs.select_related("player1__current_grade", "player2__current_grade")
        .annotate(
            direction_order=Case(
                When(direction="NS", then=0), When(direction="EW", then=1), default=2
            )
        )
        .order_by("direction_order", Length("pair_id"), "pair_id")
    )
    rows = {r.version.pk: r for r in club_session_rows(club=club) if r.session.pk == session.pk}
    detail = SessionDetail(
        session=session,
        version=version,
        row=rows[version.pk],
        versions=session.versions.count(),
    )
    host = version_host_pair(version, pairs)
    for pair in pairs:
        players = [
            _player_cell(pair.player1, pair.player1_name),
            _player_cell(pair.player2, pair.player2_name),
        ]
        hidden = ""
        for cell, member in zip(players, (pair.player1, pair.player2), strict=True):
            if member is not None and cell.withheld in (PRIVATE, PROVISIONAL):
                hidden = f"{cell.withheld.lower()} grade"
        detail.lines.append(
            PairLine(pair=pair, players=players, hidden=hidden, host=pair.pair_id == host)
        )
    withheld_in = {comparison_group(version, line.pair) for line in detail.lines if line.hidden}
    for line in detail.lines:
        group = comparison_group(version, line.pair)
        if not line.hidden and group in withheld_in:
            line.hidden = f"a withheld grade in the {group + ' ' if group else ''}field"
    return detail


# ----------------------------------------------------------------------- dashboard, uploads


def club_recent_uploads(*, club: Club, limit: int = 5) -> list[Upload]:
    return list(
        Upload.objects.filter(club=club)
        .defer("content")
        .select_related("uploaded_by")
        .order_by("-created")[:limit]
    )


def club_grade_summary(*, club: Club) -> dict:
    """Counts for the dashboard: members, published grades, private and provisional."""
    return ClubRole.objects.filter(club=club).aggregate(
        members=Count("id"),
        published=Count("id", filter=published_grade_q("member__")),
        private=Count("id", filter=Q(member__grade_private=True)),
        provisional=Count(
            "id",
            filter=Q(member__grade_private=False)
            & Q(member__current_grade__status=CurrentGrade.Status.PROVISIONAL),
        ),
    )


def club_top_grades(*, club: Club, limit: int = 10) -> list[GradeRow]:
    return [r for r in club_grade_rows(club=club, sort="-grade") if r.grade is not None][:limit]


# ---------------------------------------------------------------- planned sessions, exemptions


def planned_session_of(
    planned: list[PlannedSession], *, start: dt.time | None, event_name: str
) -> PlannedSession | None:
    """Which of a club's planned sessions of a day a results session is (S3.9): the only one;
    of several, the one starting nearest the results' start, else the one of the same event
    name; None when nothing tells them apart (no start time, other names)."""
    if len(planned) <= 1:
        return planned[0] if planned else None
    if start is not None:
        nearest = min(_minutes_apart(p.start, start) for p in planned)
        closest = [p for p in planned if _minutes_apart(p.start, start) == nearest]
        if len(closest) == 1:
            return closest[0]
    named = [p for p in planned if p.event_name.strip().lower() == event_name.strip().lower()]
    return named[0] if len(named) == 1 else None


def _minutes_apart(a: dt.time, b: dt.time) -> int:
    return abs((a.hour - b.hour) * 60 + a.minute - b.minute)


def planned_sessions_played(*, club_id: int, planned: list[PlannedSession]) -> set[int]:
    """The ids of those planned sessions whose results are in: each results session of their
    days is matched by ``planned_session_of``; one that matches none of several stands for
    them all (as its host approvals do, ``clubs.services.approved_host_numbers``)."""
    of_day: dict[dt.date, list[PlannedSession]] = defaultdict(list)
    for p in PlannedSession.objects.filter(club_id=club_id, date__in={p.date for p in planned}):
        of_day[p.date].append(p)
    played: set[int] = set()
    results = Session.objects.filter(
        event__club_id=club_id, date__in=set(of_day), live_version__isnull=False
    ).values_list("date", "start", "event__name")
    for date, start, event_name in results:
        match = planned_session_of(of_day[date], start=start, event_name=event_name)
        played |= {match.pk} if match else {p.pk for p in of_day[date]}
    return played


def planned_sessions_upcoming(*, club: Club, today: dt.date) -> list[PlannedSession]:
    """Planned sessions still to be played: today's or later, and without results in (a
    session played this afternoon and uploaded is no longer upcoming)."""
    planned = list(
        PlannedSession.objects.filter(club=club, date__gte=today)
        .select_related("exemption", "exemption__member", "exemption__partner")
        .order_by("date", "start")
    )
    played = planned_sessions_played(club_id=club.pk, planned=planned)
    return [p for p in planned if p.pk not in played]


def planned_session_results_in(*, planned: PlannedSession) -> bool:
    """Whether the club's results for this planned session are in: a host decision no longer
    applies then."""
    return planned.pk in planned_sessions_played(club_id=planned.club_id, planned=[planned])


def duration_text(delta: dt.timedelta) -> str:
    """ "3 days 2 h", "2 h 10 min", "25 min": how far apart two moments are."""
    minutes = max(0, int(delta.total_seconds() // 60))
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    if days:
        return f"{days} day{'s' if days > 1 else ''}" + (f" {hours} h" if hours else "")
    if hours:
        return f"{hours} h" + (f" {minutes} min" if minutes else "")
    return f"{minutes} min"


@dataclass
class ExemptionRow:
    request: HostExemptionRequest
    start: dt.datetime
    deadline: dt.datetime
    results_in: bool

    @property
    def before_deadline(self) -> dt.timedelta:
        """How long before the request deadline (start + 30 minutes) the member asked."""
        return self.deadline - self.request.created

    @property
    def before_deadline_text(self) -> str:
        return duration_text(self.before_deadline)

    @property
    def after_start(self) -> bool:
        return self.request.created > self.start

    @property
    def waiting(self) -> bool:
        return self.request.status == HostExemptionRequest.Status.WAITING


def club_exemption_rows(*, club: Club, status: str = "") -> list[ExemptionRow]:
    """The club's host requests (S3.9): waiting ones first, then by session, latest first."""
    from clubs.services import EXEMPTION_DEADLINE, planned_session_start

    requests = (
        HostExemptionRequest.objects.filter(planned_session__club=club)
        .select_related("planned_session", "member", "partner", "decided_by")
        .annotate(
            waiting_first=Case(When(status=HostExemptionRequest.Status.WAITING, then=0), default=1)
        )
        .order_by("waiting_first", "-planned_session__date", "-planned_session__start")
    )
    if status:
        requests = requests.filter(status=status)
    requests = list(requests)
    played = planned_sessions_played(club_id=club.pk, planned=[r.planned_session for r in requests])
    rows = []
    for request in requests:
        planned = request.planned_session
        start = planned_session_start(planned)
        rows.append(ExemptionRow(request, start, start + EXEMPTION_DEADLINE, planned.pk in played))
    return rows


def member_search(*, club: Club, query: str, limit: int = 20) -> list[Member]:
    """Members for the handicap form's autocomplete: the club's first, then anyone by exact
    number (a visitor). Names and numbers only; never a grade."""
    query = query.strip()
    if len(query) < 2:
        return []
    match = Q(name__icontains=query) | Q(national_number__startswith=query)
    found = list(
        Member.objects.filter(match, club_roles__club=club).distinct().order_by("name")[:limit]
    )
    if query.isdigit() and not any(m.national_number == query for m in found):
        visitor = Member.objects.filter(national_number=query).first()
        if visitor is not None:
            found.insert(0, visitor)
    return found[:limit]
