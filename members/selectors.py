"""Reads about members: the grade card, session history, partnerships, forecasts and the public
grade lists (S3.5, S4, S6, S7, S13).

Privacy (S7, S14.14) is decided in ``grading.privacy``: ``grade_view`` is the only way another
person's grade leaves this module.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Count, F, Max, OuterRef, Q, QuerySet, Subquery, Sum

from clubs.models import Club, ClubRole, HostExemptionRequest, PlannedSession
from grading.engine.ngs import (
    BANDS,
    NGS_DEFAULT,
    HistoryEntry,
    NGSParams,
    Reason,
    band,
    career_starts,
    forecast_table,
    get_params,
    par,
    shown,
    weighted_window,
    years_before,
)
from grading.engine.ngs.decay import reached_padding
from grading.engine.types import Scoring as EngineScoring
from grading.engine.types import normalise_number
from grading.models import (
    CurrentGrade,
    LedgerHead,
    Match,
    PairResult,
    PartnershipGrade,
    Scoring,
    SessionGrade,
    SessionVersion,
)
from grading.privacy import (
    PUBLISHED_STATUSES,
    GradeView,
    current_of,
    grade_view,
    suppressed,
)
from members.models import Member

Status = CurrentGrade.Status
FORECAST_THRESHOLDS = (45.0, 50.0, 55.0, 60.0, 65.0)
RECENT_SERIES_SESSIONS = 10
IMP_SCORINGS = {
    Scoring.BUTLER,
    Scoring.CROSS_IMP,
    Scoring.SWISS_PAIRS_IMP,
    Scoring.SWISS_TEAMS,
    Scoring.MULTIPLE_TEAMS,
    Scoring.TEAM_LEAGUE,
}
PERCENT_SCORINGS = {Scoring.MP, Scoring.SWISS_PAIRS_MP}


def member_for_user(*, user) -> Member | None:
    """The user's membership; read once per request (the user keeps it, as Django's
    one-to-one accessor does), however many parts of the page ask."""
    if not user.is_authenticated:
        return None
    try:
        return user.member
    except Member.DoesNotExist:
        return None


def grading_params() -> NGSParams:
    """The parameter set the ledger runs with (S9)."""
    head = LedgerHead.objects.only("params_name").first()
    return get_params(head.params_name) if head else NGS_DEFAULT


# --------------------------------------------------------------------------- bands, status


@dataclass(frozen=True)
class BandCard:
    """A band drawn as a playing card (S4): Two .. King in spades, then the four aces."""

    name: str
    rank: str
    suit: str
    red: bool
    lower: float | None
    upper: float | None

    @property
    def label(self) -> str:
        return f"{self.rank}{self.suit}"


RANKS = {
    "Two": "2",
    "Three": "3",
    "Four": "4",
    "Five": "5",
    "Six": "6",
    "Seven": "7",
    "Eight": "8",
    "Nine": "9",
    "Ten": "10",
    "Jack": "J",
    "Queen": "Q",
    "King": "K",
}
SUITS = {"Clubs": "♣", "Diamonds": "♦", "Hearts": "♥", "Spades": "♠"}


def band_limits() -> list[tuple[str, float | None, float | None]]:
    """Every band with its lower (inclusive) and upper (exclusive) bound, lowest first."""
    ascending = sorted(BANDS)
    out: list[tuple[str, float | None, float | None]] = [("Two", None, ascending[0][0])]
    for i, (lower, name) in enumerate(ascending):
        upper = ascending[i + 1][0] if i + 1 < len(ascending) else None
        out.append((name, lower, upper))
    return out


def band_card(name: str) -> BandCard:
    limits = {n: (lo, hi) for n, lo, hi in band_limits()}
    lower, upper = limits[name]
    if name.startswith("Ace of "):
        suit = SUITS[name.removeprefix("Ace of ")]
        return BandCard(name, "A", suit, suit in "♦♥", lower, upper)
    return BandCard(name, RANKS[name], "♠", False, lower, upper)


@dataclass(frozen=True)
class StatusInfo:
    code: str
    label: str
    meaning: str
    next_label: str | None
    boards_to_next: int | None


def status_info(status: str, boards_in_window: int, params: NGSParams = NGS_DEFAULT) -> StatusInfo:
    """What a status means and how many boards until the next one (S4)."""
    pad, mature = params.padding_boards, params.mature_boards
    label = Status(status).label
    if status == Status.PROVISIONAL:
        return StatusInfo(
            status,
            label,
            f"Fewer than {pad} boards so far: the grade is still "
            "settling and is shown to you alone.",
            Status.EVOLVING.label,
            max(pad - boards_in_window, 0),
        )
    if status == Status.EVOLVING:
        return StatusInfo(
            status,
            label,
            f"{pad} to {mature - 1} boards in the last 3 years: the "
            "grade is published and still moves quickly.",
            Status.MATURE.label,
            max(mature - boards_in_window, 0),
        )
    if status == Status.MATURE:
        return StatusInfo(
            status,
            label,
            f"{mature} or more boards in the last 3 years: the grade "
            "rests on a full window of results.",
            None,
            None,
        )
    return StatusInfo(
        status,
        label,
        f"Fewer than {pad} boards in the last 3 years: the grade no longer reflects recent play.",
        Status.EVOLVING.label,
        max(pad - boards_in_window, 0),
    )


# --------------------------------------------------------------------------- privacy


# --------------------------------------------------------------------------- weights


def history_rows(*, member: Member) -> QuerySet[SessionGrade]:
    """The member's session rows of each session's live version (graded or not), newest first.
    Withdrawn versions drop out; a correction shows its new version (S5.3)."""
    pair = PairResult.objects.filter(version=OuterRef("version_id"), pair_id=OuterRef("pair_id"))
    return (
        SessionGrade.objects.filter(member=member, version=F("version__session__live_version"))
        .select_related("version__session__event__club", "partner", "entry")
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


def grade_weights(
    *, member: Member, current: CurrentGrade | None = None, params: NGSParams | None = None
) -> Weights:
    """Decay weights of the member's live graded sessions as of their grade's date (S4)."""
    current = current if current is not None else current_of(member)
    if current is None:
        return Weights({}, 0.0, 0)
    params = params or grading_params()
    rows = SessionGrade.objects.filter(
        member=member,
        live=True,
        session_grade__isnull=False,
        entry__isnull=False,
        date__lte=current.as_of,
    ).values_list("pk", "entry__seq", "date", "boards", "session_grade", "factor")
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
    for entry, kept, height in weighted_window(recent[::-1], params.window_boards):
        weights[ids[entry.seq]] = entry.factor * kept * height
    padding_weight, padding = 0.0, 0
    if recent and not reached_padding(career, params):
        boards = sum(e.boards for e in recent)
        padding = params.padding_boards - boards
        before = min(boards, params.window_boards)
        padding_weight = padding * (params.window_boards - before - padding / 2)
    total = sum(weights.values()) + padding_weight
    if total <= 0:
        return Weights({}, 0.0, 0)
    return Weights(
        {k: 100 * w / total for k, w in weights.items()}, 100 * padding_weight / total, padding
    )


# --------------------------------------------------------------------------- grade card


@dataclass
class ChartPoint:
    date: dt.date
    grade: float
    event: str
    club: str


@dataclass
class GradeCard:
    member: Member
    has_grade: bool
    grade: float | None = None
    band: BandCard | None = None
    status: StatusInfo | None = None
    boards_in_window: int = 0
    sessions_in_window: int = 0
    last_session_date: dt.date | None = None
    as_of: dt.date | None = None
    private: bool = False
    points: list[ChartPoint] = field(default_factory=list)
    padding_boards: int = 0


def grade_card(*, member: Member) -> GradeCard:
    """The member's own grade card (S4): shown to the member whatever its privacy."""
    current = CurrentGrade.objects.filter(member=member).first()
    if current is None:
        return GradeCard(member=member, has_grade=False, private=member.grade_private)
    params = grading_params()
    points = [
        ChartPoint(*row)
        for row in SessionGrade.objects.filter(
            member=member, live=True, grade_after__isnull=False, session_grade__isnull=False
        )
        .order_by("date", "entry__seq")
        .values_list(
            "date",
            "grade_after",
            "version__session__event__name",
            "version__session__event__club__name",
        )
    ]
    weights = grade_weights(member=member, current=current, params=params)
    return GradeCard(
        member=member,
        has_grade=True,
        grade=shown(current.grade),
        band=band_card(band(current.grade)),
        status=status_info(current.status, current.boards_in_window, params),
        boards_in_window=current.boards_in_window,
        sessions_in_window=current.sessions_in_window,
        last_session_date=current.last_session_date,
        as_of=current.as_of,
        private=member.grade_private,
        points=points,
        padding_boards=weights.padding_boards,
    )


