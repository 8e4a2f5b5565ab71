"""Celery tasks: ids in, a service call, idempotent (a task delivered twice grades once)."""

import socket

from celery import shared_task
from django.contrib.auth import get_user_model
from django.utils import timezone

from grading.celery import DATABASE_RETRY
from grading.common.audit import audit_record
from grading.ledger.refresh import grades_refresh
from grading.ledger.replay.check import ledger_refold
from grading.ledger.step import versions_grade_pending
from grading.models import AuditEvent
from grading.results import tasks as results_tasks  # noqa: F401  (the emails' tasks, S16)
from grading.schemes.after_step import schemes_catch_up
from grading.schemes.brambledown.update import brambledown_regrade_due
from grading.schemes.rebuild.run import schemes_rebuild
from grading.uploads.services import upload_process, uploads_received_process
from members.accounts.union import register_invitations_send, sign_up_notify
from members.pagewarm import member_pages_warm


@shared_task(name="grading.health_ping")
def health_ping(token: str) -> dict:
    """Answers with the token and the worker's host: proves a worker is consuming tasks."""
    return {"token": token, "host": socket.gethostname()}


@shared_task(name="grading.process_upload", **DATABASE_RETRY)
def process_upload(upload_id: int) -> int:
    """Check and store a received file (or run a received withdrawal), then grade every stored
    version in order (issue 21 item 3: the long work is the worker's, never the request's).
    Returns the versions graded."""
    upload_process(upload_id=upload_id)
    return versions_grade_pending()


@shared_task(name="grading.grade_upload", **DATABASE_RETRY)
def grade_upload(upload_id: int) -> int:
    """Grade every stored version, in order (the upload's among them). Returns how many."""
    return versions_grade_pending()


@shared_task(name="grading.refresh_grades", **DATABASE_RETRY)
def refresh_grades() -> int:
    """Nightly: current and partnership grades move with the calendar (S4 window, statuses).
    Recorded in the audit log: the staff page shows when it last ran (S15)."""
    today = timezone.localdate()
    refreshed = grades_refresh(today=today)
    audit_record(
        action=AuditEvent.Action.NIGHTLY,
        subject=f"Grades refreshed as of {today:%Y-%m-%d}",
        refreshed=refreshed,
    )
    return refreshed


@shared_task(name="grading.grade_pending", **DATABASE_RETRY)
def grade_pending() -> int:
    """A sweep for uploads received but not checked and versions stored but not graded (a
    broker that was down at upload time, a worker that died). Returns the versions graded."""
    uploads_received_process()
    graded = versions_grade_pending()
    schemes_catch_up()  # (a fold whose task was lost with the broker)
    return graded


@shared_task(name="grading.schemes_catch_up", **DATABASE_RETRY)
def schemes_catch_up_task() -> int:
    """After ledger steps: fold the schemes' log into PPI and Brambledown, in its order (S10,
    S11). No arguments: it folds whatever is waiting, so a delivery twice folds nothing twice.
    Returns the log entries folded."""
    return schemes_catch_up()


@shared_task(name="grading.regrade_brambledown", **DATABASE_RETRY)
def regrade_brambledown() -> dict:
    """Quarterly (S11): close the quarter just ended at every club keeping Brambledown grades
    (new grades, A, B and pairs lists). Idempotent: a closed quarter is not regraded again."""
    schemes_catch_up()  # the steps' entries first, so the quarter closes with all of them
    done = brambledown_regrade_due(today=timezone.localdate())
    return {slug: list(update.closed) for slug, update in done.items()}


@shared_task(name="grading.refold_ledger", **DATABASE_RETRY)
def refold_ledger(user_id: int | None = None) -> int:
    """Recompute every stored grade by folding the whole ledger with the active parameter set
    (S5.4, S9): after a parameter change, or a staff replay. No arguments: it always folds
    with the set the ledger head names when it runs, under the ledger lock, so a refold
    delivered twice, or one queued before a later change, gives the same grades. Returns the
    ledger entries folded. ``user_id``: who asked (for the audit log)."""
    actor = get_user_model().objects.filter(pk=user_id).first() if user_id else None
    return ledger_refold(actor=actor)


@shared_task(name="grading.warm_member_pages", acks_late=True, ignore_result=True)
def warm_member_pages(version_id: int) -> int:
    """After a step: the grade cards and histories of the version's players with a login,
    rendered into the page cache before they open them. Returns the members warmed."""
    return member_pages_warm(version_id=version_id)


@shared_task(name="grading.sign_up_notify", acks_late=True)
def sign_up_notify_task(sign_up_id: int) -> int:
    """A sign-up arrived: email each administrator of the member's home club (S15)."""
    return sign_up_notify(sign_up_id=sign_up_id)


@shared_task(name="grading.register_invitations_send", acks_late=True)
def register_invitations_send_task(club_id: int, user_id: int | None, site_url: str) -> int:
    """Invite every register member of the club with an email and no login (S15); members
    already invited are skipped, so a task delivered twice sends each email once."""
    return register_invitations_send(club_id=club_id, user_id=user_id, site_url=site_url)


@shared_task(name="grading.schemes_rebuild", acks_late=True)
def schemes_rebuild_task() -> dict:
    """PPI and Brambledown rebuilt from the stored versions (after a merge of two numbers,
    S15: the merged number's ratings become the survivor's)."""
    return schemes_rebuild()
