"""Writes to clubs."""

from django.utils.text import slugify

from clubs.models import Club, ClubRole
from members.models import Member


def club_get_or_create(*, name: str, slug: str = "", national_number: str = "") -> Club:
    club, _ = Club.objects.get_or_create(
        slug=slug or slugify(name)[:80],
        defaults={"name": name, "national_number": national_number},
    )
    return club


def club_role_set(*, club: Club, member: Member, role: str = ClubRole.Role.MEMBER) -> ClubRole:
    """Make ``member`` a member (or an administrator) of ``club``; never demotes an admin."""
    club_role, created = ClubRole.objects.get_or_create(
        club=club, member=member, defaults={"role": role}
    )
    if not created and role == ClubRole.Role.ADMIN and club_role.role != role:
        club_role.role = role
        club_role.save(update_fields=["role"])
    return club_role
