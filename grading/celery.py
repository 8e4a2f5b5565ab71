"""The Celery application. Run a worker with ``celery -A grading.celery worker``.

A worker needs nothing before it takes its first task: each grading step reads from PostgreSQL
only the subjects it touches (grading/ledger/subjects.py), so a worker starts in seconds and
its memory does not grow with the ledger."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "grading.settings")

app = Celery("grading")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
