"""The worker's tasks for the emails after grading (S16): ids in, one call, idempotent.
Queued through ``grading.common.queue`` (on commit: never inside the grading transaction)."""

from celery import shared_task

from grading.results.sending import due_emails_send, session_emails_send, weekly_summaries_send


@shared_task(name="results.send_session_emails", acks_late=True)
def send_session_emails(version_id: int) -> int:
    """Email the players of a graded session version. A task delivered twice sends once."""
    return session_emails_send(version_id=version_id)


@shared_task(name="results.send_due_emails")
def send_due_emails() -> int:
    """Every minute: try again the emails a mail server refused, once their wait is over."""
    return due_emails_send()


@shared_task(name="results.send_weekly_summaries")
def send_weekly_summaries() -> int:
    """Monday morning: the weekly summary for members who chose it."""
    return weekly_summaries_send()
