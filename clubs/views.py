from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, render

from clubs.models import Club
from clubs.selectors import club_members, user_can_administer


def administered_club(request, slug: str) -> Club:
    """The club named in the URL, if the user may administer it (S13); 403 otherwise."""
    club = get_object_or_404(Club, slug=slug)
    if not user_can_administer(user=request.user, club=club):
        raise PermissionDenied("Only the club's administrators may open this page.")
    return club


@login_required
def club_dashboard(request, slug: str):
    club = administered_club(request, slug)
    return render(
        request,
        "clubs/dashboard.html",
        {"club": club, "roles": club_members(club=club)},
    )
