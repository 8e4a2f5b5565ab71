"""After a ledger step (registered in ``grading.apps``, run inside the step's transaction):
a graded version queues its players' emails for when that transaction commits
(``grading.common.queue``). Nothing is sent here, nothing here can fail the step (S16: a
failing mail server never delays or undoes grading)."""

from __future__ import annotations

from grading.common.queue import task_queue
from grading.models import SessionVersion


def results_after_step(*, version: SessionVersion) -> None:
    if version.state == SessionVersion.State.GRADED:
        task_queue("results.send_session_emails", version.pk)
