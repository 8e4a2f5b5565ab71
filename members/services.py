"""Writes to members. Keyword-only arguments; each function names the thing and the verb."""

import datetime as dt

from django.db import transaction
from django.db.models import Q

from clubs.models import HostExemptionRequest, PlannedSession
from clubs.rules import exemption_closed
from clubs.services import ExemptionRefused, exemption_request_create
from grading.common.audit import audit_record
from grading.common.stale import member_privacy_invalidate
from grading.engine.types import normalise_number
from grading.models import AuditEvent, PairResult
from members.models import Member, SessionReport


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
    while member.merged_into_id is not None:  # a number merged into another (S15)
        member = Member.objects.get(pk=member.merged_into_id)
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
        member_privacy_invalidate(member=member)
        audit_record(
            action=AuditEvent.Action.PRIVACY,
            subject=str(member),
            actor=member.user,
            private=private,
        )
    return member


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


class ReportRefused(ValueError):
    pass


@transaction.atomic
def session_report_create(*, member: Member, version_id: int, note: str = ""):
    """The member says they did not play this session (S14.25): listed on the staff page.
    Only a session stored under their own number; a second report of it is the first."""
    named = (
        PairResult.objects.filter(version_id=version_id)
        .filter(Q(player1=member) | Q(player2=member))
        .select_related("version__session__event__club")
        .defer("version__payload")
        .first()
    )
    if named is None:
        raise ReportRefused("That session does not name you.")
    report, created = SessionReport.objects.get_or_create(
        member=member, version_id=version_id, defaults={"note": note.strip()[:500]}
    )
    if created:
        audit_record(
            action=AuditEvent.Action.REPORT,
            subject=f"{member} says they did not play {named.version}",
            actor=member.user,
            club=named.version.session.event.club,
            version=version_id,
            note=report.note,
        )
    return report
