"""The bench's view of the broker (Redis): how many tasks wait, and the pages rendered ahead
among them, so that a pass can wait for the workers to finish what it queued, or leave the
pages ahead aside (issue 28's evening: at its pace they never catch up nationally).

Lab code: never imported by the product.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable


def priority_step(priority: int) -> int:
    """The step of kombu's Redis transport a task's priority is queued at (rounded up)."""
    from kombu.transport.redis import PRIORITY_STEPS

    return next((s for s in PRIORITY_STEPS if s >= priority), PRIORITY_STEPS[-1])


def lowest_priority(key: str) -> bool:
    """Whether a broker list holds the lowest priority's tasks (the pages rendered ahead,
    ``grading.common.queue.LOW_PRIORITY``): kombu names it ``<queue><sep><step>``."""
    from kombu.transport.redis import Channel

    from grading.common.queue import LOW_PRIORITY

    return key.endswith(f"{Channel.sep}{priority_step(LOW_PRIORITY)}")


def unacked_but_pages_ahead(values: Iterable[bytes | str]) -> int:
    """Of the messages taken and not yet acknowledged (kombu's ``unacked`` hash: each a JSON
    ``[message, exchange, routing_key]``, the priority in the message's properties), those
    that are not pages rendered ahead; one that cannot be read counts (waited for)."""
    from grading.common.queue import LOW_PRIORITY

    low = priority_step(LOW_PRIORITY)
    count = 0
    for value in values:
        try:
            priority = json.loads(value)[0]["properties"].get("priority") or 0
            count += priority_step(int(priority)) != low
        except (ValueError, TypeError, LookupError, AttributeError):
            count += 1
    return count


def queue_wait(
    redis_url: str, timeout: float, log: Callable[[str], object], *, pages_ahead: bool = True
) -> float:
    """Wait for the workers to take every task queued (the last steps' page warming, the
    other schemes' updates): the seconds waited. ``pages_ahead=False``: every task but the
    pages rendered ahead (the lowest priority's), queued or taken and still running."""
    import redis

    from grading.staff.selectors import broker_lists

    broker = redis.Redis.from_url(redis_url)
    deadline = time.perf_counter() + timeout
    lists = [k for k in broker_lists() if pages_ahead or not lowest_priority(k)]

    def waiting() -> int:
        # one list per queue and priority ("celery", "background\x06\x169"...), and the
        # messages taken but not yet acknowledged (acks_late): empty once every task has run
        queued = sum(broker.llen(key) for key in lists)
        if pages_ahead:
            return queued + broker.hlen("unacked")
        return queued + unacked_but_pages_ahead(broker.hvals("unacked"))

    began = time.perf_counter()
    while waiting() and time.perf_counter() < deadline:
        time.sleep(0.05)
    if waiting():
        log(f"bench: tasks still queued after {timeout:.0f} s; going on")
    return time.perf_counter() - began


def pages_ahead_drop(redis_url: str) -> int:
    """Drop the pages-ahead tasks still queued (the lowest priority's lists): the count.
    After a pass that uploads faster than they can run, so that the passes after it do not
    share the machine with its backlog."""
    import redis

    from grading.staff.selectors import broker_lists

    broker = redis.Redis.from_url(redis_url)
    dropped = 0
    for key in (k for k in broker_lists() if lowest_priority(k)):
        dropped += broker.llen(key)
        broker.delete(key)
    return dropped
