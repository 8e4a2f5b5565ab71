"""The Celery application. Run a worker with ``celery -A grading.celery worker``.

A worker needs nothing before it takes its first task: each grading step reads from PostgreSQL
only the subjects it touches (grading/ledger/subjects.py), so a worker starts in seconds and
its memory does not grow with the ledger."""

import os

from celery import Celery
from django.db import InterfaceError, OperationalError

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "grading.settings")

app = Celery("grading")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Issue 32 item 8: a task that meets a deadlock or a lost database connection is retried, with
# backoff (2, 4, 8, ... s, at most a minute apart, jittered), six times; every task is idempotent
# (a graded version is skipped), so a retry does nothing twice. Beyond that the five-minute
# sweep (grade_pending) takes the work up.
DATABASE_RETRY = {
    "autoretry_for": (OperationalError, InterfaceError),
    "retry_backoff": 2,
    "retry_backoff_max": 60,
    "retry_jitter": True,
    "max_retries": 6,
    "acks_late": True,
    "reject_on_worker_lost": True,
}
