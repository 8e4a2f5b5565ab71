"""Writes to clubs."""

import datetime as dt

from django.db import transaction
from django.db.models import Q
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


# --------------------------------------------------------------------------------------------
# The union's staff: clubs and their administrators (S15, S13: staff only; the views check)


class ClubRefused(ValueError):
    """A club's registration or change the data does not allow; the message says why."""


def club_number_normalise(number: str) -> str:
    """A national club number as compared: no spaces, no leading zeros (files write both)."""
    return "".join((number or "").split()).lstrip("0")


def _number_taken(number: str, *, other_than: int | None = None) -> Club | None:
    for club in Club.objects.exclude(national_number="").exclude(pk=other_than or 0):
        if club_number_normalise(club.national_number) == number:
            return club
    return None


def _club_fields_check(*, name: str, national_number: str, other_than: int | None = None):
    name = " ".join((name or "").split())
    number = club_number_normalise(national_number)
    if not name:
        raise ClubRefused("Give the club's name.")
    if not number or not number.isdigit() or len(number) > 20:
        raise ClubRefused(
            "Give the club's national club number: the digits its scoring program writes as "
            "the club number."
        )
    taken = _number_taken(number, other_than=other_than)
    if taken is not None:
        raise ClubRefused(f"Club number {number} is already {taken.name}.")
    return name, number


def _unique_slug(name: str, number: str) -> str:
    base = slugify(name)[:70] or f"club-{number}"
    slug, n = base, 1
    while Club.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


@transaction.atomic
def club_register(
    *, name: str, national_number: str, county: str = "", keeps_brambledown: bool = False, user
) -> Club:
    """Staff register a club (S15). Members the register already lists at its number become
    its members."""
    name, number = _club_fields_check(name=name, national_number=national_number)
    club = Club.objects.create(
        name=name[:200],
        slug=_unique_slug(name, number),
        national_number=number,
        county=" ".join((county or "").split())[:100],
        keeps_brambledown=keeps_brambledown,
    )
    added = club_register_roles_sync(club=club)
    audit_record(
        action=AuditEvent.Action.CLUB,
        subject=f"{club.name} (club {number}) registered",
        actor=user,
        club=club,
        number=number,
        county=club.county,
        register_members=added,
    )
    return club


@transaction.atomic
def club_update(
    *, club: Club, name: str, national_number: str, county: str, keeps_brambledown: bool, user
) -> Club:
    """Staff rename a club, change its number, county or Brambledown (S15). The address of its
    pages (the slug) stays, so links and bookmarks keep working."""
    club = Club.objects.select_for_update().get(pk=club.pk)
    name, number = _club_fields_check(
        name=name, national_number=national_number, other_than=club.pk
    )
    before = {
        "name": club.name,
        "number": club.national_number,
        "county": club.county,
        "brambledown": club.keeps_brambledown,
    }
    club.name = name[:200]
    club.national_number = number
    club.county = " ".join((county or "").split())[:100]
    club.keeps_brambledown = keeps_brambledown
    after = {
        "name": club.name,
        "number": club.national_number,
        "county": club.county,
        "brambledown": club.keeps_brambledown,
    }
    if before == after:
        return club
    club.save(update_fields=["name", "national_number", "county", "keeps_brambledown"])
    if before["number"] != number:
        club_register_roles_sync(club=club)
    club_pages_invalidate(club_ids=[club.pk])
    audit_record(
        action=AuditEvent.Action.CLUB,
        subject=f"{club.name} (club {number}) changed",
        actor=user,
        club=club,
        before=before,
        after=after,
    )
    return club


def register_clubs_q(number: str) -> Q:
    """Members whose register entry lists club ``number`` (``Member.register_clubs``)."""
    return (
        Q(register_clubs=number)
        | Q(register_clubs__startswith=f"{number};")
        | Q(register_clubs__endswith=f";{number}")
        | Q(register_clubs__contains=f";{number};")
    )


def club_register_roles_sync(*, club: Club) -> int:
    """The club's register members as the register gives them (S15): a member it lists at the
    club's number is a registered member (``home`` where it is their first club); one it no
    longer lists there is not. Returns the roles changed or added."""
    number = club_number_normalise(club.national_number)
    listed = {}
    if number:
        for pk, clubs in Member.objects.filter(register_clubs_q(number)).values_list(
            "pk", "register_clubs"
        ):
            listed[pk] = clubs.split(";")[0] == number
    changed = 0
    roles = {r.member_id: r for r in ClubRole.objects.filter(club=club)}
    for pk, role in roles.items():
        want = (pk in listed, listed.get(pk, False))
        if (role.registered, role.home) != want:
            role.registered, role.home = want
            role.save(update_fields=["registered", "home"])
            changed += 1
    new = [
        ClubRole(club=club, member_id=pk, registered=True, home=home)
        for pk, home in listed.items()
        if pk not in roles
    ]
    ClubRole.objects.bulk_create(new, batch_size=2000)
    if changed or new:
        club_pages_invalidate(club_ids=[club.pk])
    return changed + len(new)


@transaction.atomic
def club_admin_grant(*, club: Club, member: Member, actor=None, how: str) -> ClubRole:
    """Make ``member`` an administrator of ``club`` (accepting the staff's invitation, S15)."""
    role = club_role_set(club=club, member=member, role=ClubRole.Role.ADMIN)
    audit_record(
        action=AuditEvent.Action.CLUB_ADMIN,
        subject=f"{member} administrator of {club.name}",
        actor=actor,
        club=club,
        number=member.national_number,
        how=how,
    )
    return role


@transaction.atomic
def club_admin_remove(*, club: Club, member: Member, user) -> None:
    """Staff remove an administrator (S15): they stay the member they were."""
    role = ClubRole.objects.select_for_update().filter(club=club, member=member).first()
    if role is None or role.role != ClubRole.Role.ADMIN:
        raise ClubRefused(f"{member.name} is not an administrator of {club.name}.")
    role.role = ClubRole.Role.MEMBER
    role.save(update_fields=["role"])
    club_pages_invalidate(club_ids=[club.pk])
    audit_record(
        action=AuditEvent.Action.CLUB_ADMIN,
        subject=f"{member} no longer administrator of {club.name}",
        actor=user,
        club=club,
        number=member.national_number,
        how="removed by staff",
    )