# --------------------------------------------------------------------------- session history


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

    @property
    def score_text(self) -> str:
        return score_text(self.score, self.scoring)

    @property
    def par_text(self) -> str:
        return score_text(self.par, self.scoring)


def score_unit(scoring: str) -> str:
    if scoring in PERCENT_SCORINGS:
        return "%"
    if scoring in IMP_SCORINGS:
        return "IMPs"
    if scoring == Scoring.AGGREGATE:
        return "points"
    return ""


def score_text(value: float | None, scoring: str) -> str:
    if value is None:
        return "—"
    unit = score_unit(scoring)
    if unit == "%":
        return f"{value:.2f}%"
    if unit == "IMPs":
        return f"{value:+.1f} IMPs"
    if unit == "points":
        return f"{value:.0f} points"
    return f"{value:.2f}"


def _history_row(row: SessionGrade, weights: Weights) -> HistoryRow:
    version = row.version
    event = version.session.event
    host = row.reason == Reason.HOST
    graded = row.session_grade is not None
    flags = []
    if host:
        flags.append("host: not graded")
    elif not graded:
        flags.append(f"not graded: {row.reason or version.not_graded_reason or 'no reason given'}")
    if version.number > 1:
        flags.append(f"correction (version {version.number})")
    if version.late:
        flags.append("late upload")
    if not row.boards_reported:
        flags.append("boards not reported")
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
        sopp=row.sopp,
        par=row.par,
        excess=row.excess,
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
    weights = grade_weights(member=member)
    return [_history_row(row, weights) for row in rows]


