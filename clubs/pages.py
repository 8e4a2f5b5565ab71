"""What every club page shares (the club pages here, the union's staff club pages and the uploads
pages in the grading app): the club named in the address, if the user may see it there (S13),
handed to the view by ``club_page`` or ``staff_club_page`` in place of its slug; the render with
the club's tabs; and the upload tab's link."""

from collections.abc import Callable
from functools import wraps

from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, render
from django.urls import reverse

from clubs.models import Club
from clubs.selectors.access import admin_clubs, user_can_administer
from clubs.templatetags.club_signups import NOTICE_MARK, notice_html
from members.pageshell import kept_shell_render


def administered_club(request, slug: str) -> Club:
    """The club named in the URL, if the user may administer it (S13); 403 otherwise. One of
    the clubs the user administers is already read for the navigation (no query then)."""
    club = next((c for c in admin_clubs(user=request.user) if c.slug == slug), None)
    if club is not None:
        return club
    club = get_object_or_404(Club, slug=slug)
    if not user_can_administer(user=request.user, club=club):
        raise PermissionDenied("Only the club's administrators may open this page.")
    return club


def staff_club(request, slug: str) -> Club:
    """Any club named in the URL, for the union's staff (S13, S15); 403 for anyone else, 404
    for a club that does not exist. The staff pages' door (``staff_required``) answers first."""
    if not (request.user.is_authenticated and request.user.is_staff):
        raise PermissionDenied("This page is for the union's staff only.")
    return get_object_or_404(Club, slug=slug)


def _with_club(find: Callable[..., Club]):
    def decorate(view):
        @wraps(view)
        def wrapped(request, slug: str, *args, **kwargs):
            return view(request, find(request, slug), *args, **kwargs)

        return wrapped

    return decorate


# The role check every club page makes before it does anything (S13), in one place: the view
# is called with the club its address names in place of ``slug``. Put it next to the view
# (under the login and method checks, which answer first, as before).
club_page = _with_club(administered_club)  # the club's administrators and staff
staff_club_page = _with_club(staff_club)  # the union's staff, any club


def club_render(request, club: Club, template: str, context: dict, *, tab: str, status=200):
    """A page of the club's own pages (the tabs of templates/clubs/_base.html)."""
    return render(
        request,
        template,
        {"club": club, "tab": tab, "uploads_path": uploads_path(club), **context},
        status=status,
    )


def club_kept_render(request, club: Club, template: str, content: str, *, tab: str):
    """``club_render`` of a page whose content is kept (``members.pagecache``): joined into
    the template's shell kept per process (``members.pageshell``) under what the club's header
    shows of it, with the sign-ups notice made for each request."""
    path = uploads_path(club)
    return kept_shell_render(
        request,
        template,
        {"club": club, "tab": tab, "uploads_path": path, "content": content},
        key=(club.pk, club.slug, club.name, club.national_number, tab, path),
        fills=((NOTICE_MARK, lambda: notice_html(club)),),
    )


def uploads_path(club: Club) -> str:
    """The upload page (in the grading app)."""
    return reverse("uploads", args=[club.slug])
