"""A member's sessions by the club that sent them, and the report of one they did not play
(S14.25). Thin: the selector reads, the service writes."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from members.selectors.base import member_for_user
from members.selectors.reports import sessions_under_number
from members.services import ReportRefused, session_report_create


@login_required
def sessions_by_club(request):
    member = member_for_user(user=request.user)
    rows = sessions_under_number(member=member) if member else []
    return render(request, "members/sessions_by_club.html", {"member": member, "rows": rows})


@login_required
@require_POST
def session_report(request, version_id: int):
    member = member_for_user(user=request.user)
    if member is None:
        messages.error(request, "This login is not linked to a membership number.")
        return redirect("members:sessions-clubs")
    try:
        session_report_create(
            member=member, version_id=version_id, note=request.POST.get("note", "")[:500]
        )
    except ReportRefused as refused:
        messages.error(request, str(refused))
    else:
        messages.success(
            request,
            "Thank you: the union's staff will look into it. Until then the session stays "
            "as the club sent it.",
        )
    return redirect("members:sessions-clubs")
