import re

import pytest
from django.core import mail

from grading.common.auth import reset_mail_wait
from tests.factories import ClubRoleFactory, MemberFactory, UserFactory


@pytest.fixture
def club_with_admin(db):
    """A club, its administrator (with a login) and a member without one."""
    admin_user = UserFactory(username="scorer")
    admin_role = ClubRoleFactory(member=MemberFactory(user=admin_user), role="admin")
    member = MemberFactory(national_number="700001", name="Maud Player")
    ClubRoleFactory(club=admin_role.club, member=member)
    return admin_role.club, admin_user, member


def link_in(message) -> str:
    """The one link to follow an email carries (beside the site's address), from its plain
    text; the HTML part carries the same link."""
    links = re.findall(r"https?://\S+/accounts/\S+", message.body)
    assert len(set(links)) == 1, message.body
    html = message.alternatives[0][0] if hasattr(message, "alternatives") else ""
    assert links[0] in html and "<html" in html
    return links[0]


def last_email():
    reset_mail_wait()  # a password reset's email is sent off the request
    assert mail.outbox, "no email was sent"
    return mail.outbox[-1]
