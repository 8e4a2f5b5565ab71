"""Where an upload's grading step spends its time, on a given database (issue 17): the upload's
parsing and storing, the subject rows read, the windows built, ``apply``, the stores, PPI,
page invalidation. Nothing is kept: every upload is stored and graded in one transaction that
is rolled back (a national database may be profiled read-only).

It takes the club without Brambledown with the most members, makes ``UPLOADS + 1`` 12-table
files as the bench does (``club_upload_files``: 48 of the club's graded members, one session a
day), dated the days before today (the bench's) or, with ``--after-head``, the days after the
ledger's reference date (every window then holds 3 full years), and grades them as the worker
does (``upload_create``, ``versions_grade_pending``); the first is a warm-up. Prints the rows
the steps read (``subjects.rows_read``), the worker's and PostgreSQL's CPU per upload, and per
phase the wall and CPU time (exclusive), the SQL's wall time and the queries.

Run it by path from the tree to profile (its code is the one imported), so that two trees
(before and after a change) are measured with the same script::

    cd TREE && DATABASE_URL=postgres://...  python /path/to/grading/lab/stepprofile.py \\
        LABEL [--uploads 10] [--after-head] [--cprofile]
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import io
import os
import pstats
import sys
import time
from collections import defaultdict

PHASES = (  # (module, function, label): a function missing from the tree profiled is skipped
    ("grading.uploads.services", "upload_create", "upload parse+store"),
    ("grading.ledger.step", "subjects_state", "subjects: read rows"),
    ("grading.ledger.subjects", "state_fill", "subjects: fill histories"),
    ("grading.ledger.step_reads", "_live_dates", "subjects: live dates"),
    ("grading.engine.ngs.incremental", "IncrementalHistory._bound", "windows: build (in apply)"),
    ("grading.ledger.step", "apply", "apply"),
    ("grading.ledger.store", "subjects_store", "store: subject rows"),
    ("grading.ledger.store", "store_pair_figures", "store: pair figures"),
    ("grading.ledger.store", "store_grades", "store: current+partnership grades"),
    ("grading.ledger.step", "store_step", "store: session grades"),
    ("grading.ledger.step", "after_step_run", "schemes (PPI, Brambledown)"),
    ("grading.ledger.step", "member_pages_invalidate", "page invalidation"),
    ("grading.ledger.step", "approved_host_pair", "host pair"),
    ("grading.ledger.step", "uploads_finish", "finish uploads"),
)

wall: dict[str, float] = defaultdict(float)  # exclusive, per phase
cpu: dict[str, float] = defaultdict(float)
sql: dict[str, float] = defaultdict(float)
queries: dict[str, int] = defaultdict(int)
stack = ["other"]


def _wrap(module_name: str, name: str, label: str) -> None:
    import importlib

    try:
        owner = importlib.import_module(module_name)
    except ImportError:
        return
    *path, attr = name.split(".")
    for part in path:
        owner = getattr(owner, part)
    fn = getattr(owner, attr, None)
    if fn is None:
        return

    def timed(*args, **kwargs):
        stack.append(label)
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            spent, used = time.perf_counter() - t0, time.process_time() - c0
            stack.pop()
            wall[label] += spent
            wall[stack[-1]] -= spent
            cpu[label] += used
            cpu[stack[-1]] -= used

    setattr(owner, attr, timed)


def _sql(execute, statement, params, many, context):
    t0 = time.perf_counter()
    try:
        return execute(statement, params, many, context)
    finally:
        sql[stack[-1]] += time.perf_counter() - t0
        queries[stack[-1]] += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("label")
    parser.add_argument("--uploads", type=int, default=10)
    parser.add_argument("--after-head", action="store_true")
    parser.add_argument("--cprofile", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, os.getcwd())
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "grading.settings")
    import django

    django.setup()
    from django.db import connection, transaction
    from django.db.models import Count

    from clubs.models import Club
    from grading.lab.bench_setup import club_upload_files
    from grading.ledger import step as fold
    from grading.ledger import subjects
    from grading.models import LedgerHead
    from grading.uploads import services
    from members.models import Member

    for phase in PHASES:
        _wrap(*phase)
    club = (
        Club.objects.filter(keeps_brambledown=False)
        .annotate(n=Count("roles"))
        .order_by("-n", "pk")
        .first()
    )
    numbers = list(
        Member.objects.filter(club_roles__club=club, current_grade__isnull=False)
        .order_by("pk")
        .values_list("national_number", flat=True)[:400]
    )
    head = LedgerHead.objects.get()
    n = args.uploads
    today = head.reference_date + dt.timedelta(days=n + 2) if args.after_head else None
    slug, files = club_upload_files(club.slug, numbers, n + 1, today=today)
    print(
        f"{args.label}: {connection.settings_dict['NAME']}, club {slug} ({len(numbers)} graded "
        f"members), ledger seq {head.last_seq}, reference date {head.reference_date}, uploads "
        f"dated from {files[0][0][10:18]}"
    )
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]

    def server_cpu() -> float:  # the PostgreSQL backend's CPU seconds (same machine)
        with open(f"/proc/{backend}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    profiler = cProfile.Profile()
    walls, cpus, servers, reads = [], [], [], []
    with connection.execute_wrapper(_sql), transaction.atomic():
        for i, (name, data) in enumerate(files):
            if i == 1:
                for table in (wall, cpu, sql, queries):
                    table.clear()
            before, t0, c0, s0 = (
                subjects.rows_read,
                time.perf_counter(),
                time.process_time(),
                server_cpu(),
            )
            if args.cprofile and i:
                profiler.enable()
            upload = services.upload_create(club=club, filename=name, data=data)
            fold.versions_grade_pending()
            profiler.disable()
            if i:
                walls.append(time.perf_counter() - t0)
                cpus.append(time.process_time() - c0)
                servers.append(server_cpu() - s0)
                reads.append(subjects.rows_read - before)
            upload.refresh_from_db()
            assert upload.status == "graded", upload.status
        transaction.set_rollback(True)
    _report(n, walls, cpus, servers, reads)
    if args.cprofile:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(30)
        print(out.getvalue())


def _report(n: int, walls, cpus, servers, reads) -> None:
    def median(values) -> float:
        return sorted(values)[len(values) // 2] * 1000

    print(
        f"{n} uploads: rows read per upload {sum(reads) / n:.0f}; per upload, median (min): "
        f"wall {median(walls):.0f} ({min(walls) * 1000:.0f}) ms, worker CPU "
        f"{median(cpus):.0f} ({min(cpus) * 1000:.0f}) ms, PostgreSQL CPU {median(servers):.0f} "
        f"({min(servers) * 1000:.0f}) ms"
    )
    for table, total in ((wall, sum(walls)), (cpu, sum(cpus))):
        table.pop("other", None)
        table["other (not in a phase)"] = total - sum(table.values())
    sql["other (not in a phase)"] = sql.pop("other", 0.0)
    queries["other (not in a phase)"] = queries.pop("other", 0)
    print(f"{'phase, ms per upload':36s} {'wall':>7s} {'cpu':>7s} {'sql wall':>8s} {'queries':>7s}")
    for label in sorted(wall, key=lambda k: -cpu[k]):
        print(
            f"{label:36s} {wall[label] * 1000 / n:7.1f} {cpu[label] * 1000 / n:7.1f} "
            f"{sql[label] * 1000 / n:8.1f} {queries[label] / n:7.1f}"
        )


if __name__ == "__main__":
    main()
