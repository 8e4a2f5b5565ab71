"""The club's grade list (S7, S13): members with their published grades, searched, filtered
and sorted, and the dashboard's counts and top list."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import Case, Count, F, FloatField, Q, When
from django.db.models.functions import Length

from clubs.models import Club, ClubRole
from grading.engine.ngs.decay import shown, years_before
from grading.engine.ngs.handicap import cents, player_handicap
from grading.models import CurrentGrade, PairResult, Session
from grading.privacy import (
    PROVISIONAL,
    grade_withheld_reason,
    published_grade_q,
)

Status = CurrentGrade.Status

GRADE_SORTS = {
    "name": ("member__name",),
    "-name": ("-member__name",),
    "number": (Length("member__national_number").asc(), "member__national_number"),
    "-number": (Length("member__national_number").desc(), "-member__national_number"),
    "grade": (F("published").asc(nulls_last=True), "member__name"),
    "-grade": (F("published").desc(nulls_last=True), "member__name"),
}

# The status filter (issue 19): a status is matched only where it is shown (S7), so filtering
# never sorts a private member by the status the list does not show.
GRADE_STATUS_FILTERS = {
    "published": ("Published grades", published_grade_q("member__")),
    Status.EVOLVING: (
        "Evolving",
        Q(member__grade_private=False, member__current_grade__status=Status.EVOLVING),
    ),
    Status.MATURE: (
        "Mature",
        Q(member__grade_private=False, member__current_grade__status=Status.MATURE),
    ),
    Status.OUT_OF_DATE: (
        "Out of date",
        Q(member__grade_private=False, member__current_grade__status=Status.OUT_OF_DATE),
    ),
    Status.PROVISIONAL: (
        "Provisional",
        Q(member__grade_private=False, member__current_grade__status=Status.PROVISIONAL),
    ),
    "private": ("Private", Q(member__grade_private=True)),
    "none": (
        "No grade yet",
        Q(member__grade_private=False, member__current_grade__isnull=True),
    ),
}
RECENT_MONTHS = 12


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
    def list_status(self) -> str:
        """The status column of the page and of its exports, one rule for both (issue 30):
        "Private", "Provisional" or "No grade" where the grade is withheld (S7), else the
        published grade's status."""
        return self.withheld or self.status

    @property
    def handicap_100(self) -> float | None:
        """``50 - G`` to the cent (S8)."""
        return None if self.grade is None else cents(player_handicap(self.grade))

    @property
    def handicap_50(self) -> float | None:
        """Half of it, halves away from zero (S8, docs/decisions.md "Club pages")."""
        return None if self.grade is None else cents(player_handicap(self.grade, share=2))


def year_before(today: dt.date) -> dt.date:
    """The same day twelve months earlier (28 February for a 29th): the engine's
    ``years_before``, one year."""
    return years_before(today, 1)


def played_here_since(*, club: Club, since: dt.date) -> set[int]:
    """Ids of the members who played a session of the club dated ``since`` or later (the
    live version of each session: a withdrawn session counts for no one)."""
    versions = Session.objects.filter(
        event__club=club, date__gte=since, live_version__isnull=False
    ).values("live_version_id")
    ids: set[int] = set()
    for first, second in PairResult.objects.filter(version_id__in=versions).values_list(
        "player1_id", "player2_id"
    ):
        ids.update(i for i in (first, second) if i is not None)
    return ids


def club_grade_rows(
    *,
    club: Club,
    query: str = "",
    sort: str = "name",
    status: str = "",
    recent_since: dt.date | None = None,
) -> list[GradeRow]:
    """The club's members with their published grades (S7, S13), searched, filtered by status
    and by "played here since ``recent_since``", and sorted.

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
    if status in GRADE_STATUS_FILTERS:
        roles = roles.filter(GRADE_STATUS_FILTERS[status][1])
    if recent_since is not None:
        roles = roles.filter(member_id__in=played_here_since(club=club, since=recent_since))
    roles = roles.order_by(*GRADE_SORTS.get(sort, GRADE_SORTS["name"]))
    rows = []
    for role in roles:
        member = role.member
        withheld = grade_withheld_reason(member)
        current = getattr(member, "current_grade", None)
        grade = None if withheld else shown(current.grade)
        shown_status = ""
        if withheld == PROVISIONAL:
            shown_status = PROVISIONAL
        elif not withheld:
            shown_status = current.get_status_display()
        rows.append(
            GradeRow(
                number=member.national_number,
                name=member.name,
                role=role.get_role_display(),
                grade=grade,
                band=current.band if grade is not None else "",
                status=shown_status,
                withheld=withheld,
            )
        )
    return rows


def club_grade_summary(*, club: Club) -> dict:
    """Counts for the dashboard: members, published grades, private and provisional."""
    return ClubRole.objects.filter(club=club).aggregate(
        members=Count("id"),
        published=Count("id", filter=published_grade_q("member__")),
        private=Count("id", filter=Q(member__grade_private=True)),
        provisional=Count(
            "id",
            filter=Q(member__grade_private=False)
            & Q(member__current_grade__status=Status.PROVISIONAL),
        ),
    )


def club_top_grades(*, club: Club, limit: int = 10) -> list[GradeRow]:
    return [r for r in club_grade_rows(club=club, sort="-grade") if r.grade is not None][:limit]


__all__ = [
    "GRADE_SORTS",
    "GRADE_STATUS_FILTERS",
    "RECENT_MONTHS",
    "GradeRow",
    "club_grade_rows",
    "club_grade_summary",
    "club_top_grades",
    "played_here_since",
    "year_before",
]