@dataclass
class HistoryChoices:
    clubs: list[tuple[int, str]]
    partners: list[tuple[int, str]]
    years: list[int]


def history_choices(*, member: Member) -> HistoryChoices:
    """What the history can be filtered by: the member's clubs, partners and years played."""
    rows = history_rows(member=member).order_by()
    clubs = sorted(
        set(
            rows.values_list(
                "version__session__event__club_id", "version__session__event__club__name"
            )
        ),
        key=lambda c: c[1],
    )
    partners = sorted(
        {(pk, name) for pk, name in rows.values_list("partner_id", "partner__name") if pk},
        key=lambda p: p[1],
    )
    years = sorted({d.year for d in rows.values_list("date", flat=True)}, reverse=True)
    return HistoryChoices(clubs, partners, years)


# --------------------------------------------------------------------------- explain


@dataclass
class Step:
    label: str
    words: str
    value: str


@dataclass
class FieldPlayer:
    pair_id: str
    direction: str
    names: str
    score: str
    grades: list[tuple[str, str]]  # (name, grade as shown to the viewer)
    mine: bool


@dataclass
class Explanation:
    row: HistoryRow
    steps: list[Step]
    movement: float | None
    movement_words: str
    faq12: list[str]
    field: list[FieldPlayer]
    sof: float | None
    opponents_words: str
    withdrawn: bool
    partner_grade: GradeView | None


