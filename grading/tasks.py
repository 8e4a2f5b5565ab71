"""Celery tasks: ids in, a service call, idempotent."""

import socket

from celery import shared_task


@shared_task(name="grading.health_ping")
def health_ping(token: str) -> dict:
    """Answers with the token and the worker's host: proves a worker is consuming tasks."""
    return {"token": token, "host": socket.gethostname()}
