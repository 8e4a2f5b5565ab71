"""The bulk refold timed on a database (issue 18): a refold with the same parameter set (nothing
to write), then a change of set and back (every row rewritten), each with what it wrote and
where its time went; then ``replay --check``. Not product code; it changes the ledger head's
set and puts it back, so run it on a benchmark database only:

``DATABASE_URL=... manage.py shell -c "from grading.lab.refoldbench import main; main([])"``
(on a database ``grading.lab.ledgerdb`` loaded; ``main(['--profile'])`` also writes cProfile
listings to ``/tmp/refold_profile_*.txt``). Prints one JSON object per run.

``manage.py bench`` (issue 31) times the same operations on the database it built, each in a
process of its own so that each has its own peak RSS: ``refold_figures(stack)`` runs
``python -m grading.lab.refoldbench STEP`` for ``replay --check``, a same-set refold, a change of
set and the set put back, and returns the report's keys (``check_seconds``, ...).
"""

from __future__ import annotations

import cProfile
import io
import json
import os
import pstats
import time
from collections.abc import Callable
from typing import Any

from grading.lab.bench import peak_rss_mb
from grading.ledger.replay import check
from grading.ledger.replay import run as replay_run
from grading.ledger.replay.compare import last_stats
from grading.models import LedgerHead, SessionGrade

OTHER_SET = "fr18-factors"  # differs from ngs-15a in the Butler, cross-IMP and Swiss factors


def _other_set(own: str) -> str:
    return OTHER_SET if own != OTHER_SET else "ngs-15a"


def _timed(work: Callable[[], Any], profile: str | None = None) -> dict[str, Any]:
    """Run ``work`` (a check or a refold): wall and CPU seconds, this process's peak, and a
    refold's rows written and phases. ``profile``: a name, for a cProfile listing in
    ``/tmp/refold_profile_<name>.txt``."""
    prof = cProfile.Profile() if profile else None
    replay_run.last_refold.clear()
    t0, c0 = time.perf_counter(), time.process_time()
    if prof is not None:
        prof.enable()
    work()
    if prof is not None:
        prof.disable()
        text = io.StringIO()
        pstats.Stats(prof, stream=text).sort_stats("cumulative").print_stats(45)
        with open(f"/tmp/refold_profile_{profile}.txt", "w") as f:
            f.write(text.getvalue())
    out: dict[str, Any] = {
        "seconds": round(time.perf_counter() - t0, 2),
        "cpu_seconds": round(time.process_time() - c0, 2),
        "peak_rss_mb": round(peak_rss_mb()),
    }
    stats = replay_run.last_refold.get("stats")
    if stats is not None:
        out["engine"] = replay_run.last_refold.get("engine")
        out["records"] = stats.records
        out["written"] = {k: v for k, v in stats.written.items() if v}
        out["phases"] = {k: round(v, 3) for k, v in stats.seconds.items()}
    return out


def _refold_with(params: str) -> None:
    """Refold with ``params`` as the product does after a change of set: the head's set
    changed and committed, then the refold in a transaction of its own (so it takes its rows
    in beside it, ``grading.ledger.replay.side``); an interrupted refold puts the set back."""
    own = LedgerHead.objects.get().params_name
    LedgerHead.objects.filter(pk=1).update(params_name=params)
    try:
        check.ledger_refold()
    except BaseException:
        LedgerHead.objects.filter(pk=1).update(params_name=own)
        raise


def main(argv: list[str]) -> int:
    profile = "--profile" in argv
    head = LedgerHead.objects.get()
    own = head.params_name
    runs = [
        ("same_set", own),
        ("set_changed", _other_set(own)),
        ("set_back", own),
        ("same_again", own),
    ]
    try:
        for name, params in runs:
            figures = _timed(lambda p=params: _refold_with(p), name if profile else None)
            print(json.dumps({"run": name, **figures}), flush=True)
    finally:
        LedgerHead.objects.filter(pk=head.pk).update(params_name=own)
    t0 = time.perf_counter()
    problems = check.ledger_check()
    print(
        json.dumps(
            {
                "replay_check_seconds": round(time.perf_counter() - t0, 2),
                "problems": len(problems),
                "session_grades": SessionGrade.objects.count(),
            }
        )
    )
    return 0


