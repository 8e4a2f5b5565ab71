"""The site's own pages: home, the dashboard a login lands on, and the error pages (403, 404,
500) in the site's look, under production settings too."""

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpResponseServerError, JsonResponse
from django.shortcuts import render
from django.template import loader
from django.views.defaults import page_not_found
from django.views.defaults import permission_denied as django_permission_denied

from clubs.selectors import clubs_of_user, clubs_with_admin_role
from grading.site.demo import DEMO_LOGIN_ROLES
from members.selectors.base import member_for_user
from members.selectors.card import grade_card


def home(request):
    """What the product is and where to go; on a development server, the demo logins."""
    return render(
        request,
        "grading/home.html",
        {"demo_logins": DEMO_LOGIN_ROLES if settings.DEBUG else ()},
    )


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


def _api(request) -> bool:
    return request.path.startswith("/api/")


def not_found(request, exception=None):
    """An address that matches nothing (``handler404``): JSON under /api/, the schema's 404
    body, else the site's page (templates/404.html)."""
    if _api(request):
        return JsonResponse({"detail": "Not found."}, status=404)
    return page_not_found(request, exception)


def permission_denied(request, exception=None):
    """``handler403``: JSON under /api/, else templates/403.html with the navigation."""
    if _api(request):
        return JsonResponse(
            {"detail": "You do not have permission to perform this action."}, status=403
        )
    return django_permission_denied(request, exception)


def server_error(request):
    """``handler500``. Rendered without the request's context: whatever failed (the database,
    a context processor) must not take the error page down with it."""
    if _api(request):
        return JsonResponse({"detail": "Server error."}, status=500)
    return HttpResponseServerError(loader.get_template("500.html").render({}))
