"""Who may see what of a member's grade (S7, S14.14): the one place every page, API, export,
chart and admin view asks.

A private grade is still computed and used everywhere; it is shown to its member only. A
provisional grade likewise. Published lists and band counts carry public, non-provisional grades
(out-of-date ones included: they are grades, S4). Any count of fewer than 5 that could single
someone out is suppressed.
"""

from __future__ import annotations

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
