"""Celery tasks: ids in, a service call, idempotent (a task delivered twice grades once)."""

import socket

from celery import shared_task


@shared_task(name="grading.health_ping")
def health_ping(token: str) -> dict:
    """Answers with the token and the worker's host: proves a worker is consuming tasks."""
    return {"token": token, "host": socket.gethostname()}


@shared_task(name="grading.grade_upload", acks_late=True)
def grade_upload(upload_id: int) -> int:
    """Grade every stored version, in order (the upload's among them). Returns how many."""
    from grading.ledger import versions_grade_pending

    return versions_grade_pending()
