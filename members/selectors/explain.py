"""One session explained: the par build-up and the field (S3.2-S3.5)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.db import models

from grading.engine.ngs import (
    NGSParams,
)
from grading.engine.ngs.terms import imp_factor
from grading.engine.types import Scoring as EngineScoring
from grading.models import (
    PairResult,
    Scoring,
    SessionGrade,
    SessionVersion,
)
from grading.params import active_params
from grading.privacy import (
    OWN_FIGURES_SAID,
    GradeView,
    average_view,
    current_of,
    grade_view,
    group_hides_grades,
    pair_grade_shown,
    partner_grade_withheld,
)
from members.models import Member
from members.selectors.base import PERCENT_SCORINGS, score_text
from members.selectors.groups import SWISS, opponents_of, players_of, tables_met
from members.selectors.history import HistoryRow, grade_weights, history_row


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
    grades: list[tuple[str, str]]  # (name, grade at the start as shown to the viewer)
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
    # What the field table says about the grades at the start (S14.14), in words.
    field_words: str = ""
    start_grades_shown: bool = True
    # S14.14: the partner's grade is not written, yet the figures give it (said plainly).
    partner_withheld: bool = False


# At most this many decimals: where a sum does not hold as shown even then (a total a hair
# from a rounding boundary), the total shown is the sum of the figures shown, within 0.0001 of
# the stored one.
MOST_DECIMALS = 4


def _sum_text(terms: list[float], total: float, *, signed: bool = False) -> str:
    """``a + b − c = t`` with the fewest decimals (2 or more) at which the figures as shown add
    up exactly (issue 30: "53.06 + 0.00 + 15.11 = 68.16" did not). A term that is a whole
    number written as such (the 50 of a percentage) is passed as an int and shown as it is."""
    for decimals in range(2, MOST_DECIMALS + 1):
        texts = [str(t) if isinstance(t, int) else f"{t:.{decimals}f}" for t in terms]
        total_text = f"{total:{'+' if signed else ''}.{decimals}f}"
        if sum(Decimal(t) for t in texts) == Decimal(total_text):
            break
    else:
        total_text = f"{sum(Decimal(t) for t in texts):{'+' if signed else ''}}"
    return _minus(f"{_joined(texts)} = {total_text}")


def _minus(text: str) -> str:
    """A negative figure written with a minus sign, as the operators are."""
    return text.replace("-", "−")


def _joined(texts: list[str]) -> str:
    """Terms as a sum: ``a + b − c`` (a term's own sign becomes the operator)."""
    words = texts[0]
    for text in texts[1:]:
        sign, digits = (text[0], text[1:]) if text[0] in "+-" else ("+", text)
        words += f" {'−' if sign == '-' else '+'} {digits}"
    return words


def _average_text(a: float, b: float, mean: float) -> str:
    """``(a + b) / 2 = mean`` with the fewest decimals at which it holds as shown (the mean
    may need one more than the grades)."""
    for decimals in range(2, MOST_DECIMALS + 1):
        a_text, b_text = f"{a:.{decimals}f}", f"{b:.{decimals}f}"
        exact = (Decimal(a_text) + Decimal(b_text)) / 2
        mean_text = f"{mean:.{decimals}f}"
        if exact == Decimal(mean_text):
            break
        mean_text = f"{mean:.{decimals + 1}f}"
        if exact == Decimal(mean_text):
            break
    else:
        mean_text = f"{exact}"
    return _minus(f"({a_text} + {b_text}) / 2 = {mean_text}")


def _product_sum_text(
    gain: float, excess: float, parts: list[float], total: float
) -> tuple[str, str]:
    """The gain line (``gain × excess = g``) and the session grade line (``parts + g = total``)
    with the fewest decimals at which both hold as shown: the product is worked out from the
    excess as shown, and the sum from the product as shown."""
    gain_text = f"{gain:g}"
    places = max(0, -Decimal(gain_text).as_tuple().exponent)
    for decimals in range(2, MOST_DECIMALS + 1):
        wide = decimals + places
        excess_text = f"{excess:+.{decimals}f}"
        product = Decimal(gain_text) * Decimal(excess_text)
        product_text = f"{product:+.{wide}f}"
        texts = [f"{p:.{wide}f}" for p in parts] + [product_text]
        total_text = f"{total:.{wide}f}"
        if sum(Decimal(t) for t in texts) == Decimal(total_text):
            break
    else:
        total_text = f"{sum(Decimal(t) for t in texts)}"
    gain_line = _minus(f"{gain_text} × {excess_text} = {product_text}")
    return gain_line, _minus(f"{_joined(texts)} = {total_text}")


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
            _sum_text([p, -50], t, signed=True),
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
    factor = imp_factor(EngineScoring(scoring), params)
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
        .defer("version__payload")
        .first()
    )
    if grade is None:
        return None
    params = active_params()
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
    partner_view = None
    if grade.partner is not None:
        partner_view = grade_view(grade.partner, current_of(grade.partner), viewer=member)
    tables = tables_met({version.pk: pairs}).get(version.pk) if version.scoring in SWISS else None
    group = opponents_of(version, grade.pair_id, pairs, tables, params)
    field_players = players_of(pairs)
    sopp = average_view(grade.sopp, group.players, member)
    row = history_row(grade, weights, sopp_shown=sopp is not None or grade.sopp is None)
    sof = average_view(version.sof, field_players, member)
    start_shown = not group_hides_grades(field_players, member)
    count = len(group.pairs)
    opponents = (
        f"SOpp is the average grade, at the start of the session, of {group.name}: "
        f"{count} pair{'s' if count != 1 else ''}"
    )
    if group.unknown:
        opponents += (
            f", {group.unknown} of them with an unknown player, counted at a grade "
            "estimated from their score"
        )
    opponents += "."
    if grade.sopp is not None and sopp is None:
        opponents += (
            " It is not shown: it is an average over fewer than 5 players, one of whom keeps "
            "their grade private. " + OWN_FIGURES_SAID
        )
    figures_withheld = row.sopp_withheld  # S14.14 as amended: par and excess go with SOpp
    steps: list[Step] = []
    ga, gb = grade.grade_before, grade.partner_grade
    steps.append(Step("Your grade", "Your current grade when the session was graded.", f"{ga:.2f}"))
    pair_shown = pair_grade_shown(partner_view)
    pair = (ga + gb) / 2 if gb is not None else None
    if gb is not None:
        # S14.14: the pair's grade is the partner's grade read another way. Where it is not
        # written, the figures below still give it: the page says so (partner_withheld).
        withheld = partner_view.text if partner_view is not None else "—"
        steps.append(
            Step(
                "Partner's grade",
                f"{row.partner}'s grade at the start of the session (written here only if "
                "published).",
                f"{gb:.2f}" if pair_shown else withheld,
            )
        )
        steps.append(
            Step(
                "Pair's grade",
                "The average of the two grades: what the scheme expects of the pair."
                + (
                    ""
                    if pair_shown
                    else " Not written here, as your partner's grade is shown to them only; "
                    "it is still in the figures below, which give it exactly."
                ),
                _average_text(ga, gb, pair) if pair_shown else withheld,
            )
        )
    if grade.sopp is not None:
        steps.append(Step("SOpp", opponents, f"{sopp:.2f}" if sopp is not None else "—"))
    steps.append(_score_term_step(grade, row.score, grade.pair_direction_mean, params))
    every_figure = pair_shown and sopp is not None and pair is not None
    if grade.par is not None and gb is not None and grade.sopp is not None:
        percent = version.scoring in PERCENT_SCORINGS
        steps.append(
            Step(
                "Par",
                "The score that gives zero excess: 50% plus the pair's grade "
                "minus SOpp, in this event's units."
                + (" Not shown, as it would give SOpp away." if figures_withheld else ""),
                "—"
                if figures_withheld
                else _sum_text([50, pair, -grade.sopp], grade.par) + "%"
                if percent and every_figure
                else f"{score_text(grade.par, version.scoring)}",
            )
        )
    if grade.excess is not None and figures_withheld:
        steps.append(
            Step(
                "Excess",
                "Score term + SOpp − pair's grade. Not shown, as it would give SOpp away.",
                "—",
            )
        )
    elif grade.excess is not None:
        terms_shown = every_figure and grade.score_term is not None
        steps.append(
            Step(
                "Excess",
                "Score term + SOpp − pair's grade: how far above (or below) par the pair played.",
                _sum_text([grade.score_term, grade.sopp, -pair], grade.excess, signed=True)
                if terms_shown
                else f"{grade.excess:+.2f}",
            )
        )
        parts = [ga, grade.regular_adjustment or 0.0]
        total = grade.session_grade  # none for a host pair: the gain line alone is shown
        if total is None:
            total = sum(parts) + grade.gain * grade.excess
        gain_line, total_line = _product_sum_text(grade.gain, grade.excess, parts, total)
        steps.append(Step("Gain", f"The excess counts {grade.gain:g} times (FAQ 42).", gain_line))
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
    if grade.session_grade is not None and figures_withheld:
        steps.append(
            Step(
                "Session grade",
                "Your grade + regular-pair adjustment + gain × excess (the excess is not "
                "shown, as it would give SOpp away).",
                f"{grade.session_grade:.2f}",
            )
        )
    elif grade.session_grade is not None and grade.excess is not None:
        steps.append(
            Step(
                "Session grade",
                "Your grade + regular-pair adjustment + gain × excess.",
                total_line,
            )
        )
    else:
        steps.append(Step("Session grade", row.reason or "Not graded.", "not graded"))
    movement, movement_words, faq12 = _movement(grade, row)
    # The partner's grade at the start is in the build-up when published: the field table says
    # the same, not "not listed" for the same person (issue 30).
    partner_listed = grade.partner_id if pair_shown else None
    field_rows = _field(
        pairs, member, version.scoring, _start_grades(version), start_shown, partner_listed
    )
    return Explanation(
        row=row,
        steps=steps,
        movement=movement,
        movement_words=movement_words,
        faq12=faq12,
        field=field_rows,
        sof=sof,
        opponents_words=opponents,
        field_words=_field_words(start_shown, grade.sopp is not None and sopp is not None),
        start_grades_shown=start_shown,
        withdrawn=version.state == SessionVersion.State.WITHDRAWN
        or version.session.live_version_id != version.pk,
        partner_grade=partner_view,
        partner_withheld=partner_grade_withheld(partner_view) and gb is not None,
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
    # The change as the difference of the two grades as shown, so that it adds up (issue 30).
    before, after = f"{grade.grade_before:.2f}", f"{grade.grade_after:.2f}"
    change = Decimal(after) - Decimal(before)
    direction = "up" if change > 0 else "down" if change < 0 else "not at all"
    change = abs(change)
    words = (
        f"Your grade went {direction} by {change}, from {before} "
        f"to {after}. The session grade of {grade.session_grade:.2f} is "
        f"{'above' if grade.session_grade >= grade.grade_before else 'below'} your grade, "
        "and it joins the decayed average of your sessions"
    )
    if row.unweighted:
        words += f". Today it carries no weight in your grade: {row.unweighted}"
    elif row.weight_percent:
        words += f"; today it carries {row.weight_percent:.2f}% of your grade"
    words += "."
    score = row.score
    if (
        score is not None
        and row.scoring in PERCENT_SCORINGS
        and score > 50
        and (row.excess or 0) < 0
        and row.par is not None
    ):
        words += (
            f" You scored {score:.2f}%, above average, but par was {row.par:.2f}%: "
            "this is FAQ 12's case of a good score that lowers the grade."
        )
    elif (row.excess or 0) > 0 and moved < 0:
        words += (
            " The excess was positive yet the grade fell: the decay and the order in "
            "which results were graded moved it (FAQ 12)."
        )
    return moved, words, faq12


def _start_grades(version: SessionVersion) -> dict[int, float]:
    """Each known player's grade at the start of the session: the grades SOpp and SoF were
    computed from (S3.2, S5.2), not today's."""
    return dict(
        SessionGrade.objects.filter(version=version).values_list("member_id", "grade_before")
    )


def _field_words(start_shown: bool, sopp_shown: bool) -> str:
    if not start_shown:
        return (
            "One of these players keeps their grade private, so the grades at the start of "
            "the session are not listed: beside the strength of field they would give it away."
        )
    if sopp_shown:
        return (
            "Grades at the start of the session, the ones SOpp was worked out from (not "
            "today's); SOpp is the average of your opponents' among them. A grade is shown only "
            "where the player publishes it."
        )
    return (
        "Grades at the start of the session (not today's), shown only where the player "
        "publishes them."
    )


def _field(
    pairs: list[PairResult],
    viewer: Member,
    scoring: str,
    start: dict[int, float],
    start_shown: bool,
    partner_listed: int | None = None,
) -> list[FieldPlayer]:
    """The field with each player's grade at the start of the session where the viewer may see
    it (S7, S14.14): their own always; another's when published and no grade in the field is
    private."""
    out = []
    for pair in pairs:
        grades = []
        names = []
        for player, name in ((pair.player1, pair.player1_name), (pair.player2, pair.player2_name)):
            label = player.name if player else (name or "Unknown")
            names.append(label)
            grades.append((label, _start_text(player, viewer, start, start_shown, partner_listed)))
        out.append(
            FieldPlayer(
                pair.pair_id,
                pair.direction,
                " & ".join(names),
                score_text(pair.score, scoring),
                grades,
                viewer.pk in {pair.player1_id, pair.player2_id},
            )
        )
    return out


def _start_text(
    player: Member | None,
    viewer: Member,
    start: dict[int, float],
    start_shown: bool,
    partner_listed: int | None = None,
) -> str:
    if player is None:
        return "Not a member"
    value = start.get(player.pk)
    if value is None:
        return "—"
    if player.pk in (viewer.pk, partner_listed):
        return f"{value:.2f}"
    view = grade_view(player, current_of(player), viewer=viewer)
    if not view.shown:
        return view.text
    return f"{value:.2f}" if start_shown else "not listed"


def session_grade_id(*, member: Member, session_id: int) -> int | None:
    """The member's session grade that a session's address stands for: the row of the
    session's live version, else (a session withdrawn or corrected without them) the row of
    its newest version they played in. Addresses use the session's id, which no refold,
    parameter change or correction renumbers (issue 30 item 3); the rows are rewritten."""
    rows = SessionGrade.objects.filter(member=member, version__session_id=session_id)
    live = rows.filter(version__session__live_version=models.F("version_id"))
    pk = live.values_list("pk", flat=True).first()
    if pk is not None:
        return pk
    return rows.order_by("-version__number", "-version_id").values_list("pk", flat=True).first()


def grade_session_id(*, member: Member, grade_id: int) -> int | None:
    """The session of one of the member's session grades (an address from before sessions
    were addressed by their own id), or None."""
    return (
        SessionGrade.objects.filter(member=member, pk=grade_id)
        .values_list("version__session_id", flat=True)
        .first()
    )