def _opponents(grade: SessionGrade, pairs: list[PairResult]) -> tuple[int, int, str]:
    """How many opponent pairs made up SOpp, how many were unknown, and the group's name (S3.2)."""
    version = grade.version
    me = next((p for p in pairs if p.pair_id == grade.pair_id), None)
    scoring = version.scoring
    if scoring in {Scoring.SWISS_PAIRS_MP, Scoring.SWISS_PAIRS_IMP, Scoring.SWISS_TEAMS}:
        met = {
            o
            for m in Match.objects.filter(version=version, pair_id=grade.pair_id)
            for o in m.opponents
        }
        others = [p for p in pairs if p.pair_id in met]
        return len(others), sum(not p.known for p in others), "the pairs you met at the table"
    if (
        me is not None
        and me.direction
        and (
            version.movement == "TWO_WINNER"
            or scoring in {Scoring.MULTIPLE_TEAMS, Scoring.TEAM_LEAGUE}
        )
    ):
        others = [p for p in pairs if p.direction == me.direction and p.pair_id != me.pair_id]
        return (
            len(others),
            sum(not p.known for p in others),
            f"the other pairs sitting {me.direction}",
        )
    others = [p for p in pairs if p.pair_id != grade.pair_id]
    return len(others), sum(not p.known for p in others), "every other pair in the field"


def _score_term_step(
    grade: SessionGrade, score: float | None, mean: float | None, params: NGSParams
) -> Step:
    scoring, t, x = grade.version.scoring, grade.score_term, grade.boards
    if t is None:
        return Step("Score term", "No score term: the pair had no score.", "—")
    if scoring in PERCENT_SCORINGS:
        p = score if score is not None else t + 50
        return Step(
            "Score term",
            f"Match points: your {p:.2f}% minus the average 50%.",
            f"{p:.2f} − 50 = {t:+.2f}",
        )
    if scoring == Scoring.AGGREGATE:
        g = score if score is not None else 0.0
        m = mean if mean is not None else 0.0
        return Step(
            "Score term",
            f"Aggregate: your points minus the direction's mean, over "
            f"{params.f_aggregate} × {x} boards.",
            f"({g:.0f} − {m:.1f}) / ({params.f_aggregate} × {x}) = {t:+.2f}",
        )
    factor = (
        params.f_butler if scoring in {Scoring.BUTLER, Scoring.SWISS_PAIRS_IMP} else params.f_cross
    )
    imps = t * x / factor
    name = Scoring(scoring).label
    return Step(
        "Score term",
        f"{name}: {factor} × your IMPs / boards, turning IMPs into match-point percentage units.",
        f"{factor} × {imps:+.1f} / {x} = {t:+.2f}",
    )


