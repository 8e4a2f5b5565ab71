"""Throughput of the whole-ledger folds on the synthetic ledger (issue 18): the compiled fold
that hands member records to ``replay --check`` (``cfold.RecordsReplay``), the compiled fold
that writes (``cwrite.WritingReplay``: every figure a refold stores, each member's grade after
the step included) and, optionally, the Python producer (``foldpy.PythonFold``). The ledger is
built in memory first, so its generation is not timed; sinks only count what they are given.

    python -m grading.lab.foldbench --players 5000 --sessions 40000 [--python 4000]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time

from grading.engine.ngs import ProcessOp
from grading.engine.ngs.cfold import RecordsReplay
from grading.engine.ngs.cwrite import WritingReplay
from grading.engine.ngs.foldpy import PythonFold
from grading.lab.synthetic import synthetic_ledger


def _numbers(ledger) -> list[str]:
    return sorted(
        {
            p.number
            for op in ledger
            if isinstance(op, ProcessOp)
            for pair in op.session.pairs
            for p in pair.players
            if p.number is not None
        }
    )


def _time(fold, ledger, numbers) -> tuple[float, float]:
    """CPU seconds folding ``ledger``, then CPU seconds of the end tables (0 if none): CPU
    time, not wall time, so that other processes on the machine weigh less."""
    gc.collect()
    fold.register(numbers)
    t0 = time.process_time()
    for op in ledger:
        fold.apply(op)
    fold.flush()
    t1 = time.process_time()
    if not hasattr(fold, "histories"):
        return t1 - t0, 0.0
    day = fold.latest()
    fold.current_grades(day)
    fold.partnership_grades(day)
    fold.histories()
    return t1 - t0, time.process_time() - t1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=5000)
    parser.add_argument("--sessions", type=int, default=40000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--python", type=int, default=0, help="sessions for the Python producer")
    args = parser.parse_args(argv)
    ledger = synthetic_ledger(args.players, args.sessions, args.seed)
    numbers = _numbers(ledger)
    counted = {"records": 0, "versions": 0, "member_records": 0}

    def records(seq, version, ids, values) -> None:
        counted["records"] += len(ids)

    def versions(out) -> None:
        counted["versions"] += 1
        counted["member_records"] += len(out.rec_member)

    print(f"ledger: {len(ledger)} operations, {len(numbers)} members")
    folds = {
        "RecordsReplay": lambda: RecordsReplay(sink=records),
        "WritingReplay": lambda: WritingReplay(sink=versions),
    }
    best: dict[str, tuple[float, float]] = {}
    for _ in range(args.repeat):  # interleaved, best of each: the machine's load drifts
        for name, make in folds.items():
            got = _time(make(), ledger, numbers)
            if name not in best or got[0] < best[name][0]:
                best[name] = got
    for name, (fold, end) in best.items():
        print(f"{name}: fold {fold:.2f} s CPU ({len(ledger) / fold:,.0f} ops/s), end {end:.2f} s")
    print(
        f"per fold: {counted['records'] // args.repeat} records (RecordsReplay), "
        f"{counted['versions'] // args.repeat} versions with "
        f"{counted['member_records'] // args.repeat} member records (WritingReplay)"
    )
    if args.python:
        head = [op for op in ledger if op.seq <= args.python]
        fold, end = _time(PythonFold(sink=versions), head, numbers)
        print(
            f"PythonFold (fast) on {len(head)} operations: fold {fold:.2f} s "
            f"({len(head) / fold:,.0f} ops/s), end {end:.2f} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
