import os
from pathlib import Path

import pytest
from django.db import connection

from tests.factories import ClubFactory, ClubRoleFactory, MemberFactory, UserFactory

ARTIFACTS = Path(__file__).parent / "artifacts"
REQUIRE_SERVICES = os.environ.get("REQUIRE_SERVICES", "") == "1"


def skip_or_fail(reason: str):
    """A missing service skips the test, or fails it when CI requires the services."""
    if REQUIRE_SERVICES:
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture
def postgres(db):
    if connection.vendor != "postgresql":
        skip_or_fail("this test needs PostgreSQL (set DATABASE_URL or start the local server)")
    return connection


@pytest.fixture
def member_user(db):
    """A member with a login, in one club, and no administrator role."""
    user = UserFactory()
    member = MemberFactory(user=user)
    role = ClubRoleFactory(member=member)
    return user, member, role.club


@pytest.fixture
def club_admin(db):
    user = UserFactory()
    member = MemberFactory(user=user)
    role = ClubRoleFactory(member=member, role="admin")
    return user, member, role.club


@pytest.fixture
def other_club(db):
    return ClubFactory()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
