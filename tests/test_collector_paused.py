"""``grading.common.collector.collector_paused``: no automatic cycle collection inside the
block (a bulk operation's millions of young objects, docs/benchmarks.md), the caller's own
collections still free cyclic garbage, and the collector is as it was after the block, an
error included."""

from __future__ import annotations

import gc
import weakref

import pytest

from grading.common.collector import collector_paused


class _Node:
    def __init__(self) -> None:
        self.other = self  # a cycle: only the collector frees it


def test_inside_the_block_nothing_collects_until_the_caller_says():
    with collector_paused() as collect:
        assert not gc.isenabled()
        node = _Node()
        alive = weakref.ref(node)
        del node
        young = [[] for _ in range(50_000)]  # well past every generation's threshold
        del young
        assert alive() is not None
        collect()
        assert alive() is None
    assert gc.isenabled()


def test_the_collector_is_enabled_again_after_an_error():
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("the rebuild failed")
    assert gc.isenabled()


def test_a_collector_disabled_before_stays_disabled():
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
