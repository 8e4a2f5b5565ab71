"""The bulk refold timed on a database (issue 18): a refold with the same parameter set (nothing
to write), then a change of set and back (every row rewritten), each with what it wrote and
where its time went; then ``replay --check``. Not product code; it changes the ledger head's
set and puts it back, so run it on a benchmark database only:

``DATABASE_URL=... manage.py shell -c "from grading.lab.refoldbench import main; main([])"``
(on a database ``grading.lab.ledgerdb`` loaded; ``main(['--profile'])`` also writes cProfile
listings to ``/tmp/refold_profile_*.txt``). Prints one JSON object per run.
"""

from __future__ import annotations

import cProfile
import io
import json
import pstats
import resource
import time
from typing import Any

from grading.ledger.replay import check
from grading.ledger.replay import run as replay_run
from grading.models import LedgerHead, SessionGrade

OTHER_SET = "fr18-factors"  # differs from ngs-15a in the Butler, cross-IMP and Swiss factors


def _run(name: str, profile: bool) -> dict[str, Any]:
    prof = cProfile.Profile() if profile else None
    t0, c0 = time.perf_counter(), time.process_time()
    if prof is not None:
        prof.enable()
    check.ledger_refold()
    if prof is not None:
        prof.disable()
        text = io.StringIO()
        pstats.Stats(prof, stream=text).sort_stats("cumulative").print_stats(45)
        with open(f"/tmp/refold_profile_{name}.txt", "w") as f:
            f.write(text.getvalue())
    stats = replay_run.last_refold["stats"]
    return {
        "run": name,
        "wall": round(time.perf_counter() - t0, 2),
        "cpu": round(time.process_time() - c0, 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "engine": replay_run.last_refold["engine"],
        "records": stats.records,
        "written": {k: v for k, v in stats.written.items() if v},
        "seconds": {k: round(v, 3) for k, v in stats.seconds.items()},
    }


def main(argv: list[str]) -> int:
    profile = "--profile" in argv
    head = LedgerHead.objects.get()
    own = head.params_name
    other = OTHER_SET if own != OTHER_SET else "ngs-15a"
    runs = [("same_set", own), ("set_changed", other), ("set_back", own), ("same_again", own)]
    try:
        for name, params in runs:
            LedgerHead.objects.filter(pk=head.pk).update(params_name=params)
            print(json.dumps(_run(name, profile)), flush=True)
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
