"""One merge of two numbers of one person (S15, ``grading.staff.merge.members_merge``) timed on a
built database (issue 27: "a merge costs no more than the existing staff refold"). Not product
code.

Two members with long histories who never played in the same session (the most sessions in
their grading window, neither pair both with a login) are merged, and what the merge queues is
run in this process, in order, as the worker would: the refold of the whole ledger
(``ledger_refold``, the staff refold itself) and the schemes' rebuild. Everything happens in one
transaction that is rolled back at the end, so the database is left as it was (pages may have
been dropped from the page cache). ``--baseline`` first times a refold with nothing merged, in
the same transaction, for the comparison.

``DATABASE_URL=... python -m grading.lab.mergebench [--baseline]`` prints one JSON object; the
national bench (``manage.py bench``) runs it on its database after the uploads and the pages
(``merge_bench_on``) and reports ``merge_seconds`` (request, refold and rebuild together); with
``BENCH_MERGE_BASELINE=1`` in its environment the baseline refold too (``refold_seconds`` under
``merge``).
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from grading.lab.bench import peak_rss_mb

CANDIDATES = 40


class _Rollback(Exception):
    pass


def _pair() -> tuple[Any, Any, int, int]:
    """The two members merged: ``(merged, survivor, merged's sessions, survivor's sessions)``.
    The survivor is one of the busiest members; the merged number the busiest member who never
    played in one of the survivor's sessions (a merge of two who did is refused), the two not
    both with a login. The merged number is looked for among every member, not only the
    busiest: in a region's three months the busiest have all met, and most of them have logins."""
    from django.db.models import Q

    from grading.models import PairResult
    from members.models import Member

    busiest = _busiest_first()
    ids = list(busiest.values_list("pk", flat=True)[:CANDIDATES])

    def sessions_of(pk: int) -> set[int]:
        return set(
            PairResult.objects.filter(Q(player1_id=pk) | Q(player2_id=pk)).values_list(
                "version__session_id", flat=True
            )
        )

    for new_pk in ids:
        new = Member.objects.get(pk=new_pk)
        played = sessions_of(new_pk)
        met = {new_pk}
        for one, two in PairResult.objects.filter(version__session_id__in=played).values_list(
            "player1_id", "player2_id"
        ):
            met.update((one, two))
        unmet = busiest.exclude(pk__in=met)
        if new.user_id:
            unmet = unmet.filter(user__isnull=True)
        old_pk = unmet.values_list("pk", flat=True).first()
        if old_pk is not None:
            old = Member.objects.get(pk=old_pk)
            return old, new, len(sessions_of(old_pk)), len(played)
    raise RuntimeError("no two mergeable members: each busy member played with every other")


def _busiest_first():
    """Every member not merged away, the busiest first: by their current grade's sessions in
    the window, or (no current grades yet) by their session grades."""
    from django.db.models import Count

    from members.models import Member

    alive = Member.objects.filter(merged_into__isnull=True)
    graded = alive.filter(current_grade__isnull=False)
    if graded.exists():
        return graded.order_by("-current_grade__sessions_in_window", "pk")
    counted = alive.annotate(n=Count("session_grades")).filter(n__gt=0)
    return counted.order_by("-n", "pk")


def merge_bench(*, baseline: bool = False) -> dict:
    """Time one merge and what it queues, rolled back. Django must be set up."""
    from django.db import transaction

    from grading.ledger.replay.check import ledger_refold
    from grading.models import SessionGrade
    from grading.schemes.rebuild.run import schemes_rebuild
    from grading.staff.merge import members_merge

    figures: dict[str, Any] = {}
    t0 = time.perf_counter()
    old, new, old_sessions, new_sessions = _pair()
    figures["merge_pick_seconds"] = round(time.perf_counter() - t0, 2)
    figures.update(
        merge_members=[old.national_number, new.national_number],
        merge_sessions=[old_sessions, new_sessions],
    )
    try:
        with transaction.atomic():
            if baseline:
                t0 = time.perf_counter()
                ledger_refold()
                figures["refold_seconds"] = round(time.perf_counter() - t0, 2)
            t0 = time.perf_counter()
            result = members_merge(
                merged=old.national_number,
                survivor=new.national_number,
                reason="merge benchmark (rolled back)",
            )
            figures["merge_move_seconds"] = round(time.perf_counter() - t0, 2)
            figures["merge_pair_rows"] = result.pair_rows
            figures["merge_versions"] = result.versions
            # What the merge queued (run when its transaction commits), run here in order.
            t0 = time.perf_counter()
            figures["merge_refold_entries"] = ledger_refold()
            figures["merge_refold_seconds"] = round(time.perf_counter() - t0, 2)
            t0 = time.perf_counter()
            schemes_rebuild()
            figures["merge_schemes_seconds"] = round(time.perf_counter() - t0, 2)
            figures["merge_seconds"] = round(
                figures["merge_move_seconds"]
                + figures["merge_refold_seconds"]
                + figures["merge_schemes_seconds"],
                2,
            )
            # The merged number has no grade left of its own: the survivor has them all.
            figures["merge_left_on_merged"] = SessionGrade.objects.filter(member=old).count()
            raise _Rollback
    except _Rollback:
        pass
    figures["merge_peak_rss_mb"] = round(peak_rss_mb())
    return figures


def merge_bench_on(stack) -> dict:
    """``manage.py bench``: this module in a child process on the benchmark database
    (``grading.lab.load.BenchStack``). ``merge_seconds`` and the detail under ``merge``; a
    failure is reported there rather than losing the run's other figures."""
    try:
        baseline = ["--baseline"] if os.environ.get("BENCH_MERGE_BASELINE") == "1" else []
        out = stack._run("-m", "grading.lab.mergebench", *baseline)
        figures = json.loads(out.strip().splitlines()[-1])
    except (RuntimeError, ValueError, IndexError) as exc:
        return {"merge_seconds": None, "merge": {"error": str(exc)[-2000:]}}
    return {"merge_seconds": figures.get("merge_seconds"), "merge": figures}


def main(argv: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "grading.settings")
    import django

    django.setup()
    print(json.dumps(merge_bench(baseline="--baseline" in argv)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
