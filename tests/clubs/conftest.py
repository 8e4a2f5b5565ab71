import pytest

from tests.clubs.data import upload_all


@pytest.fixture
def club(club_admin):
    return club_admin[2]


@pytest.fixture
def admin_client(client, club_admin):
    client.force_login(club_admin[0])
    return client


@pytest.fixture
def graded(club, django_capture_on_commit_callbacks):
    """The club with 13 weekly Monday sessions, a two-winner Thursday and an ungraded Friday;
    member 1003 has made their grade private, 1017 and 1018 are provisional."""
    from members.models import Member

    upload_all(club, django_capture_on_commit_callbacks)
    Member.objects.filter(national_number="1003").update(grade_private=True)
    return club
