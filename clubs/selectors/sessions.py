"""A club's sessions (S3.2, S3.8): the list with each session's SoF, the SoF series, and one
session's page with every pair's SOpp, par and excess as privacy allows (S7, S14.14)."""

import datetime as dt
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Case, When
from django.db.models.functions import Length
from django.shortcuts import get_object_or_404

from clubs.models import Club
from grading.engine.types import PERCENT_SCORING, TEAMS_SCORING
from grading.engine.types import Scoring as EngineScoring
from grading.models import (
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
    FieldStrength,
    field_strength,
    grade_withheld_reason,
    published_grade,
    published_start_grades,
)
from members.models import Member
from members.selectors.groups import pair_group, tables_met

# A date standing apart in an event's name ("Monday Pairs 2026-11-23", "Pairs (23/11/26)"), not
# one joined to other text ("2022-05-08-KM. par" is a series name of its own).
DATE_IN_NAME = re.compile(
    r"\s*[-–(,]?\s*(?<![\w-])(\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{2,4})(?![\w-])\)?\s*"
)
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
    # the strength of field as club pages show it: over published grades only (S14.25)
    sof: float | None = None
    ns_sof: float | None = None
    ew_sof: float | None = None
    series: str = ""
    field: FieldStrength | None = None
    ns_field: FieldStrength | None = None
    ew_field: FieldStrength | None = None

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


def club_session_rows(*, club: Club, series: str = "") -> list[SessionRow]:
    """Every session of the club with its live version, most recent first (S3.2, S3.8).

    The strength of field shown is the average grade at the start of the session of the
    players whose grade is published, with how many are not counted (S14.25: a file can name
    anyone, so the grading's own SoF, over every grade, would give a private one away;
    ``grading.privacy.field_strength``). A two-winner movement's NS and EW figures are the
    same average over each direction's players."""
    sessions = list(
        Session.objects.filter(event__club=club, live_version__isnull=False)
        .select_related("event", "live_version")
        .defer("live_version__payload")
        .order_by("-date", "-start", "-number", "-pk")
    )
    version_ids = [s.live_version_id for s in sessions]
    directions: dict[int, dict[str, str]] = defaultdict(dict)
    for version_id, pair_id, direction in PairResult.objects.filter(
        version_id__in=version_ids
    ).values_list("version_id", "pair_id", "direction"):
        directions[version_id][pair_id] = direction
    graded_ids = [s.live_version_id for s in sessions if s.live_version.sof is not None]
    published = published_start_grades(graded_ids)
    rows = []
    for session in sessions:
        version = session.live_version
        by_pair = directions.get(version.pk, {})
        counted: dict[str, int] = defaultdict(int)
        for direction in by_pair.values():
            counted[direction] += 1
        pairs = version.total_pairs or len(by_pair)
        if version.movement == Movement.TWO_WINNER and ("NS" in counted or "EW" in counted):
            tables = max(counted.get(d, 0) for d in ("NS", "EW"))
        else:
            tables = math.ceil(pairs / 2)
        row = SessionRow(
            session=session,
            version=version,
            pairs=pairs,
            tables=tables,
            known_pairs=version.known_pairs,
            series=series_name(session.event.name),
        )
        if version.sof is not None:
            grades = published.get(version.pk, {})
            row.field = field_strength((g for gs in grades.values() for g in gs), 2 * pairs)
            row.sof = row.field.value
            if row.two_winner and row.graded:
                for direction in ("NS", "EW"):
                    strength = field_strength(
                        (
                            g
                            for pair_id, gs in grades.items()
                            if by_pair.get(pair_id) == direction
                            for g in gs
                        ),
                        2 * counted.get(direction, 0),
                    )
                    setattr(row, f"{direction.lower()}_field", strength)
                    setattr(row, f"{direction.lower()}_sof", strength.value)
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


