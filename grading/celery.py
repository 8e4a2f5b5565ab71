"""The Celery application. Run a worker with ``celery -A grading.celery worker``."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "grading.settings")

app = Celery("grading")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
