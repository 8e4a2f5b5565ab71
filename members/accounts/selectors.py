"""Reads of the accounts flows: an invitation by its link, a club's members with their logins,
and the sign-ups waiting for a club's answer."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

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
    """Each member of the club, whether they have a login, and any invitation still open.

    Two queries whatever the club's size (issue 27: a 16,000-member club's page spent a second
    building model instances and a prefetch of every member's invitations): the club's rows as
    plain values, and the open invitations of its members without a login, newest first."""
    roles = (
        ClubRole.objects.filter(club=club)
        .order_by("-home", "-registered", "member__name")
        .values_list(
            "role",
            "home",
            "registered",
            "member_id",
            "member__name",
            "member__national_number",
            "member__user__username",
        )
    )
    # The newest usable invitation of each member (``invitation_usable``, in SQL); a member with
    # a login shows none.
    pending: dict[int, tuple[str, object]] = {}
    for member_id, email, invited_by, created in (
        Invitation.objects.filter(
            accepted__isnull=True,
            withdrawn=False,
            expires__gt=timezone.now(),
            member__club_roles__club=club,
            member__user__isnull=True,
        )
        .order_by("member_id", "-created", "-pk")
        .values_list("member_id", "email", "club_id", "created")
    ):
        if member_id not in pending:
            # The address of an invitation another club (or staff) sent is theirs to know, not
            # this club's (issue 32 item 10: the page showed it).
            pending[member_id] = (email if invited_by == club.pk else "by another club", created)
    labels = dict(ClubRole.Role.choices)
    rows = []
    for role, home, registered, member_id, name, number, username in roles:
        invited_to, invited_on = pending.get(member_id, ("", None)) if not username else ("", None)
        rows.append(
            MemberLoginRow(
                name=name,
                number=number,
                role=labels.get(role, role),
                username=username or "",
                invited_to=invited_to,
                invited_on=invited_on,
                register="home club" if home else "on the register" if registered else "",
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
