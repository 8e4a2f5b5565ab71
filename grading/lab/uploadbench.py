"""Upload to visible grade, timed on benchmark stacks (``grading/lab/load.py``): files POSTed
through the API and polled until graded, after one more that measures the workers' cold
start.

Nationally the ratio of the national p95 to the region's is a target (issue 31 item 2), and
this virtual machine's speed drifts by a third over minutes (why was not established; the
national uploads followed the 20 GB copy of the national database at once): timed one scale
after the other, the same upload code gave ratios from 0.78 to 1.37 in four runs
(docs/benchmarks.md, session 31).
``uploads_paired`` times the two stacks in turns, so each pair of uploads meets the same
machine: the ratio is then the databases', not the minutes'."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from grading.lab.bench import percentile
from grading.lab.bench_setup import UPLOAD_TABLES, club_upload_files, upload_files
from grading.lab.broker import queue_wait
from grading.lab.load import BenchStack

__all__ = ["UploadRun", "upload_benchmark", "uploads_paired"]


@dataclass(frozen=True)
class UploadRun:
    """``upload_prepare``'s: the files left to time, and the cold start's figures."""

    slug: str
    files: list[tuple[str, bytes]]
    cold_ms: float
    started_s: float
    drained_s: float


def upload_prepare(stack: BenchStack, count: int) -> UploadRun:
    """``count`` files to time, and one more uploaded now: the workers are started once the
    files and their players' logins are made, so the cold start is the workers' own (process
    start to first upload graded); then every task queued is waited for."""
    if stack.scale.name == "national":
        slug, files = club_upload_files(stack.state["club"], stack.state["numbers"], count + 1)
    else:
        slug, files = upload_files(stack.scale, count + 1)
    stack.log(
        f"bench: {count} uploads of {UPLOAD_TABLES}-table USEBIO files to {slug} with "
        f"{stack.workers} workers (one more first: the workers' cold start)"
    )
    stack.burst_logins(files)
    stack.start_worker()
    cold = stack.upload_once(slug, *files[0], timeout=600.0)
    started = time.perf_counter() - stack.worker_spawned
    # The timed uploads begin on idle workers: a loaded database's schemes' log (a region's
    # 332 entries, whose fold the broker's flush dropped) is folded first, not beside them.
    drained = queue_wait(stack.redis_url, 600.0, stack.log)
    return UploadRun(slug, files[1:], cold, started, drained)


def upload_report(stack: BenchStack, run: UploadRun, times: list[float]) -> dict[str, Any]:
    return {
        "uploads": len(times),
        "tables": UPLOAD_TABLES,
        "format": "usebio",
        "workers": stack.workers,
        "cold_first_ms": run.cold_ms,
        "worker_start_s": run.started_s,
        "drained_before_s": run.drained_s,
        "worker_rss_mb": stack.worker_rss_mb(),
        "times_ms": times,
        "p50_ms": percentile(times, 50),
        "p95_ms": percentile(times, 95),
        "max_ms": max(times) if times else None,
    }


def upload_benchmark(stack: BenchStack, count: int) -> dict[str, Any]:
    """``count`` uploads timed one after the other on ``stack``."""
    run = upload_prepare(stack, count)
    return upload_report(stack, run, [stack.upload_once(run.slug, *f) for f in run.files])


def uploads_paired(
    first: BenchStack, second: BenchStack, count: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``count`` uploads on each stack, timed in turns: the first's i-th and the second's
    i-th, which of them goes first alternating, so neither always follows the other's work.
    Each stack's workers are started (and cold-timed) before any is timed; the two stacks
    need brokers of their own (each worker's start empties its broker)."""
    if first.redis_url == second.redis_url:
        raise ValueError("two stacks timed in turns need two brokers")
    runs = (upload_prepare(first, count), upload_prepare(second, count))
    stacks = (first, second)
    times: tuple[list[float], list[float]] = ([], [])
    for i in range(count):
        for k in (0, 1) if i % 2 == 0 else (1, 0):
            name, data = runs[k].files[i]
            times[k].append(stacks[k].upload_once(runs[k].slug, name, data))
    return upload_report(first, runs[0], times[0]), upload_report(second, runs[1], times[1])
