"""The member's session history: rows, decay weights and flags (S4, S5.2, S5.3)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.db.models import OuterRef, QuerySet, Subquery

from grading.engine.ngs import (
    HistoryEntry,
    NGSParams,
    Reason,
    career_starts,
    weighted_window,
    years_before,
)
from grading.engine.ngs.decay import reached_padding
from grading.models import (
    CurrentGrade,
    PairResult,
    Scoring,
    SessionGrade,
)
from grading.params import active_params
from grading.privacy import (
    current_of,
    own_figures_hidden,
)
from members.models import Member
from members.selectors.base import score_text, score_unit
from members.selectors.digest import member_history, of_live_version
from members.selectors.groups import sopp_hidden

# --------------------------------------------------------------------------- weights


def history_rows(*, member: Member) -> QuerySet[SessionGrade]:
    """The member's session rows of each session's live version (graded or not), newest first.
    Withdrawn versions drop out; a correction shows its new version (S5.3)."""
    pair = PairResult.objects.filter(version=OuterRef("version_id"), pair_id=OuterRef("pair_id"))
    # (``of_live_version``: the join it replaced misled the planner into reading the whole
    # history once per club on every page.)
    return (
        SessionGrade.objects.filter(of_live_version(), member=member)
        .select_related("version__session__event__club", "partner")
        # The version's parsed file is read by grading only: decoding it for each row was
        # most of a history page's cost.
        .defer("version__payload")
        .annotate(
            pair_score=Subquery(pair.values("score")[:1]),
            pair_direction_mean=Subquery(pair.values("direction_mean")[:1]),
        )
        .order_by("-date", "-version__session__start", "-version_id")
    )


@dataclass
class Weights:
    """Each live graded session's share of today's grade (S4), and the padding's share."""

    by_grade_id: dict[int, float]
    padding_percent: float
    padding_boards: int
    # Graded sessions of the current career in the last 3 years: the same sessions as the
    # card's "boards in window" (S14.8), not only those inside the 2000-board cut.
    sessions_in_window: int = 0
    # Why a graded session carries no weight today (S4), by grade id: (the history's note, the
    # explain page's sentence). Issue 30: a session at 0.00% says why.
    unweighted: dict[int, tuple[str, str]] = field(default_factory=dict)
    # The oldest session kept, only partly counted (S4: its boards cut to make 2000).
    part_counted: dict[int, str] = field(default_factory=dict)


def _unweighted_reason(
    *, window_boards: int, window_years: int, older: bool, earlier_career: bool
) -> tuple[str, str]:
    """(the history's note, the explain page's sentence) on why a session has no weight."""
    if earlier_career:
        return (
            f"no weight: before a {window_years}-year gap",
            f"it was played before a gap of more than {window_years} years in your results, "
            "and a grade starts again after such a gap",
        )
    if older:
        return (
            f"no weight: over {window_years} years old",
            f"it was played more than {window_years} years ago",
        )
    return (
        f"no weight: beyond your last {window_boards:,} boards",
        f"a grade is worked out from your most recent {window_boards:,} boards, and this "
        "session is older than those",
    )


@dataclass(frozen=True)
class LiveGraded:
    """One of the member's live graded sessions, as the grade card's chart and the decay
    weights read it."""

    pk: int
    seq: int | None  # the ledger entry's (S5.4)
    date: dt.date
    boards: int
    grade: float
    factor: float
    event: str
    club: str


def live_graded(*, member: Member) -> list[LiveGraded]:
    """The member's live graded sessions, oldest first (by date, then ledger order), with their
    event and club: from the member's rows read once for both their pages
    (``members.selectors.digest``)."""
    rows = [r for r in member_history(member=member) if r.live and r.grade is not None]
    rows.sort(key=lambda r: (r.date, r.seq is None, r.seq or 0))  # as PostgreSQL orders them
    return [
        LiveGraded(r.pk, r.seq, r.date, r.boards, r.grade, r.factor, r.event, r.club) for r in rows
    ]


