"""The site's own pages: home, the dashboard a login lands on, and the 404 handler."""

from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import render
from django.views.defaults import page_not_found

from clubs.selectors import clubs_of_user, clubs_with_admin_role
from members.selectors.base import member_for_user
from members.selectors.card import grade_card


def home(request):
    return render(request, "grading/home.html")


@login_required
def dashboard(request):
    """Where a login lands: the member's summary, their clubs, and the staff entry points."""
    user = request.user
    member = member_for_user(user=user)
    return render(
        request,
        "grading/dashboard.html",
        {
            "member": member,
            "card": grade_card(member=member) if member else None,
            "clubs": clubs_of_user(user=user),
            "admin_clubs": clubs_with_admin_role(user=user),
        },
    )


def not_found(request, exception=None):
    """An address that matches nothing (``handler404``): JSON under /api/, the schema's 404
    body, else Django's page."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Not found."}, status=404)
    return page_not_found(request, exception)
