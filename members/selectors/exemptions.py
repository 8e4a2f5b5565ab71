"""Host-exemption requests, member side (S3.9)."""

from __future__ import annotations

import datetime as dt

from django.db.models import Q, QuerySet

from clubs.models import HostExemptionRequest, PlannedSession
from members.models import Member


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
