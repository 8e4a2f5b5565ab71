"""A club's "Members" page (issue 19 item 1): who has a login, invitations by email (one, or a
list of number,email), and the sign-ups waiting for the club's answer. Club administrators and
staff only (S13); writes through ``members.accounts.services``."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect
from django.views.decorators.http import require_http_methods, require_POST

from clubs.models import Club, ClubRole
from clubs.pages import club_page, club_render
from grading.common.queue import task_queue
from members.accounts.forms import InviteForm, InviteListForm
from members.accounts.selectors import club_login_rows, sign_up_for_club, sign_ups_waiting
from members.accounts.services import (
    AccountRefused,
    invitation_create,
    invitations_create_from_list,
    sign_up_decide,
)
from members.accounts.union import register_invitable


def _site_url(request) -> str:
    return request.build_absolute_uri("/")


def _render(request, club, *, invite_form=None, list_form=None, list_problems=()):
    rows = club_login_rows(club=club)
    return club_render(
        request,
        club,
        "clubs/members.html",
        {
            "rows": rows,
            "with_login": sum(1 for row in rows if row.username),
            "sign_ups": sign_ups_waiting(club=club),
            "invite_form": invite_form or InviteForm(),
            "list_form": list_form or InviteListForm(),
            "list_problems": list_problems,
            "register_invitable": register_invitable(club=club).count(),
        },
        tab="members",
    )


@login_required
@require_http_methods(["GET"])
@club_page
def club_members_page(request, club: Club):
    return _render(request, club)


@login_required
@require_POST
@club_page
def club_member_invite(request, club: Club):
    form = InviteForm(request.POST)
    if form.is_valid():
        role = (
            ClubRole.objects.filter(club=club, member__national_number=form.cleaned_data["number"])
            .select_related("member")
            .first()
        )
        if role is None:
            form.add_error("number", f"No member of {club.name} has this membership number.")
        else:
            try:
                invitation_create(
                    member=role.member,
                    email=form.cleaned_data["email"],
                    site_url=_site_url(request),
                    club=club,
                    invited_by=request.user,
                )
            except AccountRefused as refusal:
                form.add_error(None, str(refusal))
            else:
                messages.success(
                    request,
                    f"Invitation sent to {form.cleaned_data['email']} for {role.member.name}.",
                )
                return redirect("club_members:members", club.slug)
    return _render(request, club, invite_form=form)


@login_required
@require_POST
@club_page
def club_member_invite_list(request, club: Club):
    form = InviteListForm(request.POST, request.FILES)
    if not form.is_valid():
        return _render(request, club, list_form=form)
    result = invitations_create_from_list(
        club=club,
        text=form.cleaned_data["text"],
        site_url=_site_url(request),
        invited_by=request.user,
    )
    if result.problems:
        return _render(request, club, list_form=form, list_problems=result.problems)
    text = f"{len(result.invited)} invitation{'s' if len(result.invited) != 1 else ''} sent."
    if result.skipped:
        text += " Already with a login, so not invited: " + ", ".join(result.skipped) + "."
    messages.success(request, text)
    return redirect("club_members:members", club.slug)


@login_required
@require_POST
@club_page
def club_sign_up_decide(request, club: Club, pk: int):
    sign_up = sign_up_for_club(club=club, pk=pk)
    if sign_up is None:
        raise Http404("No such sign-up for this club.")
    decision = request.POST.get("decision")
    if decision not in ("approve", "decline"):
        messages.error(request, "Choose Approve or Decline.")
        return redirect("club_members:members", club.slug)
    approve = decision == "approve"
    try:
        sign_up_decide(
            sign_up=sign_up,
            approve=approve,
            decided_by=request.user,
            club=club,
            site_url=_site_url(request),
        )
    except AccountRefused as refusal:
        messages.error(request, str(refusal))
    else:
        if approve:
            messages.success(
                request,
                f"Approved: {sign_up.member.name} will receive a link at {sign_up.email} to "
                "choose a password.",
            )
        else:
            messages.success(request, f"Declined the request from {sign_up.email}.")
    return redirect("club_members:members", club.slug)


@login_required
@require_POST
@club_page
def club_register_invite(request, club: Club):
    """Invite every member of the club the register gives an email and no login, in one step
    (S15): the invitations are made and sent by a task, not this request."""
    count = register_invitable(club=club).count()
    if count:
        task_queue(
            "grading.register_invitations_send", club.pk, request.user.pk, _site_url(request)
        )
        messages.success(
            request,
            f"Invitations are being sent to {count} member{'s' if count != 1 else ''} at the "
            "addresses the register holds.",
        )
    else:
        messages.info(request, "No one to invite: every such member has a login or an invitation.")
    return redirect("club_members:members", club.slug)
