"""Replay benchmarks (issue 9): time the engine's paths, and openskill, on the same ledger.

Outside the pure engine on purpose: it reads the clock and the process's memory, and imports
openskill (an optional comparison, not a dependency of the product).
"""

from __future__ import annotations

import itertools
import json
import math
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grading.engine.ngs.ledger import LedgerOp, ProcessOp, apply
from grading.engine.ngs.params import NGS_DEFAULT, NGSParams
from grading.engine.types import Movement, PairEntry
from grading.lab.synthetic import iter_synthetic_ledger, synthetic_ledger

__all__ = [
    "SCALES",
    "Scale",
    "iter_synthetic_ledger",
    "percentile",
    "replay_benchmark",
    "replay_suite",
    "synthetic_ledger",
]


def peak_rss_mb() -> float:
    """This process's own peak resident memory, MB (``VmHWM``). ``ru_maxrss`` survives
    ``execve``: a child the bench starts would report the bench's own replay peak."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def replay_benchmark(
    ledger: Iterable[LedgerOp],
    path: str = "kernel",
    params: NGSParams = NGS_DEFAULT,
    *,
    chunk: int = 20000,
) -> dict[str, Any]:
    """Replay ``ledger`` with ``path`` and measure it (one core, this process).

    The ledger is consumed ``chunk`` operations at a time; building each chunk (the generator's
    work) is not timed, the fold is. Returns ``path``, ``ops``, ``sessions`` (graded versions),
    ``player_sessions`` (player-session grades computed), ``seconds``,
    ``player_sessions_per_s``, ``peak_rss_mb`` (the process's peak resident memory, ledger
    included) and ``subjects`` (players, partnerships).
    """
    it = iter(ledger)
    seconds = 0.0
    ops = 0
    if path == "openskill":
        return _openskill_benchmark(it, chunk)
    if path == "kernel":
        from grading.engine.ngs.kernel import KernelReplay

        kernel = KernelReplay(params)
        while True:
            batch = _take(it, chunk)
            if not batch:
                break
            t0 = time.perf_counter()
            for op in batch:
                kernel.apply(op)
            seconds += time.perf_counter() - t0
            ops += len(batch)
        graded, sessions = kernel.graded, kernel.sessions
        subjects = (len(kernel.players), len(kernel.partnerships))
    elif path in ("fast", "reference"):
        from grading.engine.ngs.ledger import ReplayState

        state = ReplayState(params, path)  # type: ignore[arg-type]
        graded = sessions = 0
        while True:
            batch = _take(it, chunk)
            if not batch:
                break
            t0 = time.perf_counter()
            for op in batch:
                step = apply(state, op)
                if step.outcome is not None and step.outcome.graded:
                    sessions += 1
                    graded += sum(1 for r in step.outcome.players if r.session_grade is not None)
            state.steps.clear()
            seconds += time.perf_counter() - t0
            ops += len(batch)
        subjects = (len(state.players), len(state.partnerships))
    else:
        raise ValueError(f"unknown path {path!r}")
    return {
        "path": path,
        "ops": ops,
        "sessions": sessions,
        "player_sessions": graded,
        "seconds": seconds,
        "player_sessions_per_s": graded / seconds if seconds else 0.0,
        "peak_rss_mb": peak_rss_mb(),
        "subjects": subjects,
    }


def _take(it: Iterator[LedgerOp], n: int) -> list[LedgerOp]:
    out = []
    for op in it:
        out.append(op)
        if len(out) >= n:
            break
    return out


def _openskill_benchmark(it: Iterator[LedgerOp], chunk: int) -> dict[str, Any]:
    """PlackettLuce on the same sessions: each comparison group (the field, or a direction of
    a two-winner movement) is one match of its pairs as teams, ranked by score."""
    from openskill.models import PlackettLuce  # optional: not an engine dependency

    model = PlackettLuce()
    ratings: dict[str, Any] = {}
    seconds = 0.0
    ops = sessions = graded = 0
    while True:
        batch = _take(it, chunk)
        if not batch:
            break
        t0 = time.perf_counter()
        for op in batch:
            if not isinstance(op, ProcessOp):
                continue
            s = op.session
            groups: dict[str, list[PairEntry]] = {}
            for pair in s.pairs:
                if pair.score is None:
                    continue
                two = s.movement is Movement.TWO_WINNER and pair.direction is not None
                groups.setdefault(pair.direction.value if two else "", []).append(pair)  # type: ignore[union-attr]
            sessions += 1
            for pairs in groups.values():
                if len(pairs) < 2:
                    continue
                teams = []
                for pair in pairs:
                    team = []
                    for i, p in enumerate(pair.players):
                        name = p.number or f"u{pair.pair_id}{i}"
                        r = ratings.get(name)
                        if r is None:
                            r = ratings[name] = model.rating(name=name)
                        team.append(r)
                    teams.append(team)
                scores = [float(pair.score or 0.0) for pair in pairs]
                new = model.rate(teams, scores=scores)
                for pair, team in zip(pairs, new, strict=True):
                    for i, (p, r) in enumerate(zip(pair.players, team, strict=True)):
                        ratings[p.number or f"u{pair.pair_id}{i}"] = r
                        graded += 1
        seconds += time.perf_counter() - t0
        ops += len(batch)
    return {
        "path": "openskill",
        "ops": ops,
        "sessions": sessions,
        "player_sessions": graded,
        "seconds": seconds,
        "player_sessions_per_s": graded / seconds if seconds else 0.0,
        "peak_rss_mb": peak_rss_mb(),
        "subjects": (len(ratings), 0),
    }


# ---- the benchmark suite (``manage.py bench``) -------------------------------------------------


@dataclass(frozen=True)
class Scale:
    """One benchmark size: the replayed synthetic ledger, the subset every path replays for the
    ratios, the simulated database loaded for the upload and page benchmarks, and the load."""

    name: str
    players: int  # synthetic ledger (replay)
    sessions: int
    subset_sessions: int  # the first sessions of the same ledger, for reference and openskill
    sim_players: int  # simulated world loaded through the pipeline (upload, pages)
    sim_clubs: int
    sim_months: int
    uploads: int
    page_seconds: int
    clients: int = 50
    page_members: int = 200  # random members the page clients rotate through


SCALES: dict[str, Scale] = {
    # about 1/100 of national for the replay; a few minutes of one region's club results loaded
    "small": Scale("small", 600, 4_000, 400, 160, 2, 1, 10, 10, page_members=60),
    # about 1/10 of national
    "region": Scale("region", 5_000, 40_000, 1_500, 600, 6, 3, 50, 30),
    "national": Scale("national", 50_000, 400_000, 1_500, 600, 6, 3, 50, 30),
    # for tests: seconds, nothing to load
    "tiny": Scale("tiny", 120, 150, 40, 40, 1, 1, 2, 2, clients=4, page_members=5),
}


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile (0-100) of ``values``, interpolating linearly between the
    closest ranks (numpy's default, "linear"); None for no values."""
    if not values:
        return None
    if not 0.0 <= q <= 100.0:
        raise ValueError("q must be within 0..100")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100.0
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    """numerator / denominator, or None when either is missing or the denominator is 0."""
    if not numerator or not denominator:
        return None
    return numerator / denominator