def session_explain(*, member: Member, grade_id: int) -> Explanation | None:
    """The par build-up of one of the member's sessions, in words and numbers (S3.2-S3.5)."""
    grade = (
        SessionGrade.objects.filter(member=member, pk=grade_id)
        .select_related("version__session__event__club", "partner__current_grade", "entry")
        .first()
    )
    if grade is None:
        return None
    params = grading_params()
    version = grade.version
    pairs = list(
        version.pairs.select_related("player1__current_grade", "player2__current_grade").order_by(
            "pk"
        )
    )
    mine = next((p for p in pairs if p.pair_id == grade.pair_id), None)
    grade.pair_score = mine.score if mine else None
    grade.pair_direction_mean = mine.direction_mean if mine else None
    weights = grade_weights(member=member, params=params)
    row = _history_row(grade, weights)
    partner_view = None
    if grade.partner is not None:
        partner_view = grade_view(grade.partner, current_of(grade.partner), viewer=member)
    count, unknown, group = _opponents(grade, pairs)
    opponents = (
        f"SOpp is the average grade, at the start of the session, of {group}: "
        f"{count} pair{'s' if count != 1 else ''}"
    )
    if unknown:
        opponents += (
            f", {unknown} of them with an unknown player, counted at a grade "
            "estimated from their score (S3.8)"
        )
    opponents += "."
    steps: list[Step] = []
    ga, gb = grade.grade_before, grade.partner_grade
    steps.append(Step("Your grade", "Your current grade when the session was graded.", f"{ga:.2f}"))
    if gb is not None:
        shown_gb = (
            f"{gb:.2f}"
            if partner_view is not None and partner_view.shown
            else (partner_view.text if partner_view is not None else "—")
        )
        steps.append(
            Step(
                "Partner's grade",
                f"{row.partner}'s grade at the start of the session (shown only if published).",
                shown_gb,
            )
        )
        steps.append(
            Step(
                "Pair's grade",
                "The average of the two grades: what the scheme expects of the pair.",
                f"{(ga + gb) / 2:.2f}",
            )
        )
    if grade.sopp is not None:
        steps.append(Step("SOpp", opponents, f"{grade.sopp:.2f}"))
    steps.append(_score_term_step(grade, row.score, grade.pair_direction_mean, params))
    if grade.par is not None and gb is not None and grade.sopp is not None:
        steps.append(
            Step(
                "Par",
                "The score that gives zero excess: 50% plus the pair's grade "
                "minus SOpp, in this event's units.",
                f"{score_text(grade.par, version.scoring)}",
            )
        )
    if grade.excess is not None:
        steps.append(
            Step(
                "Excess",
                "Score term + SOpp − pair's grade: how far above (or below) par the pair played.",
                f"{grade.excess:+.2f}",
            )
        )
        steps.append(
            Step(
                "Gain",
                f"The excess counts {grade.gain:g} times (FAQ 42).",
                f"{grade.gain:g} × {grade.excess:+.2f} = {grade.gain * grade.excess:+.2f}",
            )
        )
    if grade.regular_adjustment:
        steps.append(
            Step(
                "Regular-pair adjustment",
                f"You and your partner play more than "
                f"{float(params.regular_share) * 100:.0f}% of your sessions together, "
                f"so {params.rpcf} × half the gap between your grades moves you "
                "towards each other.",
                f"{grade.regular_adjustment:+.3f}",
            )
        )
    if grade.session_grade is not None:
        steps.append(
            Step(
                "Session grade",
                "Your grade + regular-pair adjustment + gain × excess.",
                f"{ga:.2f} {grade.regular_adjustment:+.2f} "
                f"{grade.gain * (grade.excess or 0):+.2f} = "
                f"{grade.session_grade:.2f}",
            )
        )
    else:
        steps.append(Step("Session grade", row.reason or "Not graded.", "not graded"))
    movement, movement_words, faq12 = _movement(grade, row)
    field_rows = _field(pairs, member, version.scoring)
    return Explanation(
        row=row,
        steps=steps,
        movement=movement,
        movement_words=movement_words,
        faq12=faq12,
        field=field_rows,
        sof=version.sof,
        opponents_words=opponents,
        withdrawn=version.state == SessionVersion.State.WITHDRAWN
        or version.session.live_version_id != version.pk,
        partner_grade=partner_view,
    )


def _movement(grade: SessionGrade, row: HistoryRow) -> tuple[float | None, str, list[str]]:
    """How much the session moved the grade, and why a good score can lower it (FAQ 12)."""
    faq12 = [
        "Your grade normally goes up when you score above par and down when you score below "
        "it; par depends on your partner's grade and on the opponents' (SOpp), not on 50%.",
        "A good score can still lower your grade when you played with a stronger partner, "
        "against weaker opponents or in a weaker field: par was higher than the score.",
        "Sessions are listed by date of play, but a grade is worked out when results arrive: "
        "a late upload or a correction of an older session is graded with the grades as they "
        "then stood, and older sessions lose weight as new ones come in, so the grade can move "
        "even on a score at par.",
    ]
    if grade.session_grade is None or grade.grade_after is None:
        return None, "This session did not change your grade: it has no session grade.", faq12
    moved = grade.grade_after - grade.grade_before
    direction = "up" if moved > 0 else "down" if moved < 0 else "not at all"
    words = (
        f"Your grade went {direction} by {abs(moved):.2f}, from {grade.grade_before:.2f} "
        f"to {grade.grade_after:.2f}. The session grade of {grade.session_grade:.2f} is "
        f"{'above' if grade.session_grade >= grade.grade_before else 'below'} your grade, "
        "and it joins the decayed average of your sessions (S4)"
    )
    if row.weight_percent:
        words += f"; today it carries {row.weight_percent:.2f}% of your grade"
    words += "."
    score = row.score
    if (
        score is not None
        and row.scoring in PERCENT_SCORINGS
        and score > 50
        and (grade.excess or 0) < 0
    ):
        words += (
            f" You scored {score:.2f}%, above average, but par was {grade.par:.2f}%: "
            "this is FAQ 12's case of a good score that lowers the grade."
        )
    elif (grade.excess or 0) > 0 and moved < 0:
        words += (
            " The excess was positive yet the grade fell: the decay and the order in "
            "which results were graded moved it (FAQ 12)."
        )
    return moved, words, faq12


