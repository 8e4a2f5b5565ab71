"""The national fold timed alone, over a ledger turned into columns once (issue 31 item 5).

``make`` generates the synthetic ledger of a scale, turns each session the compiled fold grades
itself into the columns the refold reads (``grading.lab.ledgercolumns``) and pickles them with
the other operations and the members' numbers in the order they were first seen (about 360 MB
nationally, two minutes). ``fold`` loads that file and folds it with ``ColumnsReplay``, timing
the fold only: the same work as the benchmark's ``replay_seconds`` without the ledger's
generation beside it, so that two builds of the kernel can be compared run after run (the
benchmark's own fold spreads by about 2 s from run to run on a 2-core machine).

    python -m grading.lab.foldcolumns make [--players 50000 --sessions 400000] [--file F]
    python -m grading.lab.foldcolumns fold [--file F]

``fold`` prints one JSON object: wall and CPU seconds, player sessions graded, the kernel's
subjects and its histories' capacity in MB, the process's peak (the loaded file included).
With ``PERF_CTL`` naming perf's control FIFO (``perf record -D -1 --control=fifo:...``), the
fold alone is recorded.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import pickle
import resource
import sys
import time

from grading.engine.ngs.cfold import ColumnsReplay
from grading.engine.ngs.params import NGS_DEFAULT
from grading.lab.ledgercolumns import session_columns
from grading.lab.synthetic import iter_synthetic_ledger

FILE = "/tmp/national_columns.pickle"
CHUNK = 20000  # operations between flushes, as the benchmark's fold


def make(players: int, sessions: int, seed: int, path: str) -> dict:
    ids = ColumnsReplay(NGS_DEFAULT, keep_grades=False)  # gives the ids, folds nothing
    items = []
    for op in iter_synthetic_ledger(players, sessions, seed):
        columns = session_columns(op, ids.member_id)
        items.append(("op", op) if columns is None else ("columns", op.seq, op.version, columns))
    with open(path, "wb") as f:
        pickle.dump((ids.numbers, items), f, protocol=pickle.HIGHEST_PROTOCOL)
    return {"operations": len(items), "members": len(ids.numbers), "file": path}


def _perf(command: str) -> None:
    control = os.environ.get("PERF_CTL")
    if control:
        with open(control, "w") as f:
            f.write(command + "\n")


def fold(path: str) -> dict:
    with open(path, "rb") as f:
        numbers, items = pickle.load(f)
    gc.collect()
    gc.freeze()  # the loaded file is not the fold's to traverse
    kernel = ColumnsReplay(NGS_DEFAULT, keep_grades=False)
    for number in numbers:  # the same ids as when the columns were made
        kernel.member_id(number)
    process = kernel.process_columns
    _perf("enable")
    wall, cpu = time.perf_counter(), time.process_time()
    for start in range(0, len(items), CHUNK):
        for item in items[start : start + CHUNK]:
            if item[0] == "op":
                kernel.apply(item[1])
            elif not process(item[1], item[2], **item[3]):
                raise RuntimeError(f"sequence {item[1]}: not a session the columns carry")
        kernel.flush()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    _perf("disable")
    gc.unfreeze()
    stats = kernel._stats()
    return {
        "fold_seconds": round(wall, 2),
        "fold_cpu_seconds": round(cpu, 2),
        "player_sessions": stats[0],
        "subjects": [stats[3], stats[4]],
        "histories_mb": round(stats[5] / 2**20),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("make", "fold"))
    parser.add_argument("--players", type=int, default=50_000)
    parser.add_argument("--sessions", type=int, default=400_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--file", default=FILE)
    args = parser.parse_args(argv)
    if args.step == "make":
        out = make(args.players, args.sessions, args.seed, args.file)
    else:
        out = fold(args.file)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
