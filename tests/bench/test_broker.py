"""The bench's view of the broker (``grading/lab/broker.py``): which of Redis's lists hold
the pages rendered ahead, the lowest priority, which the evening pass leaves running between
its blocks and drops at its end. Nothing here is timed."""

import json

from django.conf import settings
from kombu.transport.redis import Channel

from grading.common.queue import FOLLOW_PRIORITY, LOW_PRIORITY
from grading.lab.broker import lowest_priority, priority_step, unacked_but_pages_ahead
from grading.staff.selectors import broker_lists


def _list_of(queue: str, priority: int) -> str:
    # kombu's Redis transport: priorities rounded up to its steps, 0 on the queue's own list
    step = priority_step(priority)
    return queue if step == 0 else f"{queue}{Channel.sep}{step}"


def _unacked(priority: int | None) -> str:
    # what kombu's Redis transport keeps for a message taken: [message, exchange, routing key]
    properties = {"delivery_tag": "t", "body_encoding": "base64"}
    if priority is not None:
        properties["priority"] = priority
    return json.dumps([{"body": "", "properties": properties}, "", "celery"])


def test_tasks_taken_and_running_are_waited_for_unless_they_are_pages_ahead():
    taken = [_unacked(LOW_PRIORITY), _unacked(FOLLOW_PRIORITY), _unacked(None), _unacked(0)]
    assert unacked_but_pages_ahead(taken) == 3
    assert unacked_but_pages_ahead([_unacked(LOW_PRIORITY)] * 4) == 0
    assert unacked_but_pages_ahead([b"not json", "[]"]) == 2  # unreadable: waited for


def test_priorities_round_up_to_the_transports_steps():
    assert [priority_step(p) for p in (0, 1, 3, 4, 6, 7, 9)] == [0, 3, 3, 6, 6, 9, 9]


def test_the_pages_ahead_lists_are_the_lowest_priority_of_each_queue():
    queues = (settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_BACKGROUND_QUEUE)
    lowest = [key for key in broker_lists() if lowest_priority(key)]
    assert lowest == [_list_of(queue, LOW_PRIORITY) for queue in queues]
    for queue in queues:  # the emails (no priority) and the other schemes' updates are waited for
        assert not lowest_priority(_list_of(queue, 0))
        assert not lowest_priority(_list_of(queue, FOLLOW_PRIORITY))
