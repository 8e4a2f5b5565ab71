"""The member's own grade card (S4)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from grading.engine.ngs import (
    band,
    shown,
)
from grading.models import (
    CurrentGrade,
    SessionGrade,
)
from members.models import Member
from members.selectors.bands import BandCard, StatusInfo, band_card, status_info
from members.selectors.base import grading_params
from members.selectors.history import grade_weights


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
