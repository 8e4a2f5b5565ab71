"""An administrator's invitation followed by a member who already has a login (S15): signed
in as that member, they accept the role. Without a login the member's own invitation page
serves it at the same address (choosing the login grants the role)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from members.accounts import views
from members.accounts.services import AccountRefused
from members.accounts.union import admin_invitation_accept, admin_invitation_by_token


@require_http_methods(["GET", "POST"])
def administrator(request, token: str):
    found = admin_invitation_by_token(token=token)
    if found is None:
        return render(request, "accounts/invitation_unusable.html", status=410)
    if found.member.user_id is None:  # no login yet: the member's invitation page, as is
        return views.invitation(request, token)
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    error = ""
    if request.method == "POST":
        try:
            admin_invitation_accept(invitation=found, user=request.user)
        except AccountRefused as refusal:
            error = str(refusal)
        else:
            messages.success(request, f"You are now an administrator of {found.club.name}.")
            return redirect("clubs:dashboard", found.club.slug)
    return render(request, "accounts/administrator.html", {"invitation": found, "error": error})
