"""One fold of the replay benchmark in a process of its own (issue 31 item 5): the compiled
kernel over the synthetic ledger, fed ``columns`` or ``objects``, its figures printed as one JSON
object (``grading.lab.bench._ckernel_replay``'s). The benchmark starts one per fold
(``bench.fold_in_process``), so that each fold has its own peak and starts on memory no other
fold touched.

    python -m grading.lab.replayproc --players 5000 --sessions 40000 [--fraction F] [--feed objects]
"""

from __future__ import annotations

import argparse
import json
import sys

from grading.engine.ngs.params import NGS_DEFAULT
from grading.lab.bench import _ckernel_replay, _until_sessions
from grading.lab.synthetic import iter_synthetic_ledger


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--sessions", type=int, required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fraction", type=float, default=1.0)
    parser.add_argument("--feed", choices=("columns", "objects"), default="columns")
    args = parser.parse_args(argv)
    ledger = iter_synthetic_ledger(args.players, args.sessions, args.seed)
    if args.fraction < 1.0:
        ledger = _until_sessions(ledger, max(1, int(args.sessions * args.fraction)))
    print(json.dumps(_ckernel_replay(ledger, NGS_DEFAULT, 20000, feed=args.feed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
