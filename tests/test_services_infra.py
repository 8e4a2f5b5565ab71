"""The real services: PostgreSQL for the database, Redis and a worker thread for Celery."""

import uuid

from django.db import connection

from members.models import Member


def test_suite_runs_on_postgresql(postgres):
    with connection.cursor() as cursor:
        cursor.execute("select version()")
        assert cursor.fetchone()[0].startswith("PostgreSQL")
    Member.objects.create(national_number="4242", name="Pg Test")
    assert Member.objects.filter(name__icontains="pg test").count() == 1


def test_celery_round_trip_through_redis(redis_worker):
    from grading.tasks import health_ping

    assert not redis_worker.conf.task_always_eager
    token = uuid.uuid4().hex
    result = health_ping.delay(token)
    answer = result.get(timeout=20, disable_sync_subtasks=False)
    assert answer["token"] == token
    assert result.backend.__class__.__name__ == "RedisBackend"
