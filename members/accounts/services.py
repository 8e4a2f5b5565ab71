"""Writes of the accounts flows. The only code that links a login to a membership record
(``invitation_accept``); every link, approval and decline goes to the audit log.

Who may call what is the views' business (a club's administrators and staff invite and decide
for the club's members, S13); these functions check what the data must satisfy.
"""

from __future__ import annotations

import datetime as dt
import secrets
from dataclasses import dataclass, field

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from clubs.models import Club, ClubRole
from clubs.selectors.home import login_tie_allowed, member_home_club, member_home_club_id
from clubs.services import club_admin_grant
from grading.common.audit import audit_record
from grading.common.queue import task_queue
from grading.common.stale import member_pages_invalidate
from grading.engine.types import normalise_number
from grading.models import AuditEvent
from members.accounts.emails import email_send
from members.accounts.invitelist import invite_list_parse
from members.accounts.selectors import invitation_usable, token_digest
from members.models import Invitation, Member, SignUpRequest


class AccountRefused(ValueError):
    """A request the data does not allow; the message says why, in the member's words."""


LOGIN_TIE_REFUSED = (
    "Only {name}'s home club can invite them to an address of its choosing. Invite them at "
    "the email address the union's member register holds for them, or ask their home club."
)
SIGN_UP_NOT_HOME = (
    "Only {name}'s home club can approve this request: this club is not their home club."
)


def _has_login(member: Member) -> bool:
    return member.user_id is not None


@transaction.atomic
def invitation_create(
    *,
    member: Member,
    email: str,
    site_url: str,
    club: Club | None = None,
    invited_by=None,
    template: str = "invitation",
    link_view: str = "accounts:invitation",
) -> Invitation:
    """Invite ``member`` to choose a login, by a link sent to ``email`` once the transaction
    commits. An earlier invitation still open for the member stops working. Only to the
    register's email for them, or from their home club or staff (S14.25)."""
    member = Member.objects.select_for_update().get(pk=member.pk)
    if _has_login(member):
        raise AccountRefused(f"{member.name} ({member.national_number}) already has a login.")
    if not login_tie_allowed(member=member, email=email, club=club, invited_by=invited_by):
        raise AccountRefused(LOGIN_TIE_REFUSED.format(name=member.name))
    # An administrator's invitation to another club stays open (S15: it is accepted signed in)
    Invitation.objects.filter(
        member=member, accepted__isnull=True, withdrawn=False, role=""
    ).update(withdrawn=True)
    token = secrets.token_urlsafe(32)
    invitation = Invitation.objects.create(
        member=member,
        email=email.strip(),
        token_digest=token_digest(token),
        club=club,
        invited_by=invited_by,
        expires=timezone.now() + dt.timedelta(days=settings.INVITATION_DAYS),
    )
    context = {
        "member": member,
        "club": club,
        "link": site_url.rstrip("/") + reverse(link_view, args=[token]),
        "days": settings.INVITATION_DAYS,
        "site_url": site_url.rstrip("/"),
    }
    transaction.on_commit(
        lambda: email_send(to=invitation.email, template=template, context=context)
    )
    return invitation


@dataclass
class InviteListResult:
    invited: list[Invitation] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # members who already have a login
    problems: list[str] = field(default_factory=list)  # nothing was sent when there are any


@transaction.atomic
def invitations_create_from_list(
    *, club: Club, text: str, site_url: str, invited_by=None
) -> InviteListResult:
    """Invite every member on a ``number,email`` list, all or nothing: a line that is not
    readable, or names someone who is not a member of the club, stops the whole list."""
    rows, problems = invite_list_parse(text)
    members = {
        role.member.national_number: role.member
        for role in ClubRole.objects.filter(
            club=club, member__national_number__in=[row.number for row in rows]
        ).select_related("member")
    }
    for row in rows:
        if row.number not in members:
            problems.append(
                f"Line {row.line}: membership number {row.number} is not a member of {club.name}."
            )
        elif not login_tie_allowed(
            member=members[row.number], email=row.email, club=club, invited_by=invited_by
        ):
            problems.append(
                f"Line {row.line}: {club.name} is not the home club of {row.number}: invite "
                "them only at the email address the union's member register holds for them."
            )
    result = InviteListResult(problems=sorted(problems, key=_line_order))
    if result.problems:
        return result
    for row in rows:
        member = members[row.number]
        if _has_login(member):
            result.skipped.append(f"{member.name} ({member.national_number})")
            continue
        result.invited.append(
            invitation_create(
                member=member, email=row.email, site_url=site_url, club=club, invited_by=invited_by
            )
        )
    return result


def _line_order(problem: str) -> int:
    words = problem.split(":", 1)[0].split()
    return int(words[1]) if len(words) == 2 and words[1].isdigit() else 0