def _field(pairs: list[PairResult], viewer: Member, scoring: str) -> list[FieldPlayer]:
    """The field with grades shown only where published (S7); the viewer sees their own."""
    out = []
    for pair in pairs:
        grades = []
        names = []
        for player, name in ((pair.player1, pair.player1_name), (pair.player2, pair.player2_name)):
            label = player.name if player else (name or "Unknown")
            names.append(label)
            if player is None:
                grades.append((label, "Not a member"))
            else:
                grades.append((label, grade_view(player, current_of(player), viewer=viewer).text))
        mine = viewer.pk in {pair.player1_id, pair.player2_id}
        out.append(
            FieldPlayer(
                pair.pair_id,
                pair.direction,
                " & ".join(names),
                score_text(pair.score, scoring),
                grades,
                mine,
            )
        )
    return out


# --------------------------------------------------------------------------- partnerships


@dataclass
class PartnerRow:
    partner: Member
    sessions: int
    boards: int
    last_played: dt.date | None
    partner_grade: GradeView
    partnership_grade: float | None
    partnership_boards: int
    partnership_shown: bool
    average: float | None
    gel: float | None


def partnerships(*, member: Member) -> list[PartnerRow]:
    """Every partner with boards together, and the partnership grade once shown (S6)."""
    played = (
        history_rows(member=member)
        .order_by()
        .filter(partner__isnull=False)
        .values("partner_id")
        .annotate(sessions=Count("id"), boards=Sum("boards"), last=Max("date"))
    )
    stats = {r["partner_id"]: r for r in played}
    grades = {
        (pg.member_b_id if pg.member_a_id == member.pk else pg.member_a_id): pg
        for pg in PartnershipGrade.objects.filter(Q(member_a=member) | Q(member_b=member))
    }
    ids = set(stats) | set(grades)
    people = Member.objects.filter(pk__in=ids).select_related("current_grade")
    mine = current_of(member)
    rows = []
    for partner in people:
        stat = stats.get(partner.pk, {})
        pg = grades.get(partner.pk)
        view = grade_view(partner, current_of(partner), viewer=member)
        pshown = bool(pg and pg.shown)
        average = (mine.grade + view.value) / 2 if mine and view.shown else None
        rows.append(
            PartnerRow(
                partner=partner,
                sessions=stat.get("sessions", 0),
                boards=stat.get("boards") or 0,
                last_played=stat.get("last") or (pg.last_played if pg else None),
                partner_grade=view,
                partnership_grade=shown(pg.grade) if pshown else None,
                partnership_boards=pg.boards_in_window if pg else 0,
                partnership_shown=pshown,
                average=average,
                gel=(pg.grade - average) if pshown and average is not None else None,
            )
        )
    rows.sort(key=lambda r: (-r.boards, r.partner.name))
    return rows


# --------------------------------------------------------------------------- forecast


@dataclass
class Series:
    key: str
    club: str
    event: str
    sof: float
    sessions: int

    @property
    def label(self) -> str:
        return f"{self.club} — {self.event} (recent field {self.sof:.2f}, {self.sessions} sessions)"


def club_series(*, member: Member) -> list[Series]:
    """Each of the member's clubs' session series (same event name) with the average SoF of
    its last 10 graded sessions: the recent strength of field (FR 5)."""
    clubs = ClubRole.objects.filter(member=member).values("club_id")
    rows = (
        SessionVersion.objects.filter(
            session__event__club_id__in=clubs,
            state="graded",
            sof__isnull=False,
            session__live_version=F("pk"),
        )
        .order_by("-session__date", "-pk")
        .values_list(
            "session__event__club_id", "session__event__club__name", "session__event__name", "sof"
        )
    )
    groups: dict[tuple[int, str, str], list[float]] = defaultdict(list)
    for club_id, club, event, sof in rows:
        bucket = groups[(club_id, club, event)]
        if len(bucket) < RECENT_SERIES_SESSIONS:
            bucket.append(sof)
    return sorted(
        (
            Series(f"{club_id}:{event}", club, event, sum(v) / len(v), len(v))
            for (club_id, club, event), v in groups.items()
        ),
        key=lambda s: (s.club, s.event),
    )


