"""One session explained: the par build-up and the field (S3.2-S3.5)."""

from __future__ import annotations

from dataclasses import dataclass

from grading.engine.ngs import (
    NGSParams,
)
from grading.models import (
    Match,
    PairResult,
    Scoring,
    SessionGrade,
    SessionVersion,
)
from grading.privacy import (
    GradeView,
    current_of,
    grade_view,
)
from members.models import Member
from members.selectors.base import PERCENT_SCORINGS, grading_params, score_text
from members.selectors.history import HistoryRow, _history_row, grade_weights


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
