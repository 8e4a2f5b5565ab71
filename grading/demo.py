"""Demo data for ``make run``: two clubs, about 60 members and three documented logins.

Idempotent: running it again changes nothing. Deterministic: the same names every time.
"""

import random

from django.contrib.auth import get_user_model
from django.db import transaction

from clubs.models import ClubRole
from clubs.services import club_get_or_create, club_role_set
from members.services import member_get_or_create, member_login_create

FIRST_NAMES = [
    "Alice", "Brian", "Carol", "David", "Eleanor", "Frank", "Grace", "Henry", "Irene", "James",
    "Kathleen", "Leonard", "Margaret", "Nigel", "Olive", "Peter", "Queenie", "Robert", "Sheila",
    "Trevor", "Ursula", "Victor", "Wendy", "Xavier", "Yvonne", "Zachary",
]
SURNAMES = [
    "Archer", "Baxter", "Chandler", "Dawson", "Ellis", "Fletcher", "Gibson", "Harper", "Ingram",
    "Jarvis", "Kendall", "Lawson", "Marsh", "Norris", "Oakley", "Palmer", "Quinn", "Rowe",
    "Sutton", "Thorne", "Underwood", "Vaughan", "Walsh", "Yates",
]
CLUBS = [
    ("Riverside Bridge Club", "riverside", "1101"),
    ("Hilltop Bridge Club", "hilltop", "1102"),
]
MEMBER_COUNT = 60
DEMO_LOGINS = {
    "demo-member": "demo-member",
    "demo-admin": "demo-admin",
    "demo-staff": "demo-staff",
}


def demo_people(count: int = MEMBER_COUNT) -> list[tuple[str, str]]:
    """(membership number, name) for the demo population, the same on every run."""
    rng = random.Random(2026)
    names: set[str] = set()
    people = []
    while len(people) < count:
        name = f"{rng.choice(FIRST_NAMES)} {rng.choice(SURNAMES)}"
        if name in names:
            continue
        names.add(name)
        people.append((str(100001 + len(people)), name))
    return people


@transaction.atomic
def demo_seed() -> dict:
    clubs = [club_get_or_create(name=n, slug=s, national_number=c) for n, s, c in CLUBS]
    members = [member_get_or_create(number=num, name=name)[0] for num, name in demo_people()]
    first, second = clubs
    # Members 0-39 belong to the first club, 30-59 to the second: ten play at both.
    for member in members[:40]:
        club_role_set(club=first, member=member)
    for member in members[30:]:
        club_role_set(club=second, member=member)

    demo_member, demo_admin = members[30], members[0]
    club_role_set(club=first, member=demo_member)
    club_role_set(club=second, member=demo_member)
    club_role_set(club=first, member=demo_admin, role=ClubRole.Role.ADMIN)
    _ensure_login(demo_member, "demo-member")
    _ensure_login(demo_admin, "demo-admin")
    _ensure_staff("demo-staff")
    return {"clubs": len(clubs), "members": len(members)}


def _ensure_login(member, username: str) -> None:
    user = get_user_model().objects.filter(username=username).first()
    if user is None or member.user_id != user.pk:
        member_login_create(member=member, username=username, password=DEMO_LOGINS[username])


def _ensure_staff(username: str) -> None:
    user_model = get_user_model()
    if not user_model.objects.filter(username=username, is_staff=True).exists():
        user, _ = user_model.objects.get_or_create(username=username)
        user.set_password(DEMO_LOGINS[username])
        user.is_staff = True
        user.is_superuser = True
        user.save()
