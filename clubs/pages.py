"""What every club page shares (the club pages here and the uploads pages in the grading app):
the club named in the address, if the user may administer it (S13), and the upload tab's link."""

from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404
from django.urls import reverse

from clubs.models import Club
from clubs.selectors.access import admin_clubs, user_can_administer


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


def uploads_path(club: Club) -> str:
    """The upload page (in the grading app)."""
    return reverse("uploads", args=[club.slug])
