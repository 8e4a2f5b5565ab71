"""The real services: PostgreSQL for the database, Redis and a worker thread for Celery."""

import os
import uuid

import pytest
from django.db import connection

from members.models import Member
from tests.conftest import skip_or_fail


def test_suite_runs_on_postgresql(postgres):
    with connection.cursor() as cursor:
        cursor.execute("select version()")
        assert cursor.fetchone()[0].startswith("PostgreSQL")
    Member.objects.create(national_number="4242", name="Pg Test")
    assert Member.objects.filter(name__icontains="pg test").count() == 1


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
        task_default_queue=f"test-{os.getpid()}",  # concurrent runs never take each other's tasks
    )
    app.autodiscover_tasks(["grading"])
    app.set_current()
    try:
        with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
            yield app
    finally:
        product_app.set_current()
        app.close()


def test_celery_round_trip_through_redis(redis_worker):
    from grading.tasks import health_ping

    assert not redis_worker.conf.task_always_eager
    token = uuid.uuid4().hex
    result = health_ping.delay(token)
    answer = result.get(timeout=20)
    assert answer["token"] == token
    assert result.backend.__class__.__name__ == "RedisBackend"