def grade_weights(
    *,
    member: Member,
    current: CurrentGrade | None = None,
    params: NGSParams | None = None,
    graded: list[LiveGraded] | None = None,
) -> Weights:
    """Decay weights of the member's live graded sessions as of their grade's date (S4).
    ``graded``: ``live_graded(member=member)`` if the caller has read it already."""
    current = current if current is not None else current_of(member)
    if current is None:
        return Weights({}, 0.0, 0)
    params = params or active_params()
    if graded is None:
        rows = list(
            SessionGrade.objects.filter(
                member=member,
                live=True,
                session_grade__isnull=False,
                entry__isnull=False,
                date__lte=current.as_of,
            ).values_list("pk", "entry__seq", "date", "boards", "session_grade", "factor")
        )
    else:
        rows = [
            (g.pk, g.seq, g.date, g.boards, g.grade, g.factor)
            for g in graded
            if g.seq is not None and g.date <= current.as_of
        ]
    entries = sorted(
        (
            HistoryEntry(seq, date, boards, grade, factor)
            for _, seq, date, boards, grade, factor in rows
        ),
        key=lambda e: (e.date, e.seq),
    )
    ids = {seq: pk for pk, seq, *_ in rows}
    if not entries:
        return Weights({}, 0.0, 0)
    career = entries[career_starts(entries, params.window_years)[-1] :]
    low = years_before(current.as_of, params.window_years)
    recent = [e for e in career if e.date > low]
    weights: dict[int, float] = {}
    part_counted = {}
    for entry, kept, height in weighted_window(recent[::-1], params.window_boards):
        weights[ids[entry.seq]] = entry.factor * kept * height
        if kept < entry.boards:
            part_counted[ids[entry.seq]] = (
                f"partly counted: the oldest of your last {params.window_boards:,} boards"
            )
    padding_weight, padding = 0.0, 0
    if recent and not reached_padding(career, params):
        boards = sum(e.boards for e in recent)
        padding = params.padding_boards - boards
        before = min(boards, params.window_boards)
        padding_weight = padding * (params.window_boards - before - padding / 2)
    total = sum(weights.values()) + padding_weight
    if total <= 0:
        return Weights({}, 0.0, 0)
    in_career = {e.seq for e in career}
    unweighted = {
        ids[e.seq]: _unweighted_reason(
            window_boards=params.window_boards,
            window_years=params.window_years,
            older=e.date <= low,
            earlier_career=e.seq not in in_career,
        )
        for e in entries
        if ids[e.seq] not in weights
    }
    return Weights(
        {k: 100 * w / total for k, w in weights.items()},
        100 * padding_weight / total,
        padding,
        len(recent),
        unweighted,
        part_counted,
    )


# --------------------------------------------------------------------------- session history

# S5.2: a late upload is graded with the grades as they stood when it arrived.
LATE_FLAG = "late upload: graded after sessions played later"


@dataclass
class HistoryRow:
    id: int
    session_id: int
    date: dt.date
    club: str
    club_id: int
    event: str
    scoring: str
    scoring_label: str
    partner: str
    partner_number: str
    boards: int
    boards_reported: bool
    score: float | None
    score_unit: str
    sopp: float | None
    par: float | None
    excess: float | None
    session_grade: float | None
    grade_before: float
    grade_after: float | None
    weight_percent: float | None
    version: int
    late: bool
    host: bool
    graded: bool
    reason: str
    flags: list[str]
    # SOpp over fewer than 5 players, one with someone else's private grade (S7, S14.14): par
    # and excess are then withheld with it.
    sopp_withheld: bool = False
    # Why a graded session carries no weight today ("" when it does, S4).
    unweighted: str = ""

    @property
    def score_text(self) -> str:
        return score_text(self.score, self.scoring)

    @property
    def par_text(self) -> str:
        return score_text(self.par, self.scoring)


