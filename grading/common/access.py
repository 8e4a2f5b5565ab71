"""The staff pages' door (S13): a visitor who is not signed in is sent to the product's login
page; a signed-in member or club administrator who is not staff gets the product's own "not
allowed" page (templates/403.html), never the database admin's login form."""

from __future__ import annotations

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied


def staff_required(view):
    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not request.user.is_staff:
            raise PermissionDenied("This page is for the union's staff only.")
        return view(request, *args, **kwargs)

    return wrapped
