"""The cost of one Brambledown update (S11) after an upload at a built database's club: a new
session of the club's open quarter, after its last one (``--case open``), or one dated today,
which closes the quarters in between (``--case today``, the load benchmark's first upload).
Everything runs in one transaction, rolled back: the database is left as it was. A database
whose schema predates ``BrambledownMemberState`` gets the tables it lacks as temporary tables
(shadowing its own for this connection; rolled back with the rest), filled by a full update.

    DATABASE_URL=postgres://.../grading_nat python -m grading.lab.bdbench --club club-281

Prints JSON: the update's wall and CPU seconds, the path it took, its statements, its peak
Python memory (tracemalloc, a separate pass) and the process's peak RSS, and the top of a
cProfile (a third pass). Run it from a checkout whose code is to be measured.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import io
import json
import os
import pstats
import time
import tracemalloc

from grading.lab.bench import peak_rss_mb


def _shadow_tables(connection) -> bool:
    """The rows' tables as temporary tables when the database lacks them (see the module)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass('public.grading_brambledownmemberstate') IS NOT NULL")
        if cursor.fetchone()[0]:
            return False
        cursor.execute(
            "CREATE TEMP TABLE grading_brambledownclubstate "
            "(LIKE public.grading_brambledownclubstate INCLUDING ALL)"
        )
        cursor.execute(
            "INSERT INTO grading_brambledownclubstate SELECT * FROM public.grading_brambledownclubstate"
        )
        cursor.execute(
            "ALTER TABLE grading_brambledownclubstate ADD COLUMN seq bigint NOT NULL DEFAULT 0, "
            "ADD COLUMN last_key jsonb NOT NULL DEFAULT '[]', "
            "ADD COLUMN recorded integer NOT NULL DEFAULT 0, ADD COLUMN latest date"
        )
        cursor.execute(
            "CREATE TEMP TABLE grading_brambledownmemberstate (id bigserial PRIMARY KEY, "
            "club_id bigint NOT NULL, number varchar(20) NOT NULL, grade smallint, "
            "first_iprs jsonb NOT NULL, quarter_iprs jsonb NOT NULL, tournaments integer "
            "NOT NULL, quarters jsonb NOT NULL, partners jsonb NOT NULL, history jsonb NOT NULL, "
            "last_quarter varchar(6) NOT NULL, "
            "CONSTRAINT bd_member_state_once UNIQUE (club_id, number))"
        )
        cursor.execute(
            "CREATE TEMP TABLE grading_brambledownpairstate (id bigserial PRIMARY KEY, "
            "club_id bigint NOT NULL, first varchar(20) NOT NULL, second varchar(20) NOT NULL, "
            "tournaments integer NOT NULL, quarters jsonb NOT NULL, last_quarter varchar(6) NOT NULL, "
            "CONSTRAINT bd_pair_state_once UNIQUE (club_id, first, second))"
        )
        for table in ("grading_brambledownmemberstate", "grading_brambledownpairstate"):
            cursor.execute(f"CREATE INDEX ON {table} (club_id, last_quarter)")
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--club", default="club-281")
    parser.add_argument("--case", choices=("open", "today"), default="open")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "grading.settings")
    django.setup()
    from django.db import connection, transaction

    import grading.schemes.after_step as fold_module
    from clubs.models import Club
    from grading.engine.brambledown import Quarter
    from grading.lab.bench_setup import club_upload_files
    from grading.ledger.lock import ledger_head_lock
    from grading.models import BrambledownClubState, BrambledownGrade, SessionVersion
    from grading.schemes.brambledown.update import brambledown_club_update
    from grading.tasks import grade_upload
    from grading.uploads.services import upload_create

    club = Club.objects.get(slug=args.club)
    report: dict = {"club": club.slug, "case": args.case, "rss_start_mb": round(peak_rss_mb(), 1)}
    real = fold_module.brambledown_club_update
    with transaction.atomic():
        ledger_head_lock()
        shadowed = _shadow_tables(connection)
        report["shadow_tables"] = shadowed
        row = BrambledownClubState.objects.get(club=club)
        if shadowed or not getattr(row, "seq", 1):  # the rows a rebuild writes
            t0 = time.perf_counter()
            brambledown_club_update(club=club, replay=True)
            report["rows_filled_s"] = round(time.perf_counter() - t0, 3)
            row.refresh_from_db()
        latest = (
            SessionVersion.objects.filter(session__event__club=club, scoring="MP")
            .order_by("-session__date")
            .values_list("session__date", flat=True)
            .first()
        )
        day = latest + dt.timedelta(days=1) if args.case == "open" else dt.date.today()
        if args.case == "open" and str(Quarter.of(day)) != row.open_quarter:
            day = latest  # (the quarter's last day: a second session that day)
        numbers = list(
            BrambledownGrade.objects.filter(club=club)
            .order_by("-last_date")
            .values_list("member__national_number", flat=True)[:200]
        )
        _, files = club_upload_files(club.slug, numbers, 1, today=day + dt.timedelta(days=1))
        report.update(
            regraded=row.regraded,
            open_quarter=row.open_quarter,
            latest=str(latest),
            session_date=str(day),
        )
        passes = {}

        def measured(**kwargs):
            mode = passes["mode"]
            started, cpu = time.perf_counter(), time.process_time()
            statements = [0]

            def count(execute, sql, params, many, context):
                statements[0] += 1
                return execute(sql, params, many, context)

            with connection.execute_wrapper(count):
                if mode == "profile":
                    profile = cProfile.Profile()
                    result = profile.runcall(real, **kwargs)
                elif mode == "memory":
                    tracemalloc.start()
                    result = real(**kwargs)
                    passes["peak_mb"] = round(tracemalloc.get_traced_memory()[1] / 2**20, 1)
                    tracemalloc.stop()
                else:
                    result = real(**kwargs)
            passes["seconds"] = round(time.perf_counter() - started, 3)
            passes["cpu_seconds"] = round(time.process_time() - cpu, 3)
            passes["statements"] = statements[0]
            passes["path"] = (
                "fast"
                if getattr(result, "fast", False)
                else "replay"
                if result.replayed
                else "open"
            )
            if mode == "profile":
                out = io.StringIO()
                pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(args.top)
                passes["profile"] = out.getvalue()
            return result

        fold_module.brambledown_club_update = measured
        try:
            for mode in ("time", "memory", "profile"):
                passes["mode"] = mode
                with transaction.atomic():
                    upload = upload_create(club=club, filename=files[0][0], data=files[0][1])
                    assert upload.status == "stored", (upload.status, upload.problems)
                    grade_upload(upload.pk)
                    transaction.set_rollback(True)
                if mode == "time":
                    report.update(
                        {k: passes[k] for k in ("seconds", "cpu_seconds", "statements", "path")}
                    )
                    report["rss_after_mb"] = round(peak_rss_mb(), 1)
                elif mode == "memory":
                    report["tracemalloc_peak_mb"] = passes["peak_mb"]
                else:
                    report["profile_seconds"] = passes["seconds"]
                    profile_text = passes["profile"]
        finally:
            fold_module.brambledown_club_update = real
        transaction.set_rollback(True)
    print(json.dumps(report, indent=1))
    print(profile_text)


if __name__ == "__main__":
    main()
