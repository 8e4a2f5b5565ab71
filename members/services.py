"""Writes to members. Keyword-only arguments; each function names the thing and the verb."""

import datetime as dt
from collections.abc import Iterable

from django.db import transaction
from django.db.models import Q

from clubs.models import HostExemptionRequest, PlannedSession
from clubs.rules import exemption_closed
from clubs.services import ExemptionRefused, club_pages_invalidate, exemption_request_create
from grading.common.audit import audit_record
from grading.engine.types import normalise_number
from grading.models import AuditEvent, SessionGrade
from members.models import Member, new_pages_version


class InvalidMembershipNumber(ValueError):
    pass


def member_get_or_create(*, number: str, name: str) -> tuple[Member, list[str]]:
    """The member with this number, created with ``name`` if new (S14.2).

    Returns the member and warnings: a name that differs from the record is a warning, never
    a new member.
    """
    normalised = normalise_number(number)
    if normalised is None:
        raise InvalidMembershipNumber(f"{number!r} is not a membership number")
    member, created = Member.objects.get_or_create(
        national_number=normalised, defaults={"name": name.strip() or normalised}
    )
    warnings = []
    if not created and name.strip() and _names_differ(member.name, name):
        warnings.append(
            f"Membership number {normalised} is {member.name} in our records, "
            f"but the file says {name.strip()!r}."
        )
    return member, warnings


def _names_differ(recorded: str, given: str) -> bool:
    def simplify(text: str) -> str:
        return " ".join(text.lower().replace(",", " ").split())

    return simplify(recorded) != simplify(given) and sorted(simplify(recorded).split()) != sorted(
        simplify(given).split()
    )


@transaction.atomic
def member_privacy_set(*, member: Member, private: bool) -> Member:
    """Make the member's grade private or public (S7). A private grade is still computed and
    used in every calculation; only its publication changes."""
    if member.grade_private != private:
        member.grade_private = private
        member.save(update_fields=["grade_private"])
        # Their own pages, and those of everyone who played in a session with them: an SOpp
        # or SoF over a small field shows or hides with this member's privacy (S14.14).
        shared = SessionGrade.objects.filter(member=member).values("version_id")
        Member.objects.filter(
            Q(pk=member.pk)
            | Q(pk__in=SessionGrade.objects.filter(version_id__in=shared).values("member_id"))
        ).update(pages_version=new_pages_version())
        # The grade lists of their clubs show "Private" or the grade (S7).
        club_pages_invalidate(members=Member.objects.filter(pk=member.pk))
        audit_record(
            action=AuditEvent.Action.PRIVACY,
            subject=str(member),
            actor=member.user,
            private=private,
        )
    return member


def member_pages_invalidate(
    *, numbers: Iterable[str] | None = None, member_ids: Iterable[int] | None = None
) -> int:
    """The members' own pages are cached under their ``pages_version`` (members/pagecache.py):
    a new one, in the transaction that changes their grades, makes the next request render
    afresh; so are the grade lists of their clubs, under each club's (``club_pages_invalidate``).
    Give membership ``numbers`` or ``member_ids``; neither means every member (a refold, the
    nightly refresh). Returns the number of members bumped."""
    if numbers is None and member_ids is None:
        club_pages_invalidate()
        return Member.objects.update(pages_version=new_pages_version())
    members = Member.objects.filter(
        Q(national_number__in=set(numbers or ())) | Q(pk__in=set(member_ids or ()))
    )
    club_pages_invalidate(members=members)
    return members.update(pages_version=new_pages_version())


# --------------------------------------------------------------------------------------------
# Host exemptions, member side (S3.9, FAQ 10): the club's rules are in clubs.services.


def exemption_request_make(
    *, member: Member, partner: Member, planned_session: PlannedSession, now: dt.datetime
) -> HostExemptionRequest:
    """The member asks to host ``planned_session`` with ``partner``. A second request for a
    session they (or their partner, naming them) already asked for is told it is their own;
    every other rule is the club's (``clubs.services.exemption_request_create``)."""
    own = (
        HostExemptionRequest.objects.filter(planned_session=planned_session)
        .filter(Q(member=member) | Q(partner=member))
        .select_related("member", "partner")
        .first()
    )
    if own is not None:
        other = own.partner if own.member_id == member.pk else own.member
        asked = "You have" if own.member_id == member.pk else f"{own.member.name} has"
        raise ExemptionRefused(
            f"{asked} already asked to host this session with "
            f"{'you' if own.member_id != member.pk else other.name} "
            f"({own.get_status_display().lower()}). To change the partner, cancel that "
            "request first."
        )
    return exemption_request_create(
        member=member, partner=partner, planned_session=planned_session, now=now
    )


@transaction.atomic
def exemption_request_cancel(*, member: Member, request_id: int, now: dt.datetime) -> None:
    """The member withdraws their own request while it waits for the club and the session's
    requests are still open."""
    request = (
        HostExemptionRequest.objects.select_for_update()
        .select_related("planned_session__club")
        .filter(pk=request_id, member=member)
        .first()
    )
    if request is None:
        raise ExemptionRefused("That request is not yours to cancel.")
    if request.status != HostExemptionRequest.Status.WAITING:
        raise ExemptionRefused(
            f"The club has already decided ({request.get_status_display().lower()}); ask its "
            "organiser to change it."
        )
    planned = request.planned_session
    if exemption_closed(planned, now):
        raise ExemptionRefused("The session has started and its requests have closed.")
    audit_record(
        action=AuditEvent.Action.EXEMPTION_DECISION,
        subject=str(request),
        actor=member.user,
        club=planned.club,
        request=request.pk,
        status="cancelled by the member",
    )
    request.delete()
