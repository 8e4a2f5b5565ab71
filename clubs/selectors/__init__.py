"""Reads about clubs, by topic: ``access`` (who may administer a club, S13), ``grades`` (the
grade list), ``bands`` (band distribution), ``sessions`` (sessions, SoF, one session's page),
``planning`` (planned sessions and host requests), ``search`` (the handicap form's
autocomplete). Privacy (S7) is decided in ``grading.privacy`` and applied in each.

The access reads are re-exported here: other apps (members, grading) ask them by this name.
"""

from clubs.selectors.access import (
    admin_clubs,
    club_members,
    clubs_administered_by,
    clubs_of_user,
    clubs_with_admin_role,
    user_can_administer,
)

__all__ = [
    "admin_clubs",
    "club_members",
    "clubs_administered_by",
    "clubs_of_user",
    "clubs_with_admin_role",
    "user_can_administer",
]
