"""A member's home club, and who may tie a login to a member (S14.25, S15).

A results file makes no one a member of a club: the union's register does. The home club is the
register's first club for the member; for a member the register does not list, the club in whose
sessions (in force: live or waiting to be graded) they played most (ties: the club played at
first); for one who never played, the club whose list they were put on first (docs/decisions.md).
"""

from __future__ import annotations

from django.db.models import Count, F, Min, Q

from clubs.models import Club, ClubRole
from grading.models import PairResult, SessionVersion
from members.models import Member


def in_force_results(member_id: int):
    """The member's pair rows in versions in force (a live version, or one waiting)."""
    return PairResult.objects.filter(Q(player1_id=member_id) | Q(player2_id=member_id)).filter(
        Q(version__session__live_version_id=F("version_id"))
        | Q(version__state=SessionVersion.State.STORED)
    )


def member_home_club_id(*, member_id: int) -> int | None:
    home = (
        ClubRole.objects.filter(member_id=member_id, home=True)
        .values_list("club_id", flat=True)
        .first()
    )
    if home is not None:
        return home
    if Member.objects.filter(pk=member_id).exclude(register_clubs="").exists():
        return None  # the register's home club is not registered yet: no club answers
    played = (
        in_force_results(member_id)
        .values("version__session__event__club_id")
        .annotate(n=Count("pk"), first=Min("version_id"))
        .order_by("-n", "first")
        .first()
    )
    if played is not None:
        return played["version__session__event__club_id"]
    return (
        ClubRole.objects.filter(member_id=member_id)
        .order_by("pk")
        .values_list("club_id", flat=True)
        .first()
    )


def member_home_club(*, member_id: int) -> Club | None:
    pk = member_home_club_id(member_id=member_id)
    return Club.objects.filter(pk=pk).first() if pk is not None else None


def login_tie_allowed(*, member, email: str, club: Club | None, invited_by) -> bool:
    """May an invitation to ``email`` for ``member`` be sent (S14.25)? To the email the
    register holds for them, by anyone who may invite; to any other address only from an
    administrator of their home club (the views check the sender administers ``club``) or
    staff. Without a sender (an operator at the shell) it is allowed."""
    if invited_by is None or getattr(invited_by, "is_staff", False):
        return True
    if member.register_email and member.register_email.strip().lower() == email.strip().lower():
        return True
    return club is not None and member_home_club_id(member_id=member.pk) == club.pk