@dataclass
class Forecast:
    own_grade: float
    partner_grade: float
    partner_label: str
    field: float
    field_label: str
    par_percent: float
    chances: list[tuple[float, float]]
    boards: int
    par_butler: float
    par_cross: float
    sd: float
    asked: tuple[float, float] | None = None  # (threshold asked, chance), S3.5

    @property
    def pair_grade(self) -> float:
        return (self.own_grade + self.partner_grade) / 2

    @property
    def chance_rows(self) -> list[tuple[float, float]]:
        """(threshold, chance in percent) of scoring more than each threshold."""
        return [(t, 100 * c) for t, c in self.chances]

    @property
    def asked_row(self) -> tuple[float, float] | None:
        """(threshold asked, chance in percent), beside the fixed rows (S3.5: "or any
        threshold asked")."""
        return None if self.asked is None else (self.asked[0], 100 * self.asked[1])


def forecast_build(
    *,
    own_grade: float,
    partner_grade: float,
    field: float,
    boards: int = 24,
    partner_label: str = "",
    field_label: str = "",
    threshold: float | None = None,
    params: NGSParams | None = None,
) -> Forecast:
    """Par and the chances of beating 45-65%, and the ``threshold`` asked if any, for a pair
    in a field (S3.5, FR 5)."""
    params = params or grading_params()
    par_pct = par(EngineScoring.MP, own_grade, partner_grade, field, boards, params=params)
    asked = None
    if threshold is not None:
        (asked,) = forecast_table(par_pct, (threshold,), params.forecast_sd)
    return Forecast(
        own_grade=own_grade,
        partner_grade=partner_grade,
        partner_label=partner_label,
        field=field,
        field_label=field_label,
        par_percent=par_pct,
        chances=forecast_table(par_pct, FORECAST_THRESHOLDS, params.forecast_sd),
        boards=boards,
        par_butler=par(
            EngineScoring.BUTLER, own_grade, partner_grade, field, boards, params=params
        ),
        par_cross=par(
            EngineScoring.CROSS_IMP, own_grade, partner_grade, field, boards, params=params
        ),
        sd=params.forecast_sd,
        asked=asked,
    )


def forecast_partners(*, member: Member) -> list[tuple[Member, GradeView]]:
    """Partners the forecast may use: those whose grade the member may see (S7)."""
    rows = [(r.partner, r.partner_grade) for r in partnerships(member=member)]
    return [(p, v) for p, v in rows if v.shown]


# --------------------------------------------------------------------------- exemptions


def planned_sessions_open(*, member: Member, today: dt.date) -> QuerySet[PlannedSession]:
    """The member's clubs' planned sessions from today on (the service refuses the rest)."""
    return (
        PlannedSession.objects.filter(club__roles__member=member, date__gte=today)
        .select_related("club")
        .order_by("date", "start")
        .distinct()
    )


def exemption_requests(*, member: Member) -> QuerySet[HostExemptionRequest]:
    return (
        HostExemptionRequest.objects.filter(Q(member=member) | Q(partner=member))
        .select_related("planned_session__club", "member", "partner")
        .order_by("-planned_session__date", "-planned_session__start")
    )


# --------------------------------------------------------------------------- public lists


@dataclass
class TopRow:
    rank: int
    number: str
    name: str
    grade: float
    band: BandCard
    status: str


def top_grades(*, club: Club | None = None, limit: int = 50) -> list[TopRow]:
    """Published grades, best first (S7: public and non-provisional only)."""
    rows = CurrentGrade.objects.filter(member__grade_private=False, status__in=PUBLISHED_STATUSES)
    if club is not None:
        rows = rows.filter(member__club_roles__club=club)
    rows = rows.select_related("member").order_by("-grade", "member__name")[:limit]
    return [
        TopRow(
            i,
            r.member.national_number,
            r.member.name,
            shown(r.grade),
            band_card(band(r.grade)),
            r.get_status_display(),
        )
        for i, r in enumerate(rows, start=1)
    ]


