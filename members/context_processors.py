"""What the navigation bar needs: who is signed in and which clubs they administer."""

from clubs.selectors import clubs_with_admin_role
from members.selectors.base import member_for_user


def navigation(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    # Signed in through members.auth.MemberBackend, the user says whether there is any club.
    administers = getattr(user, "administers_a_club", True)
    return {
        "nav_member": member_for_user(user=user),
        "nav_admin_clubs": list(clubs_with_admin_role(user=user).only("name", "slug"))
        if administers
        else [],
    }