# the bench's steps, in this order, each in its own process (its own peak RSS)
BENCH_STEPS = ("check", "refold_same", "refold_changed", "refold_back")


def bench_step(step: str, params: str = "") -> dict[str, Any]:
    """One of ``BENCH_STEPS`` on this process's database: its wall and CPU seconds and the
    process's peak RSS. ``refold_changed`` refolds with another set (``OTHER_SET``, or
    ngs-15a when the head names it), ``refold_back`` with ``params`` (the set before the
    change); the head's set is changed and committed first, as the product does, and put
    back if the refold is interrupted."""
    found = LedgerHead.objects.get().params_name
    if step == "check":
        problems: list = []
        out = _timed(lambda: problems.extend(check.ledger_check()))
        fold = last_stats.get("check")
        if fold is not None:
            phases = {"read": fold.read_seconds, **fold.seconds}
            out["phases"] = {name: round(value, 3) for name, value in phases.items()}
        return {"params": found, "found": found, "problems": len(problems), **out}
    if step == "refold_same":
        return {"params": found, "found": found, **_timed(check.ledger_refold)}
    if step in ("refold_changed", "refold_back"):
        params = _other_set(found) if step == "refold_changed" else params or found
        return {"params": params, "found": found, **_timed(lambda: _refold_with(params))}
    raise ValueError(f"unknown step {step!r}; the steps are {', '.join(BENCH_STEPS)}")


def bench_cli(step: str, params: str = "") -> None:
    """``bench_step`` printed as one JSON line (what ``refold_figures`` runs in a child)."""
    print(json.dumps(bench_step(step, params)), flush=True)


def refold_figures(stack, log: Callable[[str], Any] = print) -> dict[str, Any]:
    """``BENCH_STEPS`` on a ``grading.lab.load.BenchStack``'s database (last: a change of
    set leaves every grade's table full of dead rows), each in a child process
    (``manage.py shell``): the report's keys ``<step>_seconds`` and ``<step>_peak_rss_mb``
    (``check_seconds``, ``refold_same_seconds``, ``refold_changed_seconds``,
    ``refold_back_seconds``), ``check_problems``, and each step's details (rows written,
    phases) under ``refolds``."""
    report: dict[str, Any] = {}
    details: dict[str, Any] = {}
    own = ""  # the head's set before the change, put back by refold_back
    # BENCH_REFOLD_STEPS=check,refold_same,refold_changed leaves out the set put back (the
    # bench's database is dropped at the end; a national refold is minutes).
    wanted = os.environ.get("BENCH_REFOLD_STEPS", ",".join(BENCH_STEPS)).split(",")
    for step in (s for s in BENCH_STEPS if s in wanted):
        log(f"bench: {step.replace('_', ' ')}")
        code = f"from grading.lab.refoldbench import bench_cli; bench_cli({step!r}, {own!r})"
        out = json.loads(stack._run("manage.py", "shell", "-c", code).splitlines()[-1])
        own = own or out["found"]
        details[step] = out
        report[f"{step}_seconds"] = out["seconds"]
        report[f"{step}_peak_rss_mb"] = out["peak_rss_mb"]
        log(f"bench: {step.replace('_', ' ')}: {out['seconds']} s, peak {out['peak_rss_mb']} MB")
        # the library missing, or not this source's: the fold fell back to Python
        if out.get("engine", replay_run.COMPILED) != replay_run.COMPILED:
            log(f"bench: WARNING: {step.replace('_', ' ')} folded with {out['engine']}")
    report["check_problems"] = details.get("check", {}).get("problems")
    report["refolds"] = details
    return report
