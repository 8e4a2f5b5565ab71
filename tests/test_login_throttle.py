"""Login throttling (issue 10): failures slow down, then lock for a while; success resets."""

import pytest
from django.core.cache import cache
from django.urls import reverse

import grading.common.auth


@pytest.fixture(autouse=True)
def fresh_counts(settings):
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def sleeps(monkeypatch):
    slept: list[float] = []
    monkeypatch.setattr(grading.common.auth.time, "sleep", slept.append)
    return slept


def attempt(client, username, password, address="10.0.0.1"):
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address
    )


@pytest.mark.django_db
def test_five_failures_lock_the_account_even_with_the_right_password(
    client, django_user_model, sleeps
):
    django_user_model.objects.create_user("ann", password="right-password-1")
    for _ in range(5):
        assert attempt(client, "ann", "wrong").status_code == 200
    assert sleeps == [0.25, 0.5, 0.75, 1.0]  # each failure after the first is slower
    locked = attempt(client, "ann", "right-password-1", address="10.9.9.9")
    assert locked.status_code == 200
    assert "Too many failed attempts" in locked.content.decode()
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_one_address_guessing_many_usernames_is_locked(client, django_user_model, sleeps):
    django_user_model.objects.create_user("bob", password="right-password-1")
    for name in ["a", "b", "c", "d", "e"]:
        attempt(client, name, "x", address="10.0.0.7")
    assert (
        "Too many failed attempts"
        in attempt(client, "bob", "right-password-1", address="10.0.0.7").content.decode()
    )
    assert attempt(client, "bob", "right-password-1", address="10.0.0.8").status_code == 302


@pytest.mark.django_db
def test_success_clears_the_username_count(client, django_user_model, sleeps):
    django_user_model.objects.create_user("cat", password="right-password-1")
    for _ in range(3):
        attempt(client, "cat", "wrong")
    assert attempt(client, "cat", "right-password-1").status_code == 302
    assert grading.common.auth.login_failures(username="cat", address="10.0.0.99") == 0
