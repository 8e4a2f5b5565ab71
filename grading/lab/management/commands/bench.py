"""``manage.py bench``: the issue 9 benchmarks, side by side in one run.

1. Replay: the fastest engine path over the synthetic ledger of the scale, and every path
   (fastest, reference, openskill) over the same leading subset for the ratios.
2. Upload to visible grade: a dedicated PostgreSQL database loaded with a simulated world, one
   Celery worker (solo pool) and gunicorn; 12-table USEBIO files posted through the API and
   polled until graded.
3. Pages under load: the grade card and session history of random members and a club's grade
   list, wrk with 50 connections against gunicorn (2 workers, DJANGO_DEBUG=0), then a no-op
   Django view on the same gunicorn (the machine's floor).

``--scale national`` builds its database with the national builder (``manage.py national``,
COPY) instead of the upload pipeline, and times its uploads in turns with a region database's,
in the same run, so that growth is a ratio (issue 17) taken on the same minutes of the machine
(``grading/lab/uploadbench.py``).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import subprocess
import time
from pathlib import Path
from urllib.parse import urlparse, urlunparse

from django.core.management.base import BaseCommand, CommandError

from grading.engine.ngs.clib import ckernel_available
from grading.engine.ppi.cbulk import cbulk_available
from grading.lab.bench import SCALES, replay_suite
from grading.lab.evening import empty_report as evening_empty_report

BASE_DIR = Path(__file__).resolve().parents[3]


def _broker_after(url: str, offset: int) -> str:
    """The Redis URL ``offset`` databases after ``url``'s (a second stack's own broker)."""
    if not offset:
        return url
    parsed = urlparse(url)
    number = int(parsed.path.strip("/") or 0) + offset
    return urlunparse(parsed._replace(path=f"/{number}"))


def machine() -> dict:
    """nproc, memory, CPU model, date, git commit and Python."""
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gb = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_gb = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=BASE_DIR,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain"], cwd=BASE_DIR, capture_output=True, text=True
        ).stdout.strip()
        commit += " (uncommitted changes)" if dirty else ""
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    return {
        "nproc": os.cpu_count(),
        "memory_gb": mem_gb,
        "cpu": cpu or platform.processor(),
        "date": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "commit": commit,
        "python": platform.python_version(),
    }


class Command(BaseCommand):
    help = "Replay, upload-to-grade and page-load benchmarks (issue 9); see docs/benchmarks.md."

    def add_arguments(self, parser):
        parser.add_argument("--scale", choices=sorted(SCALES), default="small")
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.add_argument("--skip-upload", action="store_true")
        parser.add_argument("--skip-pages", action="store_true")
        parser.add_argument("--skip-replay", action="store_true")
        # issue 28: the national evening (grading/lab/evening.py), after the pages
        parser.add_argument("--skip-evening", action="store_true")
        parser.add_argument("--evening-sessions", type=int, help="default: the scale's")
        parser.add_argument("--skip-refold", action="store_true")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument(
            "--replay-fraction",
            type=float,
            default=1.0,
            help="replay only this leading fraction of the ledger and extrapolate (labelled)",
        )
        parser.add_argument("--uploads", type=int, help="uploads timed (default: the scale's)")
        parser.add_argument("--page-seconds", type=int, help="wrk duration (default: the scale's)")
        parser.add_argument("--clients", type=int, help="concurrent connections (default 50)")
        parser.add_argument(
            "--pg-url",
            default=os.environ.get("BENCH_PG_URL", "postgres://postgres@127.0.0.1:5432/postgres"),
            help="PostgreSQL server (maintenance database) on loopback",
        )
        parser.add_argument(
            "--redis-url",
            default=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/13"),
            help="a Redis database of its own for the broker (flushed)",
        )
        parser.add_argument("--keep", action="store_true", help="keep the database (debugging)")
        parser.add_argument(
            "--from-database",
            default="",
            help="the national pass starts from a copy of this database (one `manage.py "
            "national` built, left as it is) instead of building its own",
        )
        parser.add_argument(
            "--skip-merge",
            action="store_true",
            help="no merge of two numbers at the end (at national size it refolds the ledger "
            "and rebuilds the schemes: minutes)",
        )

    def handle(self, *args, **options):
        scale = SCALES[options["scale"]]
        if not 0.0 < options["replay_fraction"] <= 1.0:
            raise CommandError("--replay-fraction must be in (0, 1]")
        if scale.name == "national" and not ckernel_available():
            # without it the build and the refolds fold in Python: hours and over 10 GB
            raise CommandError(
                "the compiled kernel is not built: `python -m grading.engine.ngs.ckernel "
                "--build` (a national run without it takes hours and over 10 GB)"
            )
        as_json = options["json"]

        def log(message: str) -> None:
            (self.stderr if as_json else self.stdout).write(message)

        ppi_compiled = cbulk_available()
        if scale.name == "national" and not ppi_compiled:
            # the schemes' rebuild (the build's last phase, a merge's) then folds PPI in Python
            log(
                "bench: warning: PPI's compiled fold is not built (`python -m "
                "grading.engine.ppi.cbulk --build`): the schemes' rebuild folds it in Python "
                "(163 s against 129 s nationally, docs/benchmarks.md session 30)"
            )
        began = time.perf_counter()
        report: dict = {"scale": scale.name, "machine": machine(), "ppi_compiled": ppi_compiled}
        if not options["skip_replay"]:
            replay = replay_suite(
                scale, seed=options["seed"], fraction=options["replay_fraction"], log=log
            )
            main = replay["main"]
            extrapolated = replay["extrapolated"]
            report.update(
                player_sessions=replay.get("estimated_player_sessions", main["player_sessions"]),
                replay_path=main["path"],
                replay_sessions=main["sessions"],
                replay_seconds=replay.get("estimated_seconds", main["seconds"]),
                replay_feed=main.get("feed"),
                replay_objects_seconds=replay.get(
                    "estimated_objects_seconds", replay.get("objects", {}).get("seconds")
                ),
                replay_player_sessions_per_s=main["player_sessions_per_s"],
                replay_extrapolated=extrapolated,
                replay_fraction=replay["fraction"],
                reference_ratio=replay["reference_ratio"],
                openskill_ratio=replay["openskill_ratio"],
                peak_rss_mb=replay["peak_rss_mb"],
                replay=replay,
            )
        else:
            report.update(
                player_sessions=None,
                replay_seconds=None,
                replay_objects_seconds=None,
                replay_player_sessions_per_s=None,
                reference_ratio=None,
                openskill_ratio=None,
                peak_rss_mb=None,
            )
        report.update(
            db_session_grades=None,
            upload_p50_ms=None,
            upload_p95_ms=None,
            upload_p95_region_ms=None,
            worker_start_s=None,
            worker_rss_mb=None,
            page_p50_ms=None,
            page_p95_ms=None,
            page_rps=None,
            page_floor_p95_ms=None,
            page_floor_rps=None,
            page_warm_p95_ms=None,
            page_warm_rps=None,
            page_burst_p95_ms=None,
            page_burst_rps=None,
            page_warm_p95_ratio=None,
            page_warm_rps_share=None,
            page_burst_p95_ratio=None,
            page_burst_rps_share=None,
            **evening_empty_report(),
        )
        if not (options["skip_upload"] and options["skip_pages"]):
            self._services(scale, options, report, log)
        report["total_seconds"] = time.perf_counter() - began
        if as_json:
            self.stdout.write(json.dumps(report, default=_jsonable))
        else:
            self._print(report)

    def _services(self, scale, options, report: dict, log) -> dict:
        """The service benchmarks on a stack of ``scale``. Nationally the uploads are timed in
        turns with a region stack's (``uploads_paired``): their ratio is a target."""
        from grading.lab.uploadbench import upload_benchmark, uploads_paired

        count = options["uploads"] or scale.uploads
        stack = region = None
        try:
            stack = self._stack(scale, options, report, log)
            if scale.name == "national" and not options["skip_upload"]:
                report["region"] = {}
                region = self._stack(
                    SCALES["region"], options, report["region"], log, broker_after=1
                )
                figures, national = uploads_paired(region, stack, count)
                self._uploaded(report["region"], figures, "region", log)
                report["upload_p95_region_ms"] = figures["p95_ms"]
                self._uploaded(report, national, scale.name, log)
                if not options["skip_refold"]:  # the whole-ledger operations at its size
                    from grading.lab.broker import queue_wait
                    from grading.lab.refoldbench import refold_figures

                    # the national uploads' follow-up work (their pages rendered ahead) done
                    # first: the region's refolds are timed alone on the machine
                    waited = queue_wait(stack.redis_url, 600.0, log)
                    report["region"]["refold_waited_s"] = round(waited, 1)
                    report["region"].update(refold_figures(region, log))
                region.close()  # before the pages: its processes idle, but they hold memory
                region = None
            elif not options["skip_upload"]:
                self._uploaded(report, upload_benchmark(stack, count), scale.name, log)
            self._after_uploads(stack, scale, options, report, log)
        except KeyboardInterrupt:
            raise
        except Exception as exc:
            raise CommandError(f"bench: {exc}") from exc
        finally:
            for opened in (region, stack):
                if opened is not None:
                    opened.close()
        return report

    @staticmethod
    def _uploaded(report: dict, upload: dict, label: str, log) -> None:
        """An upload benchmark's figures into ``report``, and logged as they come."""
        report.update(
            upload_p50_ms=upload["p50_ms"],
            upload_p95_ms=upload["p95_ms"],
            worker_start_s=upload["worker_start_s"],
            worker_rss_mb=upload["worker_rss_mb"],
            upload=upload,
        )
        shown = {k: v for k, v in upload.items() if not isinstance(v, list)}
        log(f"bench: {label} upload: {json.dumps(shown, default=_jsonable)}")

    def _stack(self, scale, options, report: dict, log, broker_after: int = 0):
        """A benchmark stack of ``scale``, its database made and gunicorn started;
        ``broker_after``: its broker that many Redis databases after the option's."""
        from grading.lab.load import NATIONAL_CLUBS, BenchStack

        stack = BenchStack(
            scale,
            pg_url=options["pg_url"],
            redis_url=_broker_after(options["redis_url"], broker_after),
            log=log,
            keep=options["keep"],
            template=options["from_database"] if scale.name == "national" else "",
        )
        try:
            stack.open()
            national = scale.name == "national"
            report["database"] = {
                # nationally the database is ``manage.py national``'s, not the simulated one's
                **(
                    {"players": scale.players, "clubs": NATIONAL_CLUBS, "sessions": scale.sessions}
                    if national
                    else {
                        "players": scale.sim_players,
                        "clubs": scale.sim_clubs,
                        "months": scale.sim_months,
                    }
                ),
                "load_seconds": stack.load_seconds,
                **stack.state["counts"],
            }
            if national:  # the build's figures (none when copied: --from-database)
                report["national_build"] = stack.build
            report["db_session_grades"] = stack.state["counts"]["session_grades"]
            stack.start_gunicorn()
        except BaseException:
            stack.close()
            raise
        return stack

    def _after_uploads(self, stack, scale, options, report: dict, log) -> None:
        def figures(phase: str, keys: dict) -> None:
            # Each phase's figures as they come, so that a run stopped before its end (a
            # national run is hours on a slow machine) still leaves what it measured.
            log(f"bench: {scale.name} {phase}: {json.dumps(keys, default=_jsonable)}")

        if not options["skip_pages"]:
            measured = stack.page_benchmark(
                options["page_seconds"] or scale.page_seconds,
                options["clients"] or scale.clients,
            )
            report.update(
                page_p50_ms=measured["p50_ms"],
                page_p95_ms=measured["p95_ms"],
                page_rps=measured["rps"],
                page_floor_p95_ms=measured["floor"]["p95_ms"],
                page_floor_rps=measured["floor"]["rps"],
                page_warm_p95_ms=measured["warm"]["p95_ms"],
                page_warm_rps=measured["warm"]["rps"],
                page_burst_p95_ms=measured["burst"].get("p95_ms"),
                page_burst_rps=measured["burst"].get("rps"),
                # the medians of each round's ratios to the floor timed beside it
                page_warm_p95_ratio=measured["warm"]["p95_ratio"],
                page_warm_rps_share=measured["warm"]["rps_share"],
                page_burst_p95_ratio=measured["burst"].get("p95_ratio"),
                page_burst_rps_share=measured["burst"].get("rps_share"),
                pages=measured,
            )
            figures("pages", measured)
        if not options["skip_evening"]:
            from grading.lab.evening import evening_run

            evening = evening_run(stack, options["evening_sessions"], log=log)
            report.update(evening)
            figures("evening", evening)
        # Last, the passes that rewrite (or write and roll back) every grade: the tables
        # they leave behind, full of dead rows until vacuumed, are not the ones the uploads
        # and pages above were measured on. A merge of two numbers (issue 27), then
        # replay --check and the refolds (issue 31).
        if not options["skip_merge"]:
            from grading.lab.mergebench import merge_bench_on

            merged = merge_bench_on(stack)
            report.update(merged)
            figures("merge", merged)
        if not options["skip_refold"]:
            from grading.lab.refoldbench import refold_figures

            report.update(refold_figures(stack, log))

    def _print(self, r: dict) -> None:
        def f(value, fmt="{:,.1f}"):
            return "-" if value is None else fmt.format(value)

        m = r["machine"]
        out = [
            f"bench --scale {r['scale']}   {m['date']}   commit {m['commit']}",
            f"machine: {m['nproc']} CPUs, {m['memory_gb']} GB, {m['cpu']}",
        ]
        if r.get("replay"):
            rp = r["replay"]
            label = " (extrapolated)" if r["replay_extrapolated"] else ""
            out.append(
                f"replay [{r['replay_path']}]: {f(r['player_sessions'], '{:,}')} player-session "
                f"grades in {f(r['replay_seconds'], '{:.2f}')} s{label}, "
                f"{f(r['replay_player_sessions_per_s'], '{:,.0f}')}/s, peak {f(r['peak_rss_mb'])} MB"
                + (f", fed {r['replay_feed']}" if r.get("replay_feed") else "")
            )
            if r.get("replay_objects_seconds") is not None:
                out.append(
                    f"  fed objects (every operation through apply): {r['replay_objects_seconds']:.2f} s"
                )
            for path, s in rp["subset"].items():
                out.append(
                    f"  subset {path:10s} {s['player_sessions']:>9,} grades "
                    f"{s['seconds']:8.2f} s {s['player_sessions_per_s']:>10,.0f}/s"
                )
            out.append(
                f"  reference_ratio {f(r['reference_ratio'], '{:.1f}')}x   "
                f"openskill_ratio {f(r['openskill_ratio'], '{:.2f}')}x"
            )
        if r.get("national_build"):
            b = r["national_build"]
            peak = max((v for k, v in b.items() if k.endswith("_peak_rss_mb")), default=None)
            out.append(
                f"national build: {f(b.get('seconds'))} s (inputs {f(b.get('inputs_seconds'))}, "
                f"refold {f(b.get('refold_seconds'))}, schemes {f(b.get('schemes_seconds'))}), "
                f"peak {f(peak, '{:,}')} MB"
            )
        if r.get("upload"):
            u = r["upload"]
            out.append(
                f"upload to visible grade ({u['uploads']} x {u['tables']}-table USEBIO): "
                f"p50 {f(u['p50_ms'])} ms, p95 {f(u['p95_ms'])} ms, max {f(u['max_ms'])} ms,"
                f" first (cold worker) {f(u['cold_first_ms'])} ms; worker start "
                f"{f(u['worker_start_s'], '{:.1f}')} s, {f(u['worker_rss_mb'])} MB"
            )
        if r.get("pages"):
            p = r["pages"]
            out.append(
                f"pages ({p['clients']} clients, {p['seconds']} s, {p['members']} members): "
                f"p50 {f(p['p50_ms'])} ms, p95 {f(p['p95_ms'])} ms, p99 {f(p['p99_ms'])} ms,"
                f" {f(p['rps'])} req/s, {p['errors']} errors; floor p95 "
                f"{f(p['floor']['p95_ms'])} ms, {f(p['floor']['rps'])} req/s"
            )
            w, b = p["warm"], p.get("burst") or {}
            for label, x in (
                ("warm pass", w),
                (
                    f"email burst ({b.get('members', 0)} members of the last "
                    f"{b.get('uploads', 0)} uploads)",
                    b,
                ),
            ):
                share = x.get("rps_share")
                out.append(
                    f"  {label}: p95 {f(x.get('p95_ms'))} ms, {f(x.get('rps'))} req/s; in turns "
                    f"with the floor: p95 {f(x.get('p95_ratio'), '{:.2f}')}x, throughput "
                    f"{f(share and 100 * share)} % (medians of {x.get('slices', 0)} rounds)"
                )
        if r.get("evening"):
            e = r["evening"]
            out.append(
                f"evening ({e['sessions']} x {e['tables']}-table sessions): upload p95 emails on "
                f"{f(r['evening_upload_p95_on_ms'])} ms / off {f(r['evening_upload_p95_off_ms'])}"
                f" ms = {f(r['evening_upload_p95_ratio'], '{:.2f}')}x; emails "
                f"{r['evening_emails_received']}/{r['evening_emails_expected']}, lag p95 "
                f"{f(r['evening_email_lag_p95_s'], '{:.2f}')} s, max "
                f"{f(r['evening_email_lag_max_s'], '{:.2f}')} s; {e['results_session']['tables']}"
                f"-table results page {f(r['evening_results_page_ms'])} ms / grade card "
                f"{f(r['evening_grade_card_ms'])} ms = {f(r['evening_results_page_ratio'], '{:.2f}')}x"
            )
        if r.get("database"):
            out.append(f"database: {r['database']}")
        out.append(f"total {r['total_seconds']:.0f} s")
        self.stdout.write("\n".join(out))


def _jsonable(value):
    if isinstance(value, tuple | set):
        return list(value)
    return str(value)
