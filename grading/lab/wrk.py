"""The page passes' load generator (``grading.lab.load``): Debian's ``wrk`` with a Lua script
that rotates the members' session cookies over the pages, and the figures of its last line."""

from __future__ import annotations

import json
from typing import Any


def wrk_script(
    session_keys: list[str], paths: list[str], pinned: list[tuple[str, str]] = ()
) -> str:
    """A wrk Lua script: each request a random member (session cookie) and page, or one of the
    ``pinned`` (session, page) pairs; at the end, one JSON line with the latency percentiles
    (microseconds) and the counts."""
    pairs = [(k, p) for k in session_keys for p in paths] + list(pinned)
    table = ", ".join(f"{{{json.dumps(k)}, {json.dumps(p)}}}" for k, p in pairs)
    keys = ", ".join(json.dumps(k) for k in session_keys)
    pages = ", ".join(json.dumps(p) for p in paths)
    return f"""
local keys = {{{keys}}}
local pages = {{{pages}}}
local requests = {{{table}}}
math.randomseed(os.time())
request = function()
  local r = requests[math.random(#requests)]
  return wrk.format("GET", r[2], {{["Cookie"] = "sessionid=" .. r[1],
    ["X-Forwarded-Proto"] = "https", ["Host"] = "127.0.0.1"}})
end
done = function(summary, latency, requests)
  io.write(string.format(
    'BENCHJSON {{"requests": %d, "duration_us": %d, "p50_us": %d, "p95_us": %d, "p99_us": %d, '
    .. '"max_us": %d, "mean_us": %.1f, "errors_status": %d, "errors_connect": %d, '
    .. '"errors_read": %d, "errors_timeout": %d}}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(95),
    latency:percentile(99), latency.max, latency.mean, summary.errors.status,
    summary.errors.connect, summary.errors.read, summary.errors.timeout))
end
"""


def parse_wrk(stdout: str) -> dict[str, Any]:
    """The figures from ``wrk_script``'s last line: latencies in ms, requests per second."""
    line = next(l for l in reversed(stdout.splitlines()) if l.startswith("BENCHJSON "))  # noqa: E741
    raw = json.loads(line.removeprefix("BENCHJSON "))
    seconds = raw["duration_us"] / 1e6
    errors = sum(
        raw[k] for k in ("errors_status", "errors_connect", "errors_read", "errors_timeout")
    )
    return {
        "requests": raw["requests"],
        "rps": raw["requests"] / seconds if seconds else 0.0,
        "p50_ms": raw["p50_us"] / 1000.0,
        "p95_ms": raw["p95_us"] / 1000.0,
        "p99_ms": raw["p99_us"] / 1000.0,
        "max_ms": raw["max_us"] / 1000.0,
        "mean_ms": raw["mean_us"] / 1000.0,
        "errors": errors,
    }