def extrapolate_seconds(measured_seconds: float, measured_units: int, total_units: int) -> float:
    """Linear extrapolation of a measured fraction of a run to the whole run."""
    if measured_units <= 0:
        raise ValueError("nothing was measured")
    return measured_seconds * total_units / measured_units


def fastest_path() -> str:
    """The compiled kernel when it is built and importable, else the lean Python kernel."""
    try:
        from grading.engine.ngs.ckernel import ckernel_available
    except ImportError:
        return "kernel"
    try:
        return "ckernel" if ckernel_available() else "kernel"
    except Exception:  # noqa: BLE001 - a broken optional build must not stop the benchmark
        return "kernel"


def fold_in_process(scale: Scale, *, seed: int, fraction: float, feed: str) -> dict[str, Any]:
    """``_ckernel_replay`` over ``scale``'s synthetic ledger in a process of its own
    (``grading.lab.replayproc``): its peak is its own, and it starts on memory no other fold
    has touched (the first touches of memory are about 3 s of a national fold on this
    machine's virtual memory)."""
    cmd = [sys.executable, "-m", "grading.lab.replayproc", "--players", str(scale.players)]
    cmd += ["--sessions", str(scale.sessions), "--seed", str(seed), "--fraction", str(fraction)]
    root = Path(__file__).resolve().parents[2]  # where ``grading`` is importable from
    done = subprocess.run(
        [*cmd, "--feed", feed], cwd=root, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"the fold's process failed: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout)


def _ckernel_replay(
    it: Iterator[LedgerOp], params: NGSParams, chunk: int, *, feed: str = "columns"
) -> dict[str, Any]:
    """The compiled kernel over ``it``. ``feed`` "columns": each session the kernel grades
    itself is handed to it as columns (``cfold.ColumnsReplay.process_columns``), as the product's
    refold and ``replay --check`` read a database; turning a chunk's sessions into columns is
    part of the ledger's generation, not timed. "objects": every operation through ``apply``,
    which reads each pair's attributes (a grading step's input)."""
    from grading.engine.ngs.cfold import ColumnsReplay
    from grading.lab.ledgercolumns import session_columns

    # the grades are counted, not kept: 14 million doubles at national scale are not the fold's
    kernel = ColumnsReplay(params, keep_grades=False)
    seconds = 0.0
    ops = 0
    while True:
        batch = _take(it, chunk)
        if not batch:
            break
        if feed == "columns":
            items = [(op, session_columns(op, kernel.member_id)) for op in batch]
            process = kernel.process_columns
            t0 = time.perf_counter()
            for op, columns in items:
                if columns is None or not process(op.seq, op.version, **columns):
                    kernel.apply(op)
        else:
            t0 = time.perf_counter()
            for op in batch:
                kernel.apply(op)
        kernel.flush()  # apply() queues: the C call runs here, inside the timed region
        seconds += time.perf_counter() - t0
        ops += len(batch)
    graded, sessions = kernel.graded, kernel.sessions
    return {
        "path": "ckernel",
        "feed": feed,
        "ops": ops,
        "sessions": sessions,
        "player_sessions": graded,
        "seconds": seconds,
        "player_sessions_per_s": graded / seconds if seconds else 0.0,
        "peak_rss_mb": peak_rss_mb(),
        "subjects": (len(kernel.players), len(kernel.partnerships)),
    }


def _ledger_slice(scale: Scale, seed: int, ops: int | None) -> Iterator[LedgerOp]:
    ledger = iter_synthetic_ledger(scale.players, scale.sessions, seed)
    return ledger if ops is None else itertools.islice(ledger, ops)


def _until_sessions(ledger: Iterable[LedgerOp], sessions: int) -> Iterator[LedgerOp]:
    """The leading operations of ``ledger`` up to its ``sessions``-th graded version."""
    count = 0
    for op in ledger:
        yield op
        if isinstance(op, ProcessOp):
            count += 1
            if count >= sessions:
                return


def _subset_ops(scale: Scale, seed: int) -> int:
    """How many leading operations of the ledger hold ``subset_sessions`` graded versions."""
    count = 0
    for n, op in enumerate(iter_synthetic_ledger(scale.players, scale.sessions, seed), 1):
        if isinstance(op, ProcessOp):
            count += 1
            if count >= scale.subset_sessions:
                return n
    return n if count else 0


def replay_suite(
    scale: Scale,
    *,
    seed: int = 1,
    fraction: float = 1.0,
    paths: Sequence[str] | None = None,
    log: Callable[[str], None] = lambda _msg: None,
) -> dict[str, Any]:
    """The replay benchmark: the fastest path over the whole ledger (or its first ``fraction``
    of operations, extrapolated to the whole and labelled so), then every path over the same
    leading subset, for the ratios. The compiled kernel's whole-ledger folds each run in a
    process of its own (``fold_in_process``), whose peak is ``peak_rss_mb`` (the generation of
    the ledger included); another path's main run goes first in this process, so that the
    process's peak is its own (Django included)."""
    main = paths[0] if paths else fastest_path()
    default = (
        [main, "kernel", "reference", "openskill"]
        if main != "kernel"
        else [main, "reference", "openskill"]
    )
    subset_paths = list(paths) if paths else default
    if main not in subset_paths:
        subset_paths.insert(0, main)
    log(
        f"replay: {main} over {scale.sessions} sessions of {scale.players} players"
        + (f" (first {fraction:.0%} of the sessions)" if fraction < 1.0 else "")
    )
    result: dict[str, Any] = {"fraction": fraction, "extrapolated": fraction < 1.0}
    if main == "ckernel":
        # each fold in a process of its own: fed as the product's whole-ledger operations feed
        # it, then fed objects, as every run before 2026-12-04 measured it
        for name, feed in (("main", "columns"), ("objects", "objects")):
            log(f"replay: ckernel fed {feed}")
            result[name] = fold_in_process(scale, seed=seed, fraction=fraction, feed=feed)
    else:
        ledger: Iterator[LedgerOp] = iter_synthetic_ledger(scale.players, scale.sessions, seed)
        if fraction < 1.0:
            ledger = _until_sessions(ledger, max(1, int(scale.sessions * fraction)))
        result["main"] = replay_benchmark(ledger, main)
    full = result["main"]
    peak = full["peak_rss_mb"]
    if fraction < 1.0 and full["sessions"]:
        # The whole ledger has about ``scale.sessions`` graded versions: scale the fraction up.
        # The leading years are cheaper per grade (shorter windows), so this is a lower bound.
        share = scale.sessions / full["sessions"]
        result["estimated_player_sessions"] = round(full["player_sessions"] * share)
        result["estimated_seconds"] = extrapolate_seconds(
            full["seconds"], full["sessions"], scale.sessions
        )
        if "objects" in result:
            objects = result["objects"]
            result["estimated_objects_seconds"] = extrapolate_seconds(
                objects["seconds"], objects["sessions"], scale.sessions
            )
    n_ops = _subset_ops(scale, seed)
    subset: dict[str, dict[str, Any]] = {}
    for path in subset_paths:
        log(f"replay: {path} over the first {scale.subset_sessions} sessions ({n_ops} operations)")
        ledger = _ledger_slice(scale, seed, n_ops)
        if path == "ckernel":  # fed objects, as the other paths are
            subset[path] = _ckernel_replay(iter(ledger), NGS_DEFAULT, 20000, feed="objects")
        else:
            subset[path] = replay_benchmark(ledger, path)
    result["subset"] = subset
    result["peak_rss_mb"] = peak
    rate = {p: r["player_sessions_per_s"] for p, r in subset.items()}
    result["reference_ratio"] = ratio(rate.get(main), rate.get("reference"))
    result["openskill_ratio"] = ratio(rate.get(main), rate.get("openskill"))
    return result
