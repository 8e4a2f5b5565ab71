"""Reads about members."""

from members.models import Member


def member_for_user(*, user) -> Member | None:
    if not user.is_authenticated:
        return None
    return Member.objects.filter(user=user).first()
