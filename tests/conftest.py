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


@pytest.fixture(autouse=True)
def _empty_cache(request):
    """Each test starts with an empty cache: no login-throttle counts, no member pages kept
    rendered (members/pagecache.py) by an earlier test."""
    if request.config.pluginmanager.hasplugin("django"):
        from django.core.cache import cache

        cache.clear()
    yield


@pytest.fixture(autouse=True)
def _product_celery_app_stays_current(request):
    """A test that makes another Celery app current (``Celery(...)`` does by default) must put
    the product's back: every later task would go to that app, and uploads would stay
    ungraded in tests that have nothing to do with it."""
    yield
    if request.config.pluginmanager.hasplugin("django"):
        from celery import current_app

        from grading.celery import app

        assert current_app._get_current_object() is app, "the product's Celery app is not current"


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


@pytest.fixture
def redis_worker():
    """A real Celery worker thread consuming from Redis (not eager mode).

    A fresh app, made current for the test: ``shared_task`` proxies resolve against the
    current app, so the product's tasks run through Redis without touching the eager app.
    """
    redis_url = os.environ.get("TEST_REDIS_URL")
    if not redis_url:
        skip_or_fail("Redis is not reachable: start it or set TEST_REDIS_URL")
    from celery import Celery
    from celery.contrib.testing.worker import start_worker

    from grading.celery import app as product_app

    app = Celery("grading-test")
    app.config_from_object("django.conf:settings", namespace="CELERY")
    app.conf.update(
        broker_url=redis_url,
        result_backend=redis_url,
        task_always_eager=False,
        # every task on this run's own queue: the settings' background queue is shared
        task_queues=None,
        task_routes=None,
        task_default_queue=f"test-{os.getpid()}",  # concurrent runs never take each other's tasks
    )
    app.autodiscover_tasks(["grading"])
    app.set_current()
    app.set_default()  # the live server's request threads dispatch to this app too
    try:
        with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
            yield app
    finally:
        product_app.set_current()
        product_app.set_default()
        app.close()
