"""Reads of the accounts flows: an invitation by its link, a club's members with their logins,
and the sign-ups waiting for a club's answer."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.db.models import Prefetch
from django.utils import timezone

from clubs.models import Club, ClubRole
from members.models import Invitation, SignUpRequest


def invitation_by_token(*, token: str) -> Invitation | None:
    """The usable invitation this link names, or None (unknown, used, replaced or expired)."""
    invitation = (
        Invitation.objects.select_related("member", "club")
        .filter(token_digest=token_digest(token))
        .first()
    )
    if invitation is None or not invitation_usable(invitation) or invitation.member.user_id:
        return None
    return invitation


@dataclass(frozen=True)
class MemberLoginRow:
    name: str
    number: str
    role: str
    username: str  # empty: no login
    invited_to: str  # the address of the open invitation, if any ("another club" for theirs)
    invited_on: object  # its date, or None
    register: str = ""  # "home club", "on the register" or "" (plays here, S15)


def club_login_rows(*, club: Club) -> list[MemberLoginRow]:
    """Each member of the club, whether they have a login, and any invitation still open."""
    open_invitations = Invitation.objects.filter(accepted__isnull=True, withdrawn=False).order_by(
        "-created"
    )
    roles = (
        ClubRole.objects.filter(club=club)
        .select_related("member__user")
        .prefetch_related(Prefetch("member__invitations", queryset=open_invitations))
        .order_by("-home", "-registered", "member__name")
    )
    rows = []
    for role in roles:
        member = role.member
        pending = [inv for inv in member.invitations.all() if invitation_usable(inv)]
        # The address of an invitation another club (or staff) sent is theirs to know, not this
        # club's (issue 32 item 10: the page showed it).
        invited = ""
        if pending and not member.user:
            invited = pending[0].email if pending[0].club_id == club.pk else "by another club"
        rows.append(
            MemberLoginRow(
                name=member.name,
                number=member.national_number,
                role=role.get_role_display(),
                username=member.user.get_username() if member.user else "",
                invited_to=invited,
                invited_on=pending[0].created if pending and not member.user else None,
                register="home club" if role.home else "on the register" if role.registered else "",
            )
        )
    return rows


def sign_ups_waiting(*, club: Club) -> list[SignUpRequest]:
    """Sign-ups waiting for this club's answer: those of members whose home club it is
    (S14.25: only the home club approves)."""
    return list(
        SignUpRequest.objects.filter(
            status=SignUpRequest.Status.WAITING, club=club, member__user__isnull=True
        )
        .select_related("member")
        .order_by("created")
    )


def sign_ups_waiting_count(*, club: Club) -> int:
    return SignUpRequest.objects.filter(
        status=SignUpRequest.Status.WAITING, club=club, member__user__isnull=True
    ).count()


def sign_up_for_club(*, club: Club, pk: int) -> SignUpRequest | None:
    return SignUpRequest.objects.filter(pk=pk, club=club).select_related("member").first()


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def invitation_usable(invitation: Invitation) -> bool:
    return (
        invitation.accepted is None
        and not invitation.withdrawn
        and invitation.expires > timezone.now()
    )
