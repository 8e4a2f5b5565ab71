"""Logging in with the email address as well as the username (issue 30 item 10), and the lock-out
message that sends a member to the password reset, not to an administrator with no reset button."""

import pytest
from django.contrib.auth import authenticate
from django.urls import reverse

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_the_email_address_logs_in_like_the_username(client):
    user = UserFactory(username="olive", email="Olive.Norris@example.org")
    assert authenticate(username="olive", password="pw-for-tests") == user
    assert authenticate(username="olive.norris@example.org", password="pw-for-tests") == user
    assert authenticate(username="olive.norris@example.org", password="wrong") is None
    response = client.post(
        reverse("login"), {"username": "Olive.Norris@example.org", "password": "pw-for-tests"}
    )
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(user.pk)


def test_an_address_shared_by_two_logins_names_neither():
    UserFactory(username="a", email="club@example.org")
    UserFactory(username="b", email="club@example.org")
    assert authenticate(username="club@example.org", password="pw-for-tests") is None
    assert authenticate(username="a", password="pw-for-tests") is not None


def test_an_inactive_login_is_not_reached_by_its_address():
    UserFactory(username="gone", email="gone@example.org", is_active=False)
    assert authenticate(username="gone@example.org", password="pw-for-tests") is None


def test_the_lock_out_sends_the_member_to_the_password_reset(client):
    UserFactory(username="olive", email="olive@example.org")
    for _ in range(6):
        response = client.post(reverse("login"), {"username": "olive", "password": "wrong"})
    html = response.content.decode()
    assert 'data-testid="locked"' in html
    assert "Forgotten your password?" in html and "administrator" not in html
    assert "Username or email address" in html
