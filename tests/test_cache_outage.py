"""Issue 32 item 7: with Redis unreachable a correct-password login answered 500, and every
signed-in page and logout too (the sessions were read from the cache first). Sessions now fall
back to the database (``grading.common.sessions``), the login throttle counts in the process's
memory (it fails safe: neither open nor locked for everyone), and the site keeps serving.
The cache here is a Redis client pointed at a closed port."""

import socket

import pytest
import redis
from django.core.cache import cache
from django.test import override_settings
from django.urls import reverse

import grading.common.auth
from tests.factories import MemberFactory


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again when the with block ends


@pytest.fixture
def redis_down(settings):
    location = f"redis://127.0.0.1:{closed_port()}/0"
    with override_settings(
        CACHES={
            "default": {
                "BACKEND": "django.core.cache.backends.redis.RedisCache",
                "LOCATION": location,
                "OPTIONS": {"socket_connect_timeout": 0.2},
            }
        },
        SESSION_ENGINE="grading.common.sessions",
    ):
        with pytest.raises(redis.exceptions.ConnectionError):
            cache.get("anything")
        grading.common.auth._local_counts.clear()
        yield
    grading.common.auth._local_counts.clear()


@pytest.fixture
def member_login(django_user_model):
    user = django_user_model.objects.create_user("ann", password="right-password-1")
    MemberFactory(user=user)
    return user


@pytest.mark.django_db
def test_with_the_cache_down_a_member_logs_in_browses_and_logs_out(
    client, member_login, redis_down
):
    answer = client.post(reverse("login"), {"username": "ann", "password": "right-password-1"})
    assert answer.status_code == 302
    for name in ("members:card", "members:sessions", "members:privacy", "dashboard"):
        assert client.get(reverse(name)).status_code == 200, name
    assert client.post(reverse("logout")).status_code == 302
    assert client.get(reverse("members:card")).status_code == 302  # signed out for good


@pytest.mark.django_db
def test_with_the_cache_down_the_throttle_still_locks(client, member_login, redis_down, settings):
    settings.LOGIN_THROTTLE_DELAY = False
    for _ in range(5):
        client.post(reverse("login"), {"username": "ann", "password": "wrong"})
    locked = client.post(reverse("login"), {"username": "ann", "password": "right-password-1"})
    assert locked.status_code == 200
    assert "Too many failed attempts" in locked.content.decode()