@dataclass
class BandCount:
    band: BandCard
    count: int | None  # None: suppressed (fewer than 5, S7)

    @property
    def text(self) -> str:
        return "fewer than 5" if self.count is None else str(self.count)


@dataclass
class Distribution:
    name: str
    slug: str
    bands: list[BandCount]
    suppressed: bool
    # Private grades, counted apart and never by band (S7); None: fewer than 5 (suppressed).
    private: int | None = 0

    @property
    def visible(self) -> bool:
        """Whether any band can be shown at all (not everything empty or suppressed)."""
        return any(b.count for b in self.bands)

    @property
    def total(self) -> int | None:
        """Published grades counted, shown only when no band is suppressed (S7). Private
        grades are not in it: with ``private`` suppressed, the difference would give their
        number away."""
        return None if self.suppressed else sum(b.count or 0 for b in self.bands)

    @property
    def private_text(self) -> str:
        return "fewer than 5" if self.private is None else str(self.private)


def _distribution(name: str, slug: str, counts: dict[str, int], private: int) -> Distribution:
    bands = [
        BandCount(band_card(band_name), suppressed(counts.get(band_name, 0)))
        for band_name, _, _ in band_limits()
    ]
    return Distribution(name, slug, bands, any(b.count is None for b in bands), suppressed(private))


def band_distributions() -> tuple[Distribution, list[Distribution]]:
    """Counts of current (non-provisional) grades by band, national and per club (S7).

    Only published grades are counted by band: a private grade counted in its band could be
    told apart by comparing the band's count with the published lists (a club whose members
    all fit on the top list, plus one private member). Private grades are counted in one total
    per group instead ("only in counts", S7), and any group smaller than 5 is suppressed."""
    graded = CurrentGrade.objects.filter(status__in=PUBLISHED_STATUSES)
    national = dict(
        graded.filter(member__grade_private=False)
        .values_list("band")
        .annotate(n=Count("id"))
        .order_by()
    )
    national_private = graded.filter(member__grade_private=True).count()
    per_club: dict[int, dict[str, int]] = defaultdict(dict)
    private_per_club: dict[int, int] = defaultdict(int)
    for club_id, band_name, private, n in (
        ClubRole.objects.filter(member__current_grade__status__in=PUBLISHED_STATUSES)
        .values_list("club_id", "member__current_grade__band", "member__grade_private")
        .annotate(n=Count("id"))
        .order_by()
    ):
        if private:
            private_per_club[club_id] += n
        else:
            per_club[club_id][band_name] = n
    clubs = [
        _distribution(c.name, c.slug, per_club.get(c.pk, {}), private_per_club.get(c.pk, 0))
        for c in Club.objects.filter(pk__in=set(per_club) | set(private_per_club)).order_by("name")
    ]
    return _distribution("All clubs (national)", "", national, national_private), clubs


@dataclass
class PublicMember:
    member: Member
    grade: GradeView
    card: BandCard | None
    status: str | None


def public_member(*, number: str) -> PublicMember | None:
    """A member's public page (S7): a published grade and band, else Private / Provisional.
    The number is read however it is spelt (S14.2); ``member.national_number`` is the stored
    spelling, for a redirect to the canonical address."""
    normalised = normalise_number(number or "")
    if normalised is None:
        return None
    member = (
        Member.objects.filter(national_number=normalised).select_related("current_grade").first()
    )
    if member is None:
        return None
    view = grade_view(member, current_of(member))
    return PublicMember(
        member,
        view,
        band_card(view.band) if view.band else None,
        Status(view.status).label if view.status else None,
    )


def member_by_number(*, number: str) -> Member | None:
    """The member with this membership number, however it is spelt (S14.2)."""
    normalised = normalise_number(number or "")
    if normalised is None:
        return None
    return Member.objects.filter(national_number=normalised).first()
