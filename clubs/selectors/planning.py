"""Planned sessions and host requests (S3.9): which are still to be played, which have results
in, and the club's list of requests with their deadlines."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Case, When

from clubs.models import Club, HostExemptionRequest, PlannedSession
from clubs.rules import exemption_deadline, planned_session_of, planned_session_start
from grading.engine.types import SessionResult
from grading.models import Session


def planned_sessions_played(*, club_id: int, planned: list[PlannedSession]) -> set[int]:
    """The ids of those planned sessions whose results are in: each results session of their
    days is matched by ``clubs.rules.planned_session_of``; one that matches none of several
    stands for them all (as its host approvals do, ``clubs.selectors.planning.approved_host_numbers``)."""
    of_day: dict[dt.date, list[PlannedSession]] = defaultdict(list)
    for p in PlannedSession.objects.filter(club_id=club_id, date__in={p.date for p in planned}):
        of_day[p.date].append(p)
    played: set[int] = set()
    results = Session.objects.filter(
        event__club_id=club_id, date__in=set(of_day), live_version__isnull=False
    ).values_list("date", "start", "event__name")
    for date, start, event_name in results:
        match = planned_session_of(of_day[date], start=start, event_name=event_name)
        played |= {match.pk} if match else {p.pk for p in of_day[date]}
    return played


def planned_sessions_upcoming(*, club: Club, today: dt.date) -> list[PlannedSession]:
    """Planned sessions still to be played: today's or later, and without results in (a
    session played this afternoon and uploaded is no longer upcoming)."""
    planned = list(
        PlannedSession.objects.filter(club=club, date__gte=today)
        .select_related("exemption", "exemption__member", "exemption__partner")
        .order_by("date", "start")
    )
    played = planned_sessions_played(club_id=club.pk, planned=planned)
    return [p for p in planned if p.pk not in played]


def planned_session_results_in(*, planned: PlannedSession) -> bool:
    """Whether the club's results for this planned session are in: a host decision no longer
    applies then."""
    return planned.pk in planned_sessions_played(club_id=planned.club_id, planned=[planned])


def duration_text(delta: dt.timedelta) -> str:
    """ "3 days 2 h", "2 h 10 min", "25 min": how far apart two moments are."""
    minutes = max(0, int(delta.total_seconds() // 60))
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    if days:
        return f"{days} day{'s' if days > 1 else ''}" + (f" {hours} h" if hours else "")
    if hours:
        return f"{hours} h" + (f" {minutes} min" if minutes else "")
    return f"{minutes} min"


@dataclass
class ExemptionRow:
    request: HostExemptionRequest
    start: dt.datetime
    deadline: dt.datetime
    results_in: bool

    @property
    def before_deadline(self) -> dt.timedelta:
        """How long before the request deadline (start + 30 minutes) the member asked."""
        return self.deadline - self.request.created

    @property
    def before_deadline_text(self) -> str:
        return duration_text(self.before_deadline)

    @property
    def after_start(self) -> bool:
        return self.request.created > self.start

    @property
    def waiting(self) -> bool:
        return self.request.status == HostExemptionRequest.Status.WAITING


def club_exemption_rows(*, club: Club, status: str = "") -> list[ExemptionRow]:
    """The club's host requests (S3.9): waiting ones first, then by session, latest first."""
    requests = (
        HostExemptionRequest.objects.filter(planned_session__club=club)
        .select_related("planned_session", "member", "partner", "decided_by")
        .annotate(
            waiting_first=Case(When(status=HostExemptionRequest.Status.WAITING, then=0), default=1)
        )
        .order_by("waiting_first", "-planned_session__date", "-planned_session__start")
    )
    if status:
        requests = requests.filter(status=status)
    requests = list(requests)
    played = planned_sessions_played(club_id=club.pk, planned=[r.planned_session for r in requests])
    rows = []
    for request in requests:
        planned = request.planned_session
        rows.append(
            ExemptionRow(
                request,
                planned_session_start(planned),
                exemption_deadline(planned),
                planned.pk in played,
            )
        )
    return rows


def approved_host_numbers(
    *, club: Club, date: dt.date, start: dt.time | None = None, event_name: str = ""
) -> list[tuple[str, str]]:
    """The membership numbers of the approved host pair of the club's planned session that a
    results session is (S3.9: one pair per session). A club may run several sessions on a day:
    the planned session is the one starting nearest the results' start, else the one of the
    same event name; only when neither tells them apart do all of the day's approvals apply."""
    planned = list(PlannedSession.objects.filter(club=club, date=date))
    chosen = planned_session_of(planned, start=start, event_name=event_name)
    requests = HostExemptionRequest.objects.filter(
        planned_session__in=[chosen] if chosen else planned,
        status=HostExemptionRequest.Status.APPROVED,
    ).select_related("member", "partner")
    return [(r.member.national_number, r.partner.national_number) for r in requests]


def approved_host_pair(*, club: Club, result: SessionResult) -> str | None:
    """The pair id of the approved host request for a results session (S3.9), if it played."""
    numbers = approved_host_numbers(
        club=club, date=result.date, start=result.start, event_name=result.event_name
    )
    approved = {frozenset(pair) for pair in numbers}
    for pair in result.pairs:
        if frozenset(p.number for p in pair.players) in approved:
            return pair.pair_id
    return None
