"""Host-exemption requests, member side (S3.9, FAQ 10)."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Q, QuerySet

from clubs.models import HostExemptionRequest, PlannedSession
from clubs.rules import exemption_closed
from clubs.selectors.planning import planned_sessions_played
from members.models import Member

Status = HostExemptionRequest.Status


def _closed(planned: PlannedSession, now: dt.datetime) -> bool:
    return exemption_closed(planned, now)


def planned_sessions_open(*, member: Member, now: dt.datetime) -> QuerySet[PlannedSession]:
    """The sessions a member may still ask to host: their clubs' planned sessions whose
    requests have not closed (30 minutes after the start), without results yet, and without a
    request from another pair (one pair per session). A session the member (or their partner)
    already asked for stays, so that a second request is told it is their own."""
    candidates = list(
        PlannedSession.objects.filter(
            club__roles__member=member, date__gte=now.date() - dt.timedelta(days=1)
        )
        .filter(
            Q(exemption__isnull=True) | Q(exemption__member=member) | Q(exemption__partner=member)
        )
        .select_related("club")
        .distinct()
    )
    by_club: dict[int, list[PlannedSession]] = defaultdict(list)
    for planned in candidates:
        if not _closed(planned, now):
            by_club[planned.club_id].append(planned)
    played = set()
    for club_id, planned in by_club.items():
        played |= planned_sessions_played(club_id=club_id, planned=planned)
    ids = [p.pk for ps in by_club.values() for p in ps if p.pk not in played]
    return (
        PlannedSession.objects.filter(pk__in=ids)
        .select_related("club")
        .order_by("date", "start", "pk")
    )


def exemption_requests(*, member: Member) -> QuerySet[HostExemptionRequest]:
    return (
        HostExemptionRequest.objects.filter(Q(member=member) | Q(partner=member))
        .select_related("planned_session__club", "member", "partner")
        .order_by("-planned_session__date", "-planned_session__start")
    )


@dataclass(frozen=True)
class ExemptionRow:
    """One of the member's requests as the member sees it: the same states as the club's
    administrator sees, "applied" once the results are in."""

    request: HostExemptionRequest
    mine: bool  # the member asked (else their partner named them)
    state: str
    state_class: str
    can_cancel: bool


def exemption_rows(*, member: Member, now: dt.datetime) -> list[ExemptionRow]:
    requests = list(exemption_requests(member=member))
    by_club: dict[int, list[PlannedSession]] = defaultdict(list)
    for r in requests:
        by_club[r.planned_session.club_id].append(r.planned_session)
    results_in = set()
    for club_id, planned in by_club.items():
        results_in |= planned_sessions_played(club_id=club_id, planned=planned)
    rows = []
    for r in requests:
        planned = r.planned_session
        if planned.pk in results_in:
            state, css = {
                Status.APPROVED: ("Results in: applied, you were not graded", "approved"),
                Status.DECLINED: ("Results in: graded as usual", "declined"),
            }.get(r.status, ("Results in before a decision: graded as usual", "declined"))
        elif r.status == Status.WAITING and _closed(planned, now):
            state, css = "Not decided before the session: graded as usual", "declined"
        else:
            state, css = r.get_status_display(), r.status
        can_cancel = (
            r.member_id == member.pk
            and r.status == Status.WAITING
            and planned.pk not in results_in
            and not _closed(planned, now)
        )
        rows.append(ExemptionRow(r, r.member_id == member.pk, state, css, can_cancel))
    return rows
