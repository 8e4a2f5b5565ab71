"""Writes to clubs."""

import datetime as dt

from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from clubs.models import Club, ClubRole, HostExemptionRequest, PlannedSession
from clubs.rules import exemption_deadline, planned_date_problem
from clubs.selectors.planning import planned_session_results_in
from grading.common.audit import audit_record
from grading.common.stale import club_pages_invalidate
from grading.models import AuditEvent
from members.models import Member


def club_get_or_create(*, name: str, slug: str = "", national_number: str = "") -> Club:
    club, _ = Club.objects.get_or_create(
        slug=slug or slugify(name)[:80],
        defaults={"name": name, "national_number": national_number},
    )
    return club


@transaction.atomic
def club_role_set(*, club: Club, member: Member, role: str = ClubRole.Role.MEMBER) -> ClubRole:
    """Make ``member`` a member (or an administrator) of ``club``; never demotes an admin."""
    club_role, created = ClubRole.objects.get_or_create(
        club=club, member=member, defaults={"role": role}
    )
    if not created and role == ClubRole.Role.ADMIN and club_role.role != role:
        club_role.role = role
        club_role.save(update_fields=["role"])
    elif not created:
        return club_role
    club_pages_invalidate(club_ids=[club.pk])  # the grade list shows the members and roles
    return club_role


class ExemptionRefused(ValueError):
    """A host-exemption request the rules refuse (S3.9); the message says why."""


@transaction.atomic
def planned_session_create(
    *, club: Club, event_name: str, date: dt.date, start: dt.time, scoring: str = "MP", user=None
) -> PlannedSession:
    """Publish a session (S3.9). The same event at the same date and start once: a second
    would take a host request of its own, making two host pairs for one session. Two events
    starting together (a main and an improvers' section) are two sessions."""
    problem = planned_date_problem(date, timezone.localdate())
    if problem:  # S14.26, whatever calls this (the form says it first)
        raise PlannedSessionRefused(problem)
    Club.objects.select_for_update().get(pk=club.pk)  # two admins publishing at once
    if PlannedSession.objects.filter(
        club=club, date=date, start=start, event_name__iexact=event_name.strip()
    ).exists():
        raise PlannedSessionRefused(
            f"{event_name.strip()} on {date:%d %b %Y} at {start:%H:%M} is already published."
        )
    return PlannedSession.objects.create(
        club=club,
        event_name=event_name.strip(),
        date=date,
        start=start,
        scoring=scoring,
        created_by=user,
    )


@transaction.atomic
def exemption_request_create(
    *, member: Member, partner: Member, planned_session: PlannedSession, now: dt.datetime
) -> HostExemptionRequest:
    """A member asks to host a session with ``partner`` (S3.9, FAQ 10).

    Refused after 30 minutes past the start, when the session already has a request, when
    the member does not belong to the club, or when the member names themselves as partner.
    """
    planned = PlannedSession.objects.select_for_update().get(pk=planned_session.pk)
    deadline = exemption_deadline(planned)
    if now > deadline:
        raise ExemptionRefused(
            f"Too late: requests for {planned} close 30 minutes after the start, at "
            f"{timezone.localtime(deadline):%H:%M on %d %b %Y}."
        )
    if HostExemptionRequest.objects.filter(planned_session=planned).exists():
        raise ExemptionRefused(
            f"{planned} already has a host request; only one pair per session can be exempt."
        )
    if partner.pk == member.pk:
        raise ExemptionRefused("Name your partner: you cannot partner yourself.")
    if not ClubRole.objects.filter(club=planned.club, member=member).exists():
        raise ExemptionRefused(
            f"You are not a member of {planned.club.name}, so you cannot host its sessions."
        )
    return HostExemptionRequest.objects.create(
        planned_session=planned, member=member, partner=partner, created=now
    )


def exemption_decide(
    *, request: HostExemptionRequest, approve: bool, user, now: dt.datetime
) -> HostExemptionRequest:
    """The club's administrator approves or declines (S3.9). Decisions can be changed until
    the session's results are graded; the approved pair is excluded then."""
    request.status = (
        HostExemptionRequest.Status.APPROVED if approve else HostExemptionRequest.Status.DECLINED
    )
    request.decided_by = user
    request.decided_at = now
    request.save(update_fields=["status", "decided_by", "decided_at"])
    audit_record(
        action=AuditEvent.Action.EXEMPTION_DECISION,
        subject=str(request),
        actor=user,
        club=request.planned_session.club,
        request=request.pk,
        status=request.status,
    )
    return request


# --------------------------------------------------------------------------------------------
# Club administration writes (issue 7)


class PlannedSessionRefused(ValueError):
    """A change to a planned session the rules refuse; the message says why."""


def planned_session_delete(*, planned: PlannedSession, today: dt.date) -> None:
    """Remove a planned session that has not happened yet, with any host request for it.

    Past sessions stay: their host decisions are what grading applied (S3.9)."""
    if planned.date < today:
        raise PlannedSessionRefused(
            f"{planned} has already been played; past sessions stay on record."
        )
    planned.delete()


def exemption_decision_record(
    *, request: HostExemptionRequest, approve: bool, user, now: dt.datetime
) -> HostExemptionRequest:
    """An administrator's decision on a host request (S3.9), through ``exemption_decide``.

    Refused once the session's results are in: grading has applied the decision it found then,
    and changing it now would say something that did not happen."""
    if planned_session_results_in(planned=request.planned_session):
        raise ExemptionRefused(
            f"The results of {request.planned_session} are already in, graded with the "
            f"decision as it stood ({request.get_status_display().lower()}); it can no "
            "longer change."
        )
    return exemption_decide(request=request, approve=approve, user=user, now=now)
