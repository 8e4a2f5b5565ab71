"""What the navigation bar needs: who is signed in and which clubs they administer."""

from clubs.selectors import admin_clubs
from members.selectors.base import member_for_user


def navigation(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"nav_member": member_for_user(user=user), "nav_admin_clubs": admin_clubs(user=user)}
