import os
from pathlib import Path

import pytest

# Django-dependent imports stay inside the fixtures, so the pure engine and parser tests can
# also run without Django (pytest -p no:django tests/engine).

ARTIFACTS = Path(__file__).parent / "artifacts"
REQUIRE_SERVICES = os.environ.get("REQUIRE_SERVICES", "") == "1"


def skip_or_fail(reason: str):
    """A missing service skips the test, or fails it when CI requires the services."""
    if REQUIRE_SERVICES:
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture
def postgres(db):
    from django.db import connection

    if connection.vendor != "postgresql":
        skip_or_fail("this test needs PostgreSQL (set DATABASE_URL or start the local server)")
    return connection


@pytest.fixture
def member_user(db):
    """A member with a login, in one club, and no administrator role."""
    from tests.factories import ClubRoleFactory, MemberFactory, UserFactory

    user = UserFactory()
    member = MemberFactory(user=user)
    role = ClubRoleFactory(member=member)
    return user, member, role.club


@pytest.fixture
def club_admin(db):
    from tests.factories import ClubRoleFactory, MemberFactory, UserFactory

    user = UserFactory()
    member = MemberFactory(user=user)
    role = ClubRoleFactory(member=member, role="admin")
    return user, member, role.club


@pytest.fixture
def other_club(db):
    from tests.factories import ClubFactory

    return ClubFactory()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
