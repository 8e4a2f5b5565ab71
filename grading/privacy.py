"""Who may see what of a member's grade (S7, S14.14): the one place every page, API, export,
chart and admin view asks.

S14.14 in short: a private grade is shown to its member only, and so is any figure named for it
or read straight off it (the partner's grade, the pair's grade, a field table listing it).
Another member's own results (session grade, par, excess, SOpp, grade before and after) stay
theirs. An average over a group holding a private grade is never shown beside the others'
grades at the start (``group_hides_grades``), and an average over fewer than 5 players that
includes one is shown to that member and staff only (``average_shown``).

A private grade is still computed and used everywhere; it is shown to its member only. A
provisional grade likewise. Published lists and band counts carry public, non-provisional grades
(out-of-date ones included: they are grades, S4). Any count of fewer than 5 that could single
someone out is suppressed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Q

from grading.engine.ngs import band, shown
from grading.models import CurrentGrade, SessionGrade
from members.models import Member

Status = CurrentGrade.Status
PUBLISHED_STATUSES = (Status.EVOLVING, Status.MATURE, Status.OUT_OF_DATE)
SMALLEST_GROUP = 5  # S7: any group smaller than this is suppressed

PRIVATE = "Private"
PROVISIONAL = "Provisional"
NO_GRADE = "No grade"
NOT_A_MEMBER = "Not a member"


def current_of(member: Member) -> CurrentGrade | None:
    try:
        return member.current_grade
    except CurrentGrade.DoesNotExist:
        return None


def published_grade_q(prefix: str = "") -> Q:
    """Members whose grade may appear in a list (S7): public and not provisional."""
    return Q(**{f"{prefix}grade_private": False}) & Q(
        **{f"{prefix}current_grade__status__in": PUBLISHED_STATUSES}
    )


def grade_withheld_reason(member: Member | None) -> str:
    """Why a member's grade is not shown to a club or a list ("" when it is published, S7).

    Expects ``member.current_grade`` to be loaded with ``select_related``.
    """
    if member is None:
        return NOT_A_MEMBER
    if member.grade_private:
        return PRIVATE
    current = getattr(member, "current_grade", None)
    if current is None:
        return NO_GRADE
    if current.status == Status.PROVISIONAL:
        return PROVISIONAL
    return ""


def published_grade(member: Member | None) -> float | None:
    """The grade as shown (2 decimals, S14.11) when it may be published, else None."""
    if grade_withheld_reason(member):
        return None
    return shown(member.current_grade.grade)


@dataclass(frozen=True)
class GradeView:
    """A grade as one viewer may see it: ``value`` is None unless it may be shown."""

    value: float | None
    text: str
    band: str | None = None
    status: str | None = None

    @property
    def shown(self) -> bool:
        return self.value is not None


def grade_view(
    member: Member, current: CurrentGrade | None, *, viewer: Member | None = None
) -> GradeView:
    """A member's grade as ``viewer`` may see it (S7): the owner sees everything; anyone else
    sees a public, non-provisional grade, else "Private" or "Provisional"."""
    if current is None:
        return GradeView(None, "No grade yet")
    own = viewer is not None and viewer.pk == member.pk
    if not own and member.grade_private:
        return GradeView(None, PRIVATE)
    if not own and current.status == Status.PROVISIONAL:
        return GradeView(None, PROVISIONAL)
    value = shown(current.grade)
    return GradeView(value, f"{value:.2f}", band(current.grade), current.status)


def suppressed(count: int) -> int | None:
    """A count as it may be published: None for 1-4 (S7's smallest group)."""
    return None if 0 < count < SMALLEST_GROUP else count


def viewer_member(viewer) -> Member | None:
    """The member behind a viewer given as a Member, a User (maybe anonymous) or None."""
    if viewer is None or isinstance(viewer, Member):
        return viewer
    if not getattr(viewer, "is_authenticated", False):
        return None
    return getattr(viewer, "member", None)


def is_own(member: Member, viewer) -> bool:
    """Whether ``viewer`` (a Member, a User or None) is ``member`` themselves."""
    seen_by = viewer_member(viewer)
    return seen_by is not None and seen_by.pk == member.pk


def hidden_from(member: Member | None, viewer=None) -> bool:
    """Whether ``member``'s grades (NGS, PPI, Brambledown) are private to ``viewer`` (S7)."""
    return member is not None and member.grade_private and not is_own(member, viewer)


def hidden_from_q(prefix: str = "", viewer: Member | None = None) -> Q:
    """``hidden_from`` as a query: the member at ``prefix`` (``"player1__"``) holds a grade
    private to ``viewer``, a Member or None (S7)."""
    private = Q(**{f"{prefix}grade_private": True})
    if viewer is None:
        return private
    return private & ~Q(**{prefix.removesuffix("__") or "pk": viewer.pk})


def public_q(prefix: str = "") -> Q:
    """Members whose grade is not private (S7), for lists of other schemes' grades."""
    return Q(**{f"{prefix}grade_private": False})


def pair_grade_shown(partner_view: GradeView | None) -> bool:
    """The pair's grade (the two players' average) is read straight off the partner's: shown
    only when the partner's grade is (S14.14)."""
    return partner_view is not None and partner_view.shown


def partner_grade_withheld(partner_view: GradeView | None) -> bool:
    """S14.14: the partner's grade is not written on the member's pages (private, or
    provisional), yet it went into the member's own par, SOpp, score term and excess, which
    give the pair's grade, and so the partner's, exactly. Privacy cannot hide it from a
    partner: where this is true the page says so plainly instead of pretending otherwise."""
    return partner_view is not None and not partner_view.shown


def privacy_limits() -> dict[str, int]:
    """What privacy cannot hide (S14.14), for the privacy page to say plainly: a partner works
    out a private grade at the start of each session they played together, exactly, from
    their own figures (``partner_grade_withheld``); so does an opponent in a field of fewer
    than ``smallest_group`` other players; no one else can, from anything the product shows."""
    return {"smallest_group": SMALLEST_GROUP}


def holds_private(players: Iterable[Member | None], viewer=None) -> bool:
    """Whether a group of players holds a grade private to ``viewer`` (unknown players are
    None and hold no one's grade)."""
    return any(hidden_from(p, viewer) for p in players)


def group_hides_grades(players: Iterable[Member | None], viewer=None) -> bool:
    """S14.14: where a comparison group holds a private grade, an average over it (SoF, SOpp)
    and the players' grades at the start side by side give that grade exactly; the players are
    then listed without their grades at the start."""
    return holds_private(players, viewer)


def average_shown(players: Iterable[Member | None], viewer=None, *, staff: bool = False) -> bool:
    """S7, S14.14: an average over fewer than 5 players that includes a private grade is shown
    to that member and staff only. ``players`` are everyone the average is over, unknown
    players (None) included."""
    players = list(players)
    if staff or len(players) >= SMALLEST_GROUP:
        return True
    return not holds_private(players, viewer)


def average_view(
    value: float | None, players: Iterable[Member | None], viewer=None, *, staff: bool = False
) -> float | None:
    """An average as ``viewer`` may see it: None ("—") where ``average_shown`` says no."""
    if value is None:
        return None
    return value if average_shown(players, viewer, staff=staff) else None


# --------------------------------------------------------------------------- field figures


@dataclass(frozen=True)
class FieldStrength:
    """An average of a field's grades at the start of a session as club and public pages show
    it (S14.25): over the published grades only, with how many players are not counted. The
    grading's own SoF (every grade, unknown players at their S3.8 value) is never shown there:
    a club administrator can put any membership number in a file, and six times the SoF of a
    crafted six-player session less five public grades is the sixth, private, grade."""

    value: float | None  # None under 5 published grades (S7's smallest group)
    counted: int  # players whose published grade the average is over
    not_counted: int  # players whose grade is not published (private, provisional, none) or
    # who are not members

    @property
    def words(self) -> str:
        """What the figure is over, in a club scorer's words ("" when every player counts)."""
        if not self.not_counted:
            return ""
        players = "player" if self.not_counted == 1 else "players"
        return (
            f"over {self.counted} published grade{'s' if self.counted != 1 else ''}; "
            f"{self.not_counted} {players} not counted, whose grade is not published or who "
            + ("is not a member" if self.not_counted == 1 else "are not members")
        )


def field_strength(published: Iterable[float], players: int) -> FieldStrength:
    """``published``: the grades at the start of the session of the players whose grade is
    published today; ``players``: everyone in the field (unknown players included)."""
    grades = list(published)
    value = sum(grades) / len(grades) if len(grades) >= SMALLEST_GROUP else None
    return FieldStrength(value, len(grades), max(players - len(grades), 0))


def published_start_grades(version_ids: Iterable[int]) -> dict[int, dict[str, list[float]]]:
    """Per session version, the grades at the start of the session (the ones SoF was worked
    out from, S3.2) of the players whose grade is published today (S7: public and not
    provisional), by the pair's id. What a club or public page may average (S14.25)."""
    out: dict[int, dict[str, list[float]]] = {}
    rows = SessionGrade.objects.filter(version_id__in=list(version_ids)).filter(
        published_grade_q("member__")
    )
    for version_id, pair_id, grade in rows.values_list("version_id", "pair_id", "grade_before"):
        out.setdefault(version_id, {}).setdefault(pair_id, []).append(grade)
    return out


def own_figures_hidden(sopp_hidden: bool) -> frozenset[str]:
    """S14.14 as amended: where a member's SOpp is withheld (an average over fewer than 5
    players holding a private grade), so are the figures that give it back: par (50% plus the
    pair's grade less SOpp) and excess (score term plus SOpp less the pair's grade), on the
    page, in the API and in the CSV. The session grade stays the member's own, and what it
    gives back is said on the page (``OWN_FIGURES_SAID``)."""
    return frozenset({"sopp", "par", "excess"}) if sopp_hidden else frozenset()


OWN_FIGURES_SAID = (
    "SOpp, par and excess are not shown: in a field this small they would give away the "
    "grade of a player who keeps it private. Your session grade is still shown, as it is your "
    "own; with your score and your grade it lets you work SOpp out, which nothing can prevent "
    "in a field of fewer than 5 other players."
)


def stratum_grade(member: Member, grade_at_start: float, *, estimate: float | None) -> float | None:
    """The grade a results page's strata place a member by (S16): their grade at the start of
    the session when their grade is published (public, not provisional); for a private or
    provisional grade (or none) the club's estimate for them (S8, FAQ 36), else None, and the
    pair then goes in the strongest stratum, so that no stratum tells anything of a withheld
    grade. The same for every viewer: the member's own page places them as everyone else's.
    Expects ``member.current_grade`` loaded with ``select_related``."""
    if grade_withheld_reason(member):
        return estimate
    return grade_at_start
