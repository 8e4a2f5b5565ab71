"""Grading has a queue of its own (docs/decisions.md): the work that follows a grading step goes
to the background queue, so a worker kept for grading is free when the next upload arrives."""

import os
import uuid

from celery import Celery
from django.conf import settings
from kombu import Exchange, Queue

from grading.celery import app as product_app
from tests.conftest import skip_or_fail

FOLLOW_UP = (
    "grading.schemes_catch_up",
    "grading.warm_member_pages",
    "results.send_session_emails",
    "results.send_due_emails",
)
GRADING = (
    "grading.process_upload",
    "grading.grade_upload",
    "grading.grade_pending",
    "grading.refold_ledger",
    "grading.health_ping",
)


def _queue_of(app: Celery, task_name: str) -> str:
    return app.amqp.router.route({}, task_name)["queue"].name


def test_every_routed_task_exists():
    product_app.loader.import_default_modules()
    missing = sorted(set(settings.CELERY_TASK_ROUTES) - set(product_app.tasks))
    assert missing == []


def test_the_work_after_a_step_goes_to_the_background_queue_and_grading_stays():
    assert {_queue_of(product_app, name) for name in FOLLOW_UP} == {"background"}
    assert {_queue_of(product_app, name) for name in GRADING} == {"celery"}


def test_a_worker_started_without_queues_takes_both():
    assert set(product_app.amqp.queues) == {"celery", "background"}


def test_a_background_task_reaches_only_the_background_list():
    """Through a real broker, with the settings' exchanges and keys (queue names of this run's
    own): a message sent to one queue is not copied to the other."""
    redis_url = os.environ.get("TEST_REDIS_URL")
    if not redis_url:
        skip_or_fail("Redis is not reachable: start it or set TEST_REDIS_URL")
    import redis

    run = uuid.uuid4().hex[:8]
    grading, background = f"grading-{run}", f"background-{run}"
    app = Celery("queues-test", set_as_current=False)
    app.config_from_object("django.conf:settings", namespace="CELERY")
    names = {
        settings.CELERY_TASK_DEFAULT_QUEUE: grading,
        settings.CELERY_BACKGROUND_QUEUE: background,
    }
    app.conf.update(
        broker_url=redis_url,
        task_always_eager=False,
        task_default_queue=grading,
        task_queues=tuple(
            Queue(names[q.name], Exchange(names[q.name]), routing_key=names[q.name])
            for q in settings.CELERY_TASK_QUEUES
        ),
        task_routes={
            task: {"queue": names[route["queue"]]}
            for task, route in settings.CELERY_TASK_ROUTES.items()
        },
    )
    client = redis.Redis.from_url(redis_url)
    try:
        with app.connection_for_write() as conn:
            app.send_task("grading.warm_member_pages", args=(1,), connection=conn)
            app.send_task("grading.warm_member_pages", args=(2,), connection=conn, priority=9)
            app.send_task("grading.process_upload", args=(3,), connection=conn)
        steps = ("", *(f"\x06\x16{step}" for step in (3, 6, 9)))  # kombu's priority lists
        in_background = sum(client.llen(background + step) for step in steps)
        in_grading = sum(client.llen(grading + step) for step in steps)
        assert (in_background, in_grading) == (2, 1)
    finally:
        for key in client.scan_iter(f"*-{run}*"):
            client.delete(key)
        app.close()
