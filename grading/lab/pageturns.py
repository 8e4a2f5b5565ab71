"""A page pass and the no-op floor timed in turns (issue 31 item 3: each pass against the
floor, ≤ 2x its p95 and ≥ 60 % of its throughput).

The floor was timed once, a minute after the passes it is compared with, and this virtual
machine's speed drifts over minutes: four samples of the same code gave the warm pass 55-69 %
of the floor's throughput (docs/benchmarks.md, session 33). Here the pass and the floor take
``rounds`` short slices each, alternating which goes first, and each round's ratios are taken
between a slice and the floor slice beside it; the figures reported are the medians over the
rounds, as the uploads are timed in turns with a region's (``uploadbench.uploads_paired``)."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

__all__ = ["in_turns", "pass_median"]

Figures = dict[str, Any]
_MEDIAN_KEYS = ("p50_ms", "p95_ms", "p99_ms", "mean_ms", "rps")


def in_turns(
    page_pass: Callable[[], Figures], floor: Callable[[], Figures], rounds: int
) -> dict[str, Any]:
    """``rounds`` slices of ``page_pass`` and of ``floor``, the pass first in even rounds and
    the floor first in odd ones. Returns the pass's and the floor's figures (``pass_median``),
    each round's pair with its ratios, and the medians of those ratios: ``p95_ratio`` (the
    pass's p95 over the floor's) and ``rps_share`` (the pass's throughput over the floor's)."""
    if rounds < 1:
        raise ValueError("at least one round")
    pairs = []
    for k in range(rounds):
        if k % 2 == 0:
            mine = page_pass()
            theirs = floor()
        else:
            theirs = floor()
            mine = page_pass()
        pairs.append({"pass": mine, "floor": theirs, **_ratios(mine, theirs)})
    return {
        "pass": pass_median([p["pass"] for p in pairs]),
        "floor": pass_median([p["floor"] for p in pairs]),
        "rounds": pairs,
        "p95_ratio": _median_of(pairs, "p95_ratio"),
        "rps_share": _median_of(pairs, "rps_share"),
    }


def pass_median(slices: list[Figures]) -> Figures:
    """One pass's figures over its slices: each latency and the throughput the median of the
    slices'; requests and errors summed."""
    if not slices:
        return {}
    out: Figures = {
        key: statistics.median(s[key] for s in slices) for key in _MEDIAN_KEYS if key in slices[0]
    }
    out["max_ms"] = max(s.get("max_ms", 0.0) for s in slices)
    out["requests"] = sum(s.get("requests", 0) for s in slices)
    out["errors"] = sum(s.get("errors", 0) for s in slices)
    out["slices"] = len(slices)
    return out


def _ratios(mine: Figures, floor: Figures) -> dict[str, float | None]:
    def over(a, b):
        return a / b if a and b else None

    return {
        "p95_ratio": over(mine.get("p95_ms"), floor.get("p95_ms")),
        "rps_share": over(mine.get("rps"), floor.get("rps")),
    }


def _median_of(pairs: list[dict], key: str) -> float | None:
    values = [p[key] for p in pairs if p[key] is not None]
    return statistics.median(values) if values else None
