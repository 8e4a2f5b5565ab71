"""The union's side of the accounts flows (S15): staff appoint a club's administrator by an
invitation (the same tokens and link as a member's), administrators hear of each sign-up by
email, and a club invites every member the register gives an email, from a task.

An administrator's invitation to a member without a login is a member's invitation with
``role="admin"``: following the link chooses the login (``invitation_accept``) and grants the
role. A member who already has a login follows the link signed in and accepts the role here.
"""

from __future__ import annotations

import datetime as dt
import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.urls import reverse
from django.utils import timezone

from clubs.models import Club, ClubRole
from clubs.services import club_admin_grant
from grading.common.audit import audit_record
from grading.engine.types import normalise_number
from grading.models import AuditEvent
from members.accounts.emails import email_send
from members.accounts.selectors import invitation_usable, token_digest
from members.accounts.services import AccountRefused, invitation_create
from members.models import Invitation, Member, SignUpRequest


def member_by_number(number: str) -> Member | None:
    """The member a number names; a number merged into another finds the survivor (S15)."""
    normalised = normalise_number(number or "")
    member = Member.objects.filter(national_number=normalised or "").first()
    seen = set()
    while member is not None and member.merged_into_id and member.pk not in seen:
        seen.add(member.pk)
        member = Member.objects.get(pk=member.merged_into_id)
    return member


@transaction.atomic
def admin_invitation_create(
    *, club: Club, number: str, email: str, site_url: str, invited_by, name: str = ""
) -> Invitation:
    """Staff appoint an administrator of ``club`` by membership number and email (S15): an
    invitation to become administrator goes to ``email``; the role is granted when its link is
    followed. A number the product does not know needs the person's name."""
    normalised = normalise_number(number or "")
    if normalised is None:
        raise AccountRefused(f"{(number or '').strip()[:20]!r} is not a membership number.")
    member = member_by_number(normalised)
    if member is None:
        if not name.strip():
            raise AccountRefused(
                f"No member has the number {normalised} yet: give the person's name as well "
                "(or load the member register first)."
            )
        member = Member.objects.create(national_number=normalised, name=name.strip()[:200])
    if ClubRole.objects.filter(club=club, member=member, role=ClubRole.Role.ADMIN).exists():
        raise AccountRefused(f"{member.name} is already an administrator of {club.name}.")
    member = Member.objects.select_for_update().get(pk=member.pk)
    Invitation.objects.filter(
        member=member, club=club, role="admin", accepted__isnull=True, withdrawn=False
    ).update(withdrawn=True)
    if member.user_id is None:
        invitation = invitation_create(
            member=member,
            email=email,
            site_url=site_url,
            club=club,
            invited_by=invited_by,
            template="admin_invitation",
            # one link whether or not they have chosen a login by the time they follow it
            link_view="accounts:administrator",
        )
        invitation.role = "admin"
        invitation.save(update_fields=["role"])
    else:
        token = secrets.token_urlsafe(32)
        invitation = Invitation.objects.create(
            member=member,
            email=email.strip(),
            token_digest=token_digest(token),
            club=club,
            invited_by=invited_by,
            role="admin",
            expires=timezone.now() + dt.timedelta(days=settings.INVITATION_DAYS),
        )
        context = {
            "member": member,
            "club": club,
            "has_login": True,
            "link": site_url.rstrip("/") + reverse("accounts:administrator", args=[token]),
            "days": settings.INVITATION_DAYS,
            "site_url": site_url.rstrip("/"),
        }
        transaction.on_commit(
            lambda: email_send(to=invitation.email, template="admin_invitation", context=context)
        )
    audit_record(
        action=AuditEvent.Action.CLUB_ADMIN,
        subject=f"{member} invited to administer {club.name}",
        actor=invited_by,
        club=club,
        number=member.national_number,
        email=email.strip(),
        invitation=invitation.pk,
        how="invited by staff",
    )
    return invitation


def admin_invitation_by_token(*, token: str) -> Invitation | None:
    """The usable administrator's invitation for a member who has a login."""
    invitation = (
        Invitation.objects.select_related("member", "club")
        .filter(token_digest=token_digest(token), role="admin")
        .first()
    )
    if invitation is None or not invitation_usable(invitation) or invitation.club is None:
        return None
    return invitation


@transaction.atomic
def admin_invitation_accept(*, invitation: Invitation, user) -> ClubRole:
    """The invited member, signed in with their own login, accepts the role."""
    invitation = (
        Invitation.objects.select_for_update(of=("self",))
        .select_related("member", "club")
        .get(pk=invitation.pk)
    )
    if not invitation_usable(invitation):
        raise AccountRefused("This invitation has already been used or has expired.")
    if invitation.member.user_id != user.pk:
        raise AccountRefused(
            "This invitation is for another member: log in with the login of "
            f"{invitation.member.name} ({invitation.member.national_number})."
        )
    invitation.accepted = timezone.now()
    invitation.save(update_fields=["accepted"])
    return club_admin_grant(
        club=invitation.club, member=invitation.member, actor=user, how="invitation accepted"
    )


def sign_up_notify(*, sign_up_id: int, site_url: str = "") -> int:
    """Email each administrator of the sign-up's club that a request waits (S15). Returns the
    emails sent. A request already decided, or for a club without administrators (it is on
    the staff page), sends nothing."""
    sign_up = SignUpRequest.objects.select_related("member", "club").filter(pk=sign_up_id).first()
    if sign_up is None or sign_up.club is None or sign_up.status != SignUpRequest.Status.WAITING:
        return 0
    site_url = (site_url or settings.SITE_URL).rstrip("/")
    link = site_url + reverse("club_members:members", args=[sign_up.club.slug])
    sent = 0
    admins = ClubRole.objects.filter(
        club=sign_up.club, role=ClubRole.Role.ADMIN, member__user__isnull=False
    ).select_related("member__user")
    for role in admins:
        address = role.member.user.email or role.member.register_email
        if not address:
            continue
        email_send(
            to=address,
            template="sign_up_waiting",
            context={"sign_up": sign_up, "club": sign_up.club, "link": link, "site_url": site_url},
        )
        sent += 1
    return sent


def register_invitable(*, club: Club):
    """The club's register members with an email, no login, and no invitation open (S15)."""
    open_invitation = Invitation.objects.filter(
        member=OuterRef("member"),
        accepted__isnull=True,
        withdrawn=False,
        expires__gt=timezone.now(),
    )
    return (
        ClubRole.objects.filter(
            club=club,
            registered=True,
            member__user__isnull=True,
            member__merged_into__isnull=True,
            member__register_status="active",
        )
        .exclude(member__register_email="")
        .exclude(Exists(open_invitation))
        .select_related("member")
    )


def register_invitations_send(*, club_id: int, user_id: int | None, site_url: str) -> int:
    """Invite each member ``register_invitable`` gives, at the register's email, one
    transaction each (a task: the emails go out from the worker). Idempotent: a member
    invited once has an invitation open and is skipped. Returns the invitations sent."""
    club = Club.objects.filter(pk=club_id).first()
    if club is None:
        return 0
    user = get_user_model().objects.filter(pk=user_id).first() if user_id else None
    sent = 0
    for role in register_invitable(club=club).order_by("member__name"):
        try:
            invitation_create(
                member=role.member,
                email=role.member.register_email,
                site_url=site_url,
                club=club,
                invited_by=user,
            )
        except AccountRefused:
            continue  # a login made meanwhile
        sent += 1
    return sent
