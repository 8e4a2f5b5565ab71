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
(``merge_bench_on``) and reports ``merge_seconds`` (request, refold and rebuild together).
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from typing import Any

CANDIDATES = 40


class _Rollback(Exception):
    pass


def _pair() -> tuple[Any, Any, int, int]:
    """The two members merged: ``(merged, survivor, merged's results, survivor's results)``."""
    from django.db.models import Count, Q

    from grading.models import CurrentGrade, PairResult, SessionGrade
    from members.models import Member

    ids = list(
        CurrentGrade.objects.filter(member__merged_into__isnull=True)
        .order_by("-sessions_in_window", "member_id")
        .values_list("member_id", flat=True)[:CANDIDATES]
    )
    if not ids:
        ids = [
            row["member"]
            for row in SessionGrade.objects.values("member")
            .annotate(n=Count("id"))
            .order_by("-n", "member")[:CANDIDATES]
        ]
    members = {m.pk: m for m in Member.objects.filter(pk__in=ids, merged_into__isnull=True)}
    sessions = {
        pk: set(
            PairResult.objects.filter(Q(player1_id=pk) | Q(player2_id=pk)).values_list(
                "version__session_id", flat=True
            )
        )
        for pk in ids
        if pk in members
    }
    order = [pk for pk in ids if pk in sessions]
    for i, a in enumerate(order):
        for b in order[i + 1 :]:
            if sessions[a] & sessions[b] or (members[a].user_id and members[b].user_id):
                continue
            # The one with fewer sessions is merged into the other.
            old, new = (a, b) if len(sessions[a]) <= len(sessions[b]) else (b, a)
            return members[old], members[new], len(sessions[old]), len(sessions[new])
    raise RuntimeError(f"no two of the {len(order)} busiest members are mergeable")


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
    figures["merge_peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return figures


def merge_bench_on(stack) -> dict:
    """``manage.py bench``: this module in a child process on the benchmark database
    (``grading.lab.load.BenchStack``). ``merge_seconds`` and the detail under ``merge``; a
    failure is reported there rather than losing the run's other figures."""
    try:
        out = stack._run("-m", "grading.lab.mergebench")
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
