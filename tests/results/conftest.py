import datetime as dt

import pytest

from tests.results.smtp import mailbox, no_mail_server  # noqa: F401  (fixtures)
from tests.results.world import numbers, session_file, upload_session

PLAYED = dt.date(2026, 11, 17)


@pytest.fixture
def club(club_admin):
    return club_admin[2]


@pytest.fixture
def howell(club, django_capture_on_commit_callbacks):
    """A graded 7-pair Howell with travellers (players 5001-5014) at the admin's club."""
    data = session_file(players=numbers(7), date=PLAYED)
    return upload_session(club, django_capture_on_commit_callbacks, data)
