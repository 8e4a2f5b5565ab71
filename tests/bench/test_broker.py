"""The bench's view of the broker (``grading/lab/broker.py``): which of Redis's lists hold
the pages rendered ahead, the lowest priority, which the evening pass leaves running between
its blocks and drops at its end. Nothing here is timed."""

from django.conf import settings
from kombu.transport.redis import Channel

from grading.common.queue import FOLLOW_PRIORITY, LOW_PRIORITY
from grading.lab.broker import lowest_priority
from grading.staff.selectors import broker_lists


def _list_of(queue: str, priority: int) -> str:
    # kombu's Redis transport: priorities rounded up to its steps, 0 on the queue's own list
    step = next(s for s in (0, 3, 6, 9) if s >= priority)
    return queue if step == 0 else f"{queue}{Channel.sep}{step}"


def test_the_pages_ahead_lists_are_the_lowest_priority_of_each_queue():
    queues = (settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_BACKGROUND_QUEUE)
    lowest = [key for key in broker_lists() if lowest_priority(key)]
    assert lowest == [_list_of(queue, LOW_PRIORITY) for queue in queues]
    for queue in queues:  # the emails (no priority) and the other schemes' updates are waited for
        assert not lowest_priority(_list_of(queue, 0))
        assert not lowest_priority(_list_of(queue, FOLLOW_PRIORITY))
