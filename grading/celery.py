"""The Celery application. Run a worker with ``celery -A grading.celery worker``."""

import logging
import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "grading.settings")

app = Celery("grading")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@signals.worker_init.connect
def ledger_state_before_fork(sender=None, **_) -> None:
    """This app's worker folds the ledger once, before its pool forks (a test's own worker
    app is left alone)."""
    if not _is_ours(getattr(sender, "app", None)):
        return
    from grading.ledger.state import ledger_state_warm

    seq = ledger_state_warm()
    logging.getLogger(__name__).info("ledger folded up to entry %s before the pool starts", seq)


def _is_ours(worker_app) -> bool:
    unwrap = getattr(worker_app, "_get_current_object", None)  # a proxy of the current app
    return (unwrap() if unwrap else worker_app) is app
