"""Every task the product queues goes through here: named, sent when the transaction that made
the work commits (at once outside one), and never turning a stored write into an error page.

A broker that is down must not undo or hold the request: publishing gives up at once (settings:
no publish retries, short socket timeouts, no result subscription) and the sweep
(``grading.grade_pending``, every five minutes) takes stored uploads up; a refold that could not
be queued is shown as pending on the parameters page."""

from __future__ import annotations

import logging

from celery import current_app
from django.db import transaction

log = logging.getLogger(__name__)


# Priorities on Redis run from 0 (first; what is sent without one) to 9 (last). Work that
# follows a grading step (the schemes' fold) yields to the uploads waiting to be graded, and
# work that only saves a later request time (pages rendered ahead) to both.
FOLLOW_PRIORITY = 6
LOW_PRIORITY = 9


def task_queue(task_name: str, *args, priority: int | None = None) -> None:
    """Queue ``task_name(*args)`` when the current transaction commits."""
    transaction.on_commit(lambda: task_publish(task_name, *args, priority=priority))


def task_publish(task_name: str, *args, priority: int | None = None) -> None:
    """Send the task now (tasks run in-process when Celery is eager: the settings' default)."""
    try:
        if task_name not in current_app.tasks:
            current_app.loader.import_default_modules()  # the app's autodiscovered tasks
        options = {"priority": priority} if priority is not None else {}
        current_app.tasks[task_name].apply_async(args, ignore_result=True, **options)
    except Exception:
        log.warning("Could not queue %s%s; it is taken up later", task_name, args, exc_info=True)
