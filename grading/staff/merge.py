"""Two numbers, one person (S15): staff merge a membership number into another.

Every result of the merged number becomes the survivor's: the pair rows and their session
grades, and the number inside each stored version (the ledger folds the versions' own
results, so they must name the survivor for the refold to grade the person as one). Roles,
requests and any login move too; the merged number stays as a record pointing at the survivor
(``Member.merged_into``), so looking up either number finds the member and a later file with the
old number credits the survivor (``members.services.member_get_or_create``). The ledger is then
refolded through the staff's refold (``ledger_refold_request``), and PPI and Brambledown rebuilt
after it, both in the worker. A merge of two numbers that played in the same session is refused:
one person cannot have played twice.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Q

from clubs.models import ClubRole, HostExemptionRequest
from grading.common.audit import audit_record
from grading.common.queue import task_queue
from grading.common.stale import member_pages_invalidate
from grading.engine import codec
from grading.engine.types import SessionResult, normalise_number
from grading.ledger.lock import ledger_head_lock
from grading.models import (
    AuditEvent,
    CurrentGrade,
    PairResult,
    PartnershipGrade,
    SessionGrade,
    SessionVersion,
)
from grading.staff.services import ledger_refold_request
from members.models import Invitation, Member, SessionReport, SignUpRequest

REASON_MAX = 500


class MergeRefused(ValueError):
    """A merge the data does not allow; the message says why."""


@dataclass(frozen=True)
class MergeResult:
    merged: str
    survivor: str
    name: str
    versions: int
    pair_rows: int

    def text(self) -> str:
        return (
            f"{self.merged} is merged into {self.survivor} ({self.name}): {self.pair_rows} "
            f"result{'s' if self.pair_rows != 1 else ''} in {self.versions} session "
            f"version{'s' if self.versions != 1 else ''} moved. Every grade is being "
            "recomputed; both numbers now find the member."
        )


def _member(number: str, what: str) -> Member:
    normalised = normalise_number(number or "")
    member = Member.objects.filter(national_number=normalised or "").first()
    if member is None:
        raise MergeRefused(f"No member has the number {(number or '').strip()[:20]!r} ({what}).")
    if member.merged_into_id is not None:
        survivor = Member.objects.get(pk=member.merged_into_id)
        raise MergeRefused(
            f"{member.national_number} was already merged into {survivor.national_number}."
        )
    return member


def _sessions_of(member: Member) -> set[int]:
    return set(
        PairResult.objects.filter(Q(player1=member) | Q(player2=member)).values_list(
            "version__session_id", flat=True
        )
    )


def members_merge(*, merged: str, survivor: str, user=None, reason: str = "") -> MergeResult:
    """Merge the number ``merged`` into ``survivor`` (S15). Raises ``MergeRefused`` (nothing
    changed) for an unknown or already merged number, the same number twice, two numbers that
    played in the same session, or two numbers that each have a login."""
    reason = (reason or "").strip()
    if not reason:
        raise MergeRefused("Give a reason for the merge: it is kept in the audit log.")
    if len(reason) > REASON_MAX:
        raise MergeRefused(f"Keep the reason under {REASON_MAX} characters.")
    with transaction.atomic():
        ledger_head_lock()  # no grading step between the move and the refold's request
        old = _member(merged, "the number to merge")
        new = _member(survivor, "the number that stays")
        if old.pk == new.pk:
            raise MergeRefused("The two numbers are the same member.")
        old, new = (
            Member.objects.select_for_update().get(pk=old.pk),
            Member.objects.select_for_update().get(pk=new.pk),
        )
        shared = _sessions_of(old) & _sessions_of(new)
        if shared:
            raise MergeRefused(
                f"{old.national_number} and {new.national_number} played in the same session "
                f"({len(shared)} session{'s' if len(shared) != 1 else ''}): they are two "
                "people, not one."
            )
        if old.user_id and new.user_id:
            raise MergeRefused(
                f"Both numbers have a login ({old.national_number} and {new.national_number}): "
                "a person keeps one. Ask them which, and remove the other's link in the "
                "database admin first."
            )
        result = _move(old, new)
        audit_record(
            action=AuditEvent.Action.MERGE,
            subject=f"{old.national_number} merged into {new.national_number}",
            actor=user,
            merged=old.national_number,
            survivor=new.national_number,
            merged_name=old.name,
            survivor_name=new.name,
            versions=result.versions,
            pair_rows=result.pair_rows,
            reason=reason,
        )
        ledger_refold_request(user=user)
        task_queue("grading.schemes_rebuild")
    return result


def _move(old: Member, new: Member) -> MergeResult:
    version_ids = sorted(
        set(
            PairResult.objects.filter(Q(player1=old) | Q(player2=old)).values_list(
                "version_id", flat=True
            )
        )
    )
    for version in SessionVersion.objects.filter(pk__in=version_ids).only("pk", "payload"):
        result = codec.load(SessionResult, version.payload)
        version.payload = codec.dump(_renumbered(result, old.national_number, new.national_number))
        version.save(update_fields=["payload"])
    rows = PairResult.objects.filter(player1=old).update(player1=new)
    rows += PairResult.objects.filter(player2=old).update(player2=new)
    SessionGrade.objects.filter(member=old).update(member=new)
    SessionGrade.objects.filter(partner=old).update(partner=new)
    CurrentGrade.objects.filter(member=old).delete()  # the refold writes the survivor's
    PartnershipGrade.objects.filter(Q(member_a=old) | Q(member_b=old)).delete()
    HostExemptionRequest.objects.filter(member=old).update(member=new)
    HostExemptionRequest.objects.filter(partner=old).update(partner=new)
    Invitation.objects.filter(member=old, accepted__isnull=True).update(withdrawn=True)
    SignUpRequest.objects.filter(member=old).update(member=new)
    for report in SessionReport.objects.filter(member=old):
        if not SessionReport.objects.filter(member=new, version_id=report.version_id).exists():
            SessionReport.objects.filter(pk=report.pk).update(member=new)
    _roles_move(old, new)
    user = old.user
    old.merged_into = new
    old.user = None
    old.save(update_fields=["merged_into", "user"])
    if user is not None and new.user_id is None:
        new.user = user
        new.save(update_fields=["user"])
    member_pages_invalidate(member_ids=[old.pk, new.pk])
    return MergeResult(old.national_number, new.national_number, new.name, len(version_ids), rows)


def _renumbered(result: SessionResult, old: str, new: str) -> SessionResult:
    pairs = tuple(
        dataclasses.replace(
            pair,
            players=tuple(
                dataclasses.replace(player, number=new) if player.number == old else player
                for player in pair.players
            ),
        )
        for pair in result.pairs
    )
    return dataclasses.replace(result, pairs=pairs)


def _roles_move(old: Member, new: Member) -> None:
    """The merged number's clubs become the survivor's; where both have a row, one row keeps
    the stronger of each (administrator, on the register, home club)."""
    theirs = {role.club_id: role for role in ClubRole.objects.filter(member=new)}
    for role in ClubRole.objects.filter(member=old):
        kept = theirs.get(role.club_id)
        if kept is None:
            role.member = new
            role.save(update_fields=["member"])
            continue
        if role.role == ClubRole.Role.ADMIN:
            kept.role = ClubRole.Role.ADMIN
        kept.registered = kept.registered or role.registered
        kept.home = kept.home or role.home
        kept.save(update_fields=["role", "registered", "home"])
        role.delete()
