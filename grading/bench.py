"""Replay benchmarks (issue 9): time the engine's paths, and openskill, on the same ledger.

Outside the pure engine on purpose: it reads the clock and the process's memory, and imports
openskill (an optional comparison, not a dependency of the product).
"""

from __future__ import annotations

import resource
import time
from collections.abc import Iterable, Iterator
from typing import Any

from grading.engine.ngs_ledger import LedgerOp, ProcessOp, apply
from grading.engine.ngs_params import NGS_DEFAULT, NGSParams
from grading.engine.ngs_synthetic import iter_synthetic_ledger, synthetic_ledger
from grading.engine.types import Movement, PairEntry

__all__ = ["iter_synthetic_ledger", "replay_benchmark", "synthetic_ledger"]


def _peak_rss_mb() -> float:
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
        from grading.engine.ngs_kernel import KernelReplay

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
        from grading.engine.ngs_ledger import ReplayState

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
        "peak_rss_mb": _peak_rss_mb(),
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
        "peak_rss_mb": _peak_rss_mb(),
        "subjects": (len(ratings), 0),
    }