def history_row(row: SessionGrade, weights: Weights, *, sopp_shown: bool = True) -> HistoryRow:
    version = row.version
    event = version.session.event
    host = row.reason == Reason.HOST
    graded = row.session_grade is not None
    withheld = own_figures_hidden(not sopp_shown and row.sopp is not None)
    flags = []
    if host:
        flags.append("host: not graded")
    elif not graded:
        flags.append(f"not graded: {row.reason or version.not_graded_reason or 'no reason given'}")
    if version.number > 1:
        flags.append(f"correction (version {version.number})")
    if version.late:
        flags.append(LATE_FLAG)
    if not row.boards_reported:
        flags.append("boards not reported")
    if graded and row.pk in weights.unweighted:
        flags.append(weights.unweighted[row.pk][0])
    elif graded and row.pk in weights.part_counted:
        flags.append(weights.part_counted[row.pk])
    if withheld:
        flags.append("SOpp, par and excess not shown: a small field with a private grade")
    partner = row.partner
    return HistoryRow(
        id=row.pk,
        session_id=version.session_id,
        date=row.date,
        club=event.club.name,
        club_id=event.club_id,
        event=event.name,
        scoring=version.scoring,
        scoring_label=Scoring(version.scoring).label
        if version.scoring in Scoring.values
        else version.scoring,
        partner=partner.name if partner else "Unknown player",
        partner_number=partner.national_number if partner else "",
        boards=row.boards,
        boards_reported=row.boards_reported,
        score=row.pair_score,
        score_unit=score_unit(version.scoring),
        # S14.14 as amended: par and excess give a withheld SOpp back, so they go with it
        sopp=None if "sopp" in withheld else row.sopp,
        par=None if "par" in withheld else row.par,
        excess=None if "excess" in withheld else row.excess,
        session_grade=row.session_grade,
        grade_before=row.grade_before,
        grade_after=row.grade_after if graded else None,
        weight_percent=weights.by_grade_id.get(row.pk, 0.0 if graded else None),
        version=version.number,
        late=version.late,
        host=host,
        graded=graded,
        reason=row.reason or version.not_graded_reason,
        flags=flags,
        sopp_withheld=not sopp_shown and row.sopp is not None,
        unweighted=weights.unweighted.get(row.pk, ("", ""))[1] if graded else "",
    )


@dataclass
class HistoryFilters:
    club: int | None = None
    partner: int | None = None
    year: int | None = None


def history_filtered(*, member: Member, filters: HistoryFilters) -> QuerySet[SessionGrade]:
    rows = history_rows(member=member)
    if filters.club:
        rows = rows.filter(version__session__event__club_id=filters.club)
    if filters.partner:
        rows = rows.filter(partner_id=filters.partner)
    if filters.year:
        rows = rows.filter(date__year=filters.year)
    return rows


def history_decorate(*, member: Member, rows) -> list[HistoryRow]:
    """History rows with weights and flags; ``rows`` is one page of ``history_filtered``."""
    rows = list(rows)
    params = active_params()
    weights = grade_weights(member=member, params=params, graded=live_graded(member=member))
    hidden = sopp_hidden(viewer=member, grades=rows, params=params)
    return [history_row(row, weights, sopp_shown=row.pk not in hidden) for row in rows]


def _shown_rows(member: Member, filters: HistoryFilters | None = None):
    """The member's rows the history shows (``history_rows``' rows), with ``filters``."""
    for row in member_history(member=member):
        if not row.shown:
            continue
        if filters is not None and (
            (filters.club and row.club_id != filters.club)
            or (filters.partner and row.partner_id != filters.partner)
            or (filters.year and row.date.year != filters.year)
        ):
            continue
        yield row


class CountedRows:
    """``history_filtered``'s rows with their count known already: a paginator's count from
    the member's kept rows instead of a query over their whole history."""

    def __init__(self, rows: QuerySet[SessionGrade], count: int) -> None:
        self._rows = rows
        self._count = count

    def count(self) -> int:
        return self._count

    def __getitem__(self, key):
        return self._rows[key]


def history_counted(
    *, member: Member, filters: HistoryFilters, rows: QuerySet[SessionGrade]
) -> CountedRows:
    """``rows`` (``history_filtered(member=member, filters=filters)``) with their count."""
    return CountedRows(rows, sum(1 for _ in _shown_rows(member, filters)))


@dataclass
class HistoryChoices:
    clubs: list[tuple[int, str]]
    partners: list[tuple[int, str]]
    years: list[int]


def history_choices(*, member: Member) -> HistoryChoices:
    """What the history can be filtered by: the member's clubs, partners and years played
    (from the member's kept rows)."""
    clubs, partners, years = set(), set(), set()
    for row in _shown_rows(member):
        clubs.add((row.club_id, row.club))
        if row.partner_id:
            partners.add((row.partner_id, row.partner))
        years.add(row.date.year)
    return HistoryChoices(
        sorted(clubs, key=lambda c: c[1]),
        sorted(partners, key=lambda p: p[1]),
        sorted(years, reverse=True),
    )