@transaction.atomic
def invitation_accept(*, invitation: Invitation, username: str, password: str, email: str = ""):
    """The invitation's holder chooses a login: the login is created and linked to the member,
    and the link is written to the audit log. Returns the new user."""
    invitation = (
        Invitation.objects.select_for_update().select_related("member").get(pk=invitation.pk)
    )
    member = Member.objects.select_for_update().get(pk=invitation.member_id)
    if not invitation_usable(invitation) or _has_login(member):
        raise AccountRefused(
            "This invitation has already been used or has expired. Ask your club's "
            "administrator for a new one."
        )
    user_model = get_user_model()
    if user_model.objects.filter(username__iexact=username).exists():
        raise AccountRefused(f"The username {username!r} is taken; choose another.")
    user = user_model.objects.create_user(
        username=username, email=email or invitation.email, password=password
    )
    member.user = user
    member.save(update_fields=["user"])
    now = timezone.now()
    invitation.accepted = now
    invitation.save(update_fields=["accepted"])
    Invitation.objects.filter(member=member, accepted__isnull=True, role="").update(withdrawn=True)
    SignUpRequest.objects.filter(member=member, status=SignUpRequest.Status.WAITING).update(
        status=SignUpRequest.Status.DECLINED, decided_at=now
    )
    member_pages_invalidate(member_ids=[member.pk])
    if invitation.role == "admin" and invitation.club is not None:
        club_admin_grant(club=invitation.club, member=member, actor=user, how="invitation accepted")
    audit_record(
        action=AuditEvent.Action.LOGIN_LINK,
        subject=str(member),
        actor=user,
        club=invitation.club,
        username=user.get_username(),
        invited_by=invitation.invited_by.get_username() if invitation.invited_by else "",
        email=user.email,
        how="invitation accepted",
        invitation=invitation.pk,
    )
    return user


@transaction.atomic
def sign_up_request_create(*, number: str, name: str, email: str) -> SignUpRequest:
    """Ask for a login to the member with this number. Nothing is linked: an administrator of
    one of the member's clubs approves (an invitation goes to ``email``) or declines."""
    normalised = normalise_number(number)
    member = Member.objects.filter(national_number=normalised or "").first()
    if member is None:
        raise AccountRefused(
            f"We have no member with the number {number.strip()[:20]!r}. Check the number on "
            "your membership card, or ask your club to upload a session you played in first."
        )
    if _has_login(member):
        raise AccountRefused(
            "This membership number already has a login. If it is yours, use “Forgotten your "
            "password?” on the login page."
        )
    if not ClubRole.objects.filter(member=member).exists():
        raise AccountRefused(
            "No club has this membership number on its list yet, so there is no one to confirm "
            "it is you. Ask your club's administrator to invite you."
        )
    existing = SignUpRequest.objects.filter(
        member=member, email__iexact=email.strip(), status=SignUpRequest.Status.WAITING
    ).first()
    if existing:
        return existing
    sign_up = SignUpRequest.objects.create(
        member=member,
        name=name.strip(),
        email=email.strip(),
        club=member_home_club(member_id=member.pk),
    )
    task_queue("grading.sign_up_notify", sign_up.pk)  # S15: each administrator gets an email
    return sign_up


@transaction.atomic
def sign_up_decide(
    *, sign_up: SignUpRequest, approve: bool, decided_by, club: Club, site_url: str
) -> SignUpRequest:
    """An administrator's answer. Approving sends the invitation to the address the person
    gave; the login is linked when they follow it."""
    sign_up = SignUpRequest.objects.select_for_update().select_related("member").get(pk=sign_up.pk)
    if sign_up.status != SignUpRequest.Status.WAITING:
        raise AccountRefused("This request has already been answered.")
    if approve and not (
        getattr(decided_by, "is_staff", False)
        or member_home_club_id(member_id=sign_up.member_id) == club.pk
    ):
        raise AccountRefused(SIGN_UP_NOT_HOME.format(name=sign_up.member.name))
    if approve:
        invitation_create(
            member=sign_up.member,
            email=sign_up.email,
            site_url=site_url,
            club=club,
            invited_by=decided_by,
            template="sign_up_approved",
        )
    sign_up.status = SignUpRequest.Status.APPROVED if approve else SignUpRequest.Status.DECLINED
    sign_up.decided_by = decided_by
    sign_up.decided_at = timezone.now()
    sign_up.save(update_fields=["status", "decided_by", "decided_at"])
    audit_record(
        action=AuditEvent.Action.LOGIN_LINK,
        subject=str(sign_up.member),
        actor=decided_by,
        club=club,
        how="sign-up approved" if approve else "sign-up declined",
        email=sign_up.email,
        name_given=sign_up.name,
    )
    return sign_up


@transaction.atomic
def member_login_link(*, member: Member, user, actor=None, how: str) -> Member:
    """Link an existing login to a member outside the email flows (the demo data only), with
    the same audit record."""
    member = Member.objects.select_for_update().get(pk=member.pk)
    if member.user_id == user.pk:
        return member
    member.user = user
    member.save(update_fields=["user"])
    member_pages_invalidate(member_ids=[member.pk])
    audit_record(
        action=AuditEvent.Action.LOGIN_LINK,
        subject=str(member),
        actor=actor,
        username=user.get_username(),
        how=how,
    )
    return member
