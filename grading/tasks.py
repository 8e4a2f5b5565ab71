"""Celery tasks: ids in, a service call, idempotent (a task delivered twice grades once)."""

import socket

from celery import shared_task
from django.contrib.auth import get_user_model
from django.utils import timezone

from grading.ledger.refresh import grades_refresh
from grading.ledger.replay.check import ledger_refold
from grading.ledger.step import versions_grade_pending
from grading.results import tasks as results_tasks  # noqa: F401  (the emails' tasks, S16)
from grading.schemes.brambledown.update import brambledown_regrade_due
from grading.uploads.services import upload_process, uploads_received_process


@shared_task(name="grading.health_ping")
def health_ping(token: str) -> dict:
    """Answers with the token and the worker's host: proves a worker is consuming tasks."""
    return {"token": token, "host": socket.gethostname()}


@shared_task(name="grading.process_upload", acks_late=True)
def process_upload(upload_id: int) -> int:
    """Check and store a received file (or run a received withdrawal), then grade every stored
    version in order (issue 21 item 3: the long work is the worker's, never the request's).
    Returns the versions graded."""
    upload_process(upload_id=upload_id)
    return versions_grade_pending()


@shared_task(name="grading.grade_upload", acks_late=True)
def grade_upload(upload_id: int) -> int:
    """Grade every stored version, in order (the upload's among them). Returns how many."""
    return versions_grade_pending()


@shared_task(name="grading.refresh_grades")
def refresh_grades() -> int:
    """Nightly: current and partnership grades move with the calendar (S4 window, statuses)."""
    return grades_refresh(today=timezone.localdate())


@shared_task(name="grading.grade_pending", acks_late=True)
def grade_pending() -> int:
    """A sweep for uploads received but not checked and versions stored but not graded (a
    broker that was down at upload time, a worker that died). Returns the versions graded."""
    uploads_received_process()
    return versions_grade_pending()


@shared_task(name="grading.regrade_brambledown", acks_late=True)
def regrade_brambledown() -> dict:
    """Quarterly (S11): close the quarter just ended at every club keeping Brambledown grades
    (new grades, A, B and pairs lists). Idempotent: a closed quarter is not regraded again."""
    done = brambledown_regrade_due(today=timezone.localdate())
    return {slug: list(update.closed) for slug, update in done.items()}


@shared_task(name="grading.refold_ledger", acks_late=True)
def refold_ledger(user_id: int | None = None) -> int:
    """Recompute every stored grade by folding the whole ledger with the active parameter set
    (S5.4, S9): after a parameter change, or a staff replay. No arguments: it always folds
    with the set the ledger head names when it runs, under the ledger lock, so a refold
    delivered twice, or one queued before a later change, gives the same grades. Returns the
    ledger entries folded. ``user_id``: who asked (for the audit log)."""
    actor = get_user_model().objects.filter(pk=user_id).first() if user_id else None
    return ledger_refold(actor=actor)
