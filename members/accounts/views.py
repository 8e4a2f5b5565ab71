"""A member's side of the accounts flows: asking for a login (sign-up) and choosing one from an
invitation. Thin: forms check the input, ``members.accounts.services`` writes."""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from grading.common.auth import client_address, login_failure_record, login_locked
from members.accounts.forms import ChooseLoginForm, SignUpForm
from members.accounts.selectors import invitation_by_token
from members.accounts.services import AccountRefused, invitation_accept, sign_up_request_create
from members.accounts.tokens import api_token_create, api_token_of, api_token_revoke

log = logging.getLogger(__name__)

SIGN_UP_LOCKED = (
    "Too many requests from this connection. Please wait 15 minutes, or ask your club's "
    "administrator to invite you."
)


@require_http_methods(["GET", "POST"])
def sign_up(request):
    form = SignUpForm(request.POST or None)
    address = client_address(request)
    if request.method == "POST" and login_locked(username="", address=address, kind="sign-up"):
        form.is_valid()
        form.add_error(None, SIGN_UP_LOCKED)
    elif request.method == "POST" and form.is_valid():
        # Each request counts, so one address cannot fill the clubs' lists with requests.
        login_failure_record(username="", address=address, kind="sign-up")
        try:
            sign_up_request_create(
                number=form.cleaned_data["number"],
                name=form.cleaned_data["name"],
                email=form.cleaned_data["email"],
            )
        except AccountRefused as refusal:
            # The same answer whatever the reason (issue 32 item 10: "no such member",
            # "already has a login" and "no club" told anyone which numbers exist, have a
            # login or belong to a club). The reason is logged for support.
            log.info("Sign-up not sent to a club: %s", refusal)
        return redirect("accounts:sign-up-sent")
    return render(request, "accounts/sign_up.html", {"form": form})


def sign_up_sent(request):
    return render(request, "accounts/sign_up_sent.html", {"days": settings.INVITATION_DAYS})


@require_http_methods(["GET", "POST"])
def invitation(request, token: str):
    found = invitation_by_token(token=token)
    if found is None:
        return render(request, "accounts/invitation_unusable.html", status=410)
    form = ChooseLoginForm(
        request.POST or None,
        email=found.email,
        initial={"username": found.member.national_number},
    )
    if request.method == "POST" and form.is_valid():
        try:
            user = invitation_accept(
                invitation=found,
                username=form.cleaned_data["username"],
                password=form.cleaned_data["password1"],
            )
        except AccountRefused as refusal:
            form.add_error(None, str(refusal))
        else:
            login(request, user, backend="members.auth.MemberBackend")
            messages.success(
                request, f"Welcome, {found.member.name}. Your login is ready; this is your grade."
            )
            return redirect("members:card")
    return render(request, "accounts/invitation.html", {"form": form, "invitation": found})


@login_required
@require_http_methods(["GET", "POST"])
def api_token(request):
    """The member's own API token (S14.25): made here by its owner only, shown once, revoked
    here. Staff revoke tokens in the admin but cannot make one for anyone."""
    new_key = None
    if request.method == "POST":
        if request.POST.get("action") == "revoke":
            if api_token_revoke(owner=request.user, actor=request.user):
                messages.success(request, "Your API token is revoked: it no longer works.")
            return redirect("accounts:api-token")
        new_key = api_token_create(user=request.user)
    return render(
        request,
        "accounts/api_token.html",
        {"token": api_token_of(user=request.user), "new_key": new_key},
    )
