"""Python's cycle collector paused for a bulk operation.

A whole-ledger operation keeps millions of young objects alive at once (a chunk's rows, its
points), so the collector keeps promoting them and runs full collections over everything the
process holds: in a national rebuild of the schemes, 111 full collections took 17.9 s of its
175 s (docs/benchmarks.md). Reference counting frees almost all of it; the little cyclic
garbage is collected when the caller says (``collect``), between chunks.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]


@contextmanager
def collector_paused() -> Iterator[Callable[[], int]]:
    """No automatic collection inside the block; it yields ``gc.collect`` for the caller's
    own collections. The collector is as it was after the block (an error included)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield gc.collect
    finally:
        if enabled:
            gc.enable()
