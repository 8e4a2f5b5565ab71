"""Partnerships (S6)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import Count, Max, Q, Sum

from grading.engine.ngs import (
    shown,
)
from grading.models import (
    PartnershipGrade,
)
from grading.privacy import (
    GradeView,
    current_of,
    grade_view,
)
from members.models import Member
from members.selectors.history import history_rows


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
