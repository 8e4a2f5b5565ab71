"""The product's Celery worker with a fault injected on demand, for tests/test_worker_faults.py.

Run as ``python -m tests.fault_worker`` with the product's environment (``DATABASE_URL``,
``REDIS_URL``) and:

* ``FAULT_QUEUE``: the queue to consume (each test run has its own);
* ``FAULT_HANG_MARKER``: if set, the first grading step does all its writes, then writes this
  file (holding the pool process's pid) and hangs *inside its transaction*, so the test can
  kill the worker at the worst moment: after the ledger append, before the commit.

The worker is the real prefork pool, so the hang happens in a forked child, as in production.
"""

import os
import time
from pathlib import Path

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "grading.settings")
django.setup()

import grading.ledger.step  # noqa: E402 - after django.setup()
from grading.celery import app  # noqa: E402


def hang_after_first_step(marker: Path) -> None:
    after_step = grading.ledger.step.after_step_run

    def hanging(**kwargs):
        after_step(**kwargs)
        if not marker.exists():
            marker.write_text(str(os.getpid()))
            time.sleep(3600)

    grading.ledger.step.after_step_run = hanging


def main() -> None:
    if os.environ.get("FAULT_HANG_MARKER"):
        hang_after_first_step(Path(os.environ["FAULT_HANG_MARKER"]))
    queue = os.environ["FAULT_QUEUE"]
    app.conf.update(
        task_default_queue=queue,
        task_queues=None,  # every task on this run's own queue (settings route some elsewhere)
        task_routes=None,
        # A killed worker's unacknowledged message comes back after the visibility timeout
        # (an hour in production, where the five-minute sweep is quicker); seconds here.
        broker_transport_options={
            "visibility_timeout": 3,
            "unacked_restore_interval": 1,
            "unacked_restore_throttle": 1,
        },
    )
    app.worker_main(
        [
            "worker",
            "--pool=prefork",
            "--concurrency=1",
            f"--queues={queue}",
            "--loglevel=INFO",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            f"--hostname=fault-{os.getpid()}@%h",
        ]
    )


if __name__ == "__main__":
    main()
