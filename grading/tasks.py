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
    from grading.ledger.fold import versions_grade_pending

    return versions_grade_pending()


@shared_task(name="grading.refresh_grades")
def refresh_grades() -> int:
    """Nightly: current and partnership grades move with the calendar (S4 window, statuses)."""
    from django.utils import timezone

    from grading.ledger.check import grades_refresh

    return grades_refresh(today=timezone.localdate())


@shared_task(name="grading.grade_pending", acks_late=True)
def grade_pending() -> int:
    """A sweep for versions stored but not graded (a broker that was down at upload time)."""
    from grading.ledger.fold import versions_grade_pending

    return versions_grade_pending()


@shared_task(name="grading.regrade_brambledown", acks_late=True)
def regrade_brambledown() -> dict:
    """Quarterly (S11): close the quarter just ended at every club keeping Brambledown grades
    (new grades, A, B and pairs lists). Idempotent: a closed quarter is not regraded again."""
    from django.utils import timezone

    from grading.schemes.brambledown import brambledown_regrade_due

    done = brambledown_regrade_due(today=timezone.localdate())
    return {slug: list(update.closed) for slug, update in done.items()}


@shared_task(name="grading.refold_ledger", acks_late=True)
def refold_ledger(user_id: int | None = None) -> int:
    """Recompute every stored grade by folding the whole ledger with the active parameter set
    (S5.4, S9): after a parameter change, or a staff replay. No arguments: it always folds
    with the set the ledger head names when it runs, under the ledger lock, so a refold
    delivered twice, or one queued before a later change, gives the same grades. Returns the
    ledger entries folded. ``user_id``: who asked (for the audit log)."""
    from django.contrib.auth import get_user_model

    from grading.ledger.check import ledger_refold

    actor = get_user_model().objects.filter(pk=user_id).first() if user_id else None
    return ledger_refold(actor=actor)
