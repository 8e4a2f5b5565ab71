"""Password reset by email (issue 19 item 1): Django's views in the site's words, the email in
plain text and HTML, and the login works with the new password."""

import pytest
from django.urls import reverse

from tests.accounts.conftest import last_email, link_in
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_reset_by_email(client):
    UserFactory(username="ned", email="ned@example.org")
    page = client.get(reverse("login")).content.decode()
    assert reverse("password_reset") in page
    response = client.post(reverse("password_reset"), {"email": "ned@example.org"}, follow=True)
    assert "Check your email" in response.content.decode()
    message = last_email()
    assert message.to == ["ned@example.org"] and "ned" in message.body
    confirm = client.get(link_in(message), follow=True)
    assert "Choose a new password" in confirm.content.decode()
    done = client.post(
        confirm.redirect_chain[-1][0],
        {"new_password1": "fresh-phrase-42z", "new_password2": "fresh-phrase-42z"},
        follow=True,
    )
    assert "Your password is changed" in done.content.decode()
    assert client.login(username="ned", password="fresh-phrase-42z")


def test_an_unknown_address_gets_the_same_answer_and_no_email(client):
    from django.core import mail

    response = client.post(reverse("password_reset"), {"email": "nobody@example.org"}, follow=True)
    assert "Check your email" in response.content.decode() and not mail.outbox