# A series with at least this many graded sessions is one of the club's regular series and gets
# its own chart; fewer are one-offs (a county event, a charity pairs), listed in one table.
REGULAR_SESSIONS = 3


@dataclass(frozen=True)
class SeriesSplit:
    """The SoF series split for the page: the regular ones most sessions first, then the
    one-offs' sessions newest first as (series, point)."""

    regular: dict[str, list[SeriesPoint]]
    one_offs: list[tuple[str, SeriesPoint]]


def sof_series_split(series: dict[str, list[SeriesPoint]]) -> SeriesSplit:
    """The club's regular series first (most graded sessions first, then by name), the one-off
    events folded into one list (issue 30: a one-dot chart per one-off hid the regular series)."""
    regular = {
        name: points
        for name, points in sorted(series.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        if len(points) >= REGULAR_SESSIONS
    }
    one_offs = sorted(
        ((name, p) for name, points in series.items() if name not in regular for p in points),
        key=lambda item: (item[1].date, item[0]),
        reverse=True,
    )
    return SeriesSplit(regular=regular, one_offs=one_offs)


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
        if scoring in PERCENT_SCORING:
            return "%"
        if scoring == Scoring.AGGREGATE:
            return "points"
        return "IMPs"

    @property
    def by_direction(self) -> bool:
        """Whether pairs are compared within their direction (a column for it on the page)."""
        return any(pair_group(self.version, line.pair) for line in self.lines)


def _player_cell(member: Member | None, name: str) -> PlayerCell:
    withheld = grade_withheld_reason(member) if member is not None else ""
    return PlayerCell(
        name=member.name if member is not None else (name or "Unknown player"),
        number=member.national_number if member is not None else "",
        grade=published_grade(member) if member is not None else None,
        withheld=withheld if member is not None else "Unknown",
    )


def opponents_met(version: SessionVersion, pairs: list[PairResult]) -> dict[str, set[str]]:
    """Per pair of a Swiss or teams session, the pairs it met at the table, as the engine reads
    them (S3.2: the matches, else the travellers; ``grading.engine.ngs.session.table_opponents``
    through ``members.selectors.groups.tables_met``)."""
    tables = tables_met({version.pk: pairs})[version.pk]
    return {pid: {o for _, opponents in met for o in opponents} for pid, met in tables.items()}


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
    the same with the grading's SoF. The strength of field shown is over published grades
    only, with how many players are not counted (S14.25, ``club_session_rows``): it holds no
    withheld grade, so ``n x SoF`` less the published grades gives nothing away. Grades shown
    are published current grades only."""
    session = get_object_or_404(
        Session.objects.select_related("event", "live_version").defer("live_version__payload"),
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
    _hide_group_figures(version, detail.lines)
    return detail


def _hide_group_figures(version: SessionVersion, lines: list[PairLine]) -> None:
    """Hide SOpp, par and excess of every pair whose SOpp averages a withheld grade (S7,
    S14.14): the pairs of the same comparison group (the engine's), and in a teams session
    the pairs that met the withheld pair at the table."""
    withheld = [line for line in lines if line.hidden]
    if not withheld:
        return
    groups = {pair_group(version, line.pair) for line in withheld}
    met = (
        opponents_met(version, [line.pair for line in lines])
        if EngineScoring(version.scoring) in TEAMS_SCORING
        else {}
    )
    withheld_ids = {line.pair.pair_id for line in withheld}
    for line in lines:
        if line.hidden:
            continue
        group = pair_group(version, line.pair)
        if group in groups:
            line.hidden = f"a withheld grade in the {group + ' ' if group else ''}field"
        elif met.get(line.pair.pair_id, set()) & withheld_ids:
            line.hidden = "a withheld grade among the opponents met"


def club_recent_uploads(*, club: Club, limit: int = 5) -> list[Upload]:
    return list(
        Upload.objects.filter(club=club)
        .defer("content")
        .select_related("uploaded_by")
        .order_by("-created")[:limit]
    )
