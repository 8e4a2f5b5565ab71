from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from clubs.selectors import clubs_of_user, clubs_with_admin_role
from members.selectors import member_for_user


def home(request):
    return render(request, "grading/home.html")


@login_required
def dashboard(request):
    """Where a login lands: the member's summary, their clubs, and the staff entry points."""
    user = request.user
    return render(
        request,
        "grading/dashboard.html",
        {
            "member": member_for_user(user=user),
            "clubs": clubs_of_user(user=user),
            "admin_clubs": clubs_with_admin_role(user=user),
        },
    )
