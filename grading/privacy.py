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
from grading.models import CurrentGrade
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
