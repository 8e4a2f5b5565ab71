"""The service benchmarks of ``manage.py bench`` (issue 9): upload to visible grade, and pages
under load, against real processes on loopback.

``BenchStack`` creates a dedicated PostgreSQL database (``grading_bench_<pid>``), migrates it,
loads a simulated world through the product's upload pipeline (``manage.py simulate --load``),
then starts one Celery worker (``--pool solo --concurrency 1``) and gunicorn (``-w 2``,
``DJANGO_DEBUG=0``) on it; ``close()`` stops both and drops the database. Everything that
touches the benchmark database runs in those child processes (or in ``python -m
grading.lab.load setup``), never in the calling process, whose own database is left alone.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse, urlunparse

from grading.lab.bench import Scale
from grading.lab.bench_setup import SIM_SEED, multipart, sim_start
from grading.lab.broker import pages_ahead_drop, queue_wait
from grading.lab.pageturns import in_turns, pass_median
from grading.lab.wrk import parse_wrk, wrk_script

NATIONAL_CLUBS = 400
# The email burst: the players of the last uploads open their pages (issue 31 item 3).
BURST_UPLOADS = 5
# The warm pass and the burst, each in this many slices taken in turns with the floor's.
PAGE_ROUNDS = 3

BASE_DIR = Path(__file__).resolve().parents[2]  # the project root (manage.py)
PY = sys.executable
DEFAULT_PG = "postgres://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS = "redis://127.0.0.1:6379/13"
# the workers that take the background queue run at this niceness, as README's `make worker`:
# on a shared machine the emails and pages ahead yield the CPU to grading (docs/decisions.md)
BACKGROUND_NICE = 10


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_port(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), 0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing is listening on 127.0.0.1:{port}")


def _loopback_only(url: str) -> None:
    host = urlparse(url).hostname or "127.0.0.1"
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise RuntimeError(f"the benchmark only uses loopback services, not {host}")


def national_report(out: str) -> dict | None:
    """The JSON report ``manage.py national --json`` prints as its last object line."""
    for line in reversed(out.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    return None


@dataclass
class BenchStack:
    scale: Scale
    pg_url: str = DEFAULT_PG
    redis_url: str = DEFAULT_REDIS
    log: Any = print
    keep: bool = False
    db_name: str = ""  # grading_bench_<scale>_<pid> unless given (--keep keeps both of a run)
    template: str = ""  # a database already built, copied instead of building (--from-database)
    procs: list[subprocess.Popen] = field(default_factory=list)
    workdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="grading-bench-")))
    port: int = 0
    state: dict = field(default_factory=dict)
    created: bool = False
    load_seconds: float = 0.0
    build: dict | None = None  # ``manage.py national --json``'s report, when this run built it
    workers: int = 2
    worker_spawned: float = 0.0
    worker_pids: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.db_name:
            self.db_name = f"grading_bench_{self.scale.name}_{os.getpid()}"

    # ---- environment ------------------------------------------------------------------------

    @property
    def database_url(self) -> str:
        parsed = urlparse(self.pg_url)
        return urlunparse(parsed._replace(path=f"/{self.db_name}"))

    def env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        for name in ("DJANGO_SETTINGS_MODULE", "CELERY_TASK_ALWAYS_EAGER"):
            env.pop(name, None)
        env.update(
            DATABASE_URL=self.database_url,
            DJANGO_SETTINGS_MODULE="grading.settings",
            DJANGO_SECRET_KEY=self.state.get("secret") or secrets.token_urlsafe(40),
            DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
            DJANGO_MEDIA_ROOT=str(self.workdir / "media"),
            LOG_LEVEL="WARNING",
        )
        env.update(extra)
        return env

    def _admin_sql(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.pg_url, autocommit=True) as conn:
            conn.execute(sql)

    def _run(self, *args: str, **extra: str) -> str:
        done = subprocess.run(
            [PY, *args], cwd=BASE_DIR, env=self.env(**extra), capture_output=True, text=True
        )
        if done.returncode:
            raise RuntimeError(
                f"{' '.join(args)} failed:\n{done.stdout[-2000:]}{done.stderr[-4000:]}"
            )
        return done.stdout

    # ---- set up ------------------------------------------------------------------------------

    def open(self) -> None:
        _loopback_only(self.pg_url)
        _loopback_only(self.redis_url)
        self.state["secret"] = secrets.token_urlsafe(40)
        s = self.scale
        # --from-database: a database built before (manage.py national), copied file by file
        copy = f' TEMPLATE "{self.template}"' if self.template else ""
        self.log(f"bench: creating database {self.db_name}{copy}")
        self._admin_sql(f'CREATE DATABASE "{self.db_name}"{copy}')
        self.created = True
        self._run("manage.py", "migrate", "--noinput")  # a copy that is current: nothing to do
        t0 = time.perf_counter()
        if self.template:
            out = f"copied from {self.template}"
        elif s.name == "national":
            self.log(
                f"bench: building {s.players} members, {s.sessions} sessions, "
                f"{NATIONAL_CLUBS} clubs with COPY (manage.py national)"
            )
            out = self._run(
                "manage.py",
                "national",
                "--players",
                str(s.players),
                "--sessions",
                str(s.sessions),
                "--clubs",
                str(NATIONAL_CLUBS),
                "--json",
            )
        else:
            start = sim_start(s.sim_months)
            self.log(
                f"bench: loading {s.sim_players} players, {s.sim_clubs} clubs, {s.sim_months} "
                f"month(s) from {start} through the upload pipeline (simulate --load)"
            )
            out = self._run(
                "manage.py",
                "simulate",
                "--players",
                str(s.sim_players),
                "--clubs",
                str(s.sim_clubs),
                "--months",
                str(s.sim_months),
                "--seed",
                str(SIM_SEED),
                "--start",
                start.isoformat(),
                "--no-county",
                "--load",
            )
        self.load_seconds = time.perf_counter() - t0
        if s.name == "national" and not self.template:
            self.build = national_report(out)
        self.log("bench: " + " ".join(out.split("\n")[-3:]).strip())
        spec = self.workdir / "setup.json"
        self._run("-m", "grading.lab.bench_setup", str(spec), str(s.page_members))
        self.state.update(json.loads(spec.read_text()))
        self.log(f"bench: database holds {self.state['counts']}")

    def start_worker(self, **extra: str) -> None:
        """``self.workers`` Celery workers (solo pool each), started now: the first upload
        after this measures a cold start (process start to first upload graded). ``extra``:
        more environment (the evening pass's mail server, ``grading/lab/evening.py``)."""
        self._flush_redis()
        cmd = [
            str(Path(PY).with_name("celery")),
            "-A",
            "grading.celery",
            "worker",
            "--pool",
            "solo",
            "--concurrency",
            "1",
            "--loglevel",
            os.environ.get("BENCH_WORKER_LOGLEVEL", "WARNING"),  # INFO: each task's timing
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ]
        self.worker_spawned = time.perf_counter()
        for n in range(self.workers):
            log = open(self.workdir / f"worker{n}.log", "w")  # noqa: SIM115 - closed with it
            # as README's deployment: the first worker kept for grading, the others take both
            # queues (grading's and the background's: emails, other schemes, pages ahead)
            grading_only = n == 0 and self.workers > 1
            queues = ["-Q", "celery"] if grading_only else []
            niced = [] if grading_only else ["nice", "-n", str(BACKGROUND_NICE)]
            proc = subprocess.Popen(
                [*niced, *cmd, *queues, "--hostname", f"bench{n}@%h"],
                cwd=BASE_DIR,
                env=self.env(**self._deployed(), **extra),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            self.procs.append(proc)
            self.worker_pids.append(proc.pid)

    def stop_workers(self) -> None:
        """Stop the Celery workers (gunicorn keeps running); ``start_worker`` starts others."""
        pids = set(self.worker_pids)
        for proc in [p for p in self.procs if p.pid in pids]:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            self.procs.remove(proc)
        self.worker_pids.clear()

    def worker_rss_mb(self) -> float | None:
        """The largest peak resident memory (VmHWM) among the workers, in MB."""
        peaks = []
        for pid in self.worker_pids:
            try:
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        peaks.append(int(line.split()[1]) / 1024.0)
            except OSError:
                continue
        return max(peaks) if peaks else None

    def _deployed(self) -> dict[str, str]:
        """As deployed (README): the stack's Redis (broker, page cache), no debug mode (where each
        page-cache key re-reads the templates and Django keeps every query), static collected."""
        return {
            "REDIS_URL": self.redis_url,
            "DJANGO_DEBUG": "0",
            "DJANGO_STATIC_ROOT": str(self._static()),
        }

    def _static(self) -> Path:
        """The static files collected (once) for processes run as deployed, with
        ``DJANGO_DEBUG=0``: the manifest storage then resolves every ``{% static %}``."""
        static = self.workdir / "static"
        if not (static / "staticfiles.json").exists():
            self._run(
                "manage.py",
                "collectstatic",
                "--noinput",
                "-v",
                "0",
                DJANGO_DEBUG="0",
                DJANGO_STATIC_ROOT=str(static),
            )
        return static

    def start_gunicorn(self) -> None:
        self.port = _free_port()
        cmd = [
            str(Path(PY).with_name("gunicorn")),
            "grading.lab.floor_wsgi",
            "-w",
            "2",
            "-b",
            f"127.0.0.1:{self.port}",
            "--log-level",
            "warning",
        ]
        log = open(self.workdir / "gunicorn.log", "w")  # noqa: SIM115 - closed with the process
        self.procs.append(
            subprocess.Popen(
                cmd,
                cwd=BASE_DIR,
                env=self.env(**self._deployed()),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        )
        _wait_port(self.port)

    def _flush_redis(self) -> None:
        import redis

        redis.Redis.from_url(self.redis_url).flushdb()

    # ---- measurements ------------------------------------------------------------------------

    def _request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> dict:
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}",
            data=body,
            method=method,
            headers={
                "Authorization": f"Token {self.state['token']}",
                "Host": "127.0.0.1",
                "X-Forwarded-Proto": "https",
                "Accept": "application/json",
                **(headers or {}),
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            raise RuntimeError(f"{method} {path}: {exc.code} {exc.read()[:500]!r}") from None

    def upload_once(self, slug: str, name: str, data: bytes, timeout: float = 120.0) -> float:
        """POST one file and poll its upload until graded: milliseconds from the POST."""
        return self.upload_timed(slug, name, data, timeout)[0]

    def upload_timed(
        self, slug: str, name: str, data: bytes, timeout: float = 120.0
    ) -> tuple[float, dict]:
        """``upload_once``, with the upload as the API last gave it (graded)."""
        body, ctype = multipart("file", name, data)
        t0 = time.perf_counter()
        made = self._request(
            "POST", f"/api/v1/clubs/{slug}/uploads/", body, {"Content-Type": ctype}
        )
        while True:
            if made["status"] == "graded":
                return (time.perf_counter() - t0) * 1000.0, made
            if made["status"] in ("refused", "duplicate", "failed"):
                raise RuntimeError(f"upload {name}: {made['status']} {made.get('problems')}")
            if time.perf_counter() - t0 > timeout:
                raise RuntimeError(f"upload {name} not graded after {timeout} s: {made['status']}")
            time.sleep(0.01)
            made = self._request("GET", f"/api/v1/clubs/{slug}/uploads/{made['id']}/")

    def burst_logins(self, files: list[tuple[str, bytes]]) -> None:
        """Logins for the players of the files about to be uploaded, made before them (as the
        members an email after grading sends to their pages have theirs)."""
        self.state["burst_files"] = [players_of(data) for _, data in files]
        numbers = sorted({n for players in self.state["burst_files"] for n in players})
        out = self.workdir / "burst.json"
        self._run("-m", "grading.lab.bench_setup", "--logins", str(out), *numbers)
        self.state["burst_logins"] = json.loads(out.read_text())

    def _queue_empty(self, timeout: float = 60.0, *, pages_ahead: bool = True) -> float:
        """``grading.lab.broker.queue_wait`` on this stack's broker: the seconds waited."""
        return queue_wait(self.redis_url, timeout, self.log, pages_ahead=pages_ahead)

    def pages_ahead_drop(self) -> int:
        """``grading.lab.broker.pages_ahead_drop`` on this stack's broker: the count."""
        return pages_ahead_drop(self.redis_url)

    def burst_benchmark(self, seconds: int, clients: int, last: int = BURST_UPLOADS) -> dict:
        """The email burst: right after the timed uploads, ``/me/`` and ``/me/sessions/`` of the
        players of the last ``last`` uploads (signed in), as their emails send them, timed in
        turns with the no-op floor (``pageturns.in_turns``, slices of ``seconds``)."""
        logins = self.state.get("burst_logins") or {}
        recent = {n for players in self.state.get("burst_files", [])[-last:] for n in players}
        numbers = sorted(n for n in recent if n in logins)
        sessions = [logins[n] for n in numbers]
        if not sessions:
            return {}
        self._queue_empty()
        # of their cards and first history pages, those kept under current keys (the workers')
        out = self.workdir / "kept.json"
        self._run("-m", "grading.lab.bench_setup", "--kept", str(out), *numbers, **self._deployed())
        script = wrk_script(sessions, ["/me/", "/me/sessions/"])
        turns = in_turns(
            lambda: self._wrk(script, seconds, clients), self._floor(seconds, clients), PAGE_ROUNDS
        )
        return turns | {
            "members": len(sessions),
            "uploads": last,
            "kept": json.loads(out.read_text()),
        }

    def page_benchmark(self, seconds: int, clients: int) -> dict[str, Any]:
        """``/me/``, ``/me/sessions/`` (random members) and the club's grade list (its
        administrator), cold for ``seconds``, then warm; then the email burst (the players of
        the last uploads, ``burst_benchmark``). The warm pass and the burst are each timed in
        turns with the no-op floor view, with the same clients, in ``PAGE_ROUNDS`` slices
        that add up to ``seconds`` (``pageturns.in_turns``)."""
        if not shutil.which("wrk"):
            raise RuntimeError("wrk is not installed (apt-get install -y wrk)")
        club_page = f"/clubs/{self.state['club']}/grades/"
        for path in ("/me/", "/me/sessions/"):  # every page works before it is timed
            self._check_page(path)
        self._check_page(club_page, self.state["admin_session"])
        admin = [(self.state["admin_session"], club_page)] * max(1, len(self.state["sessions"]))
        script = wrk_script(self.state["sessions"], ["/me/", "/me/sessions/"], pinned=admin)
        # The floor is timed with the workers idle, so the pages are too: the uploads' tasks
        # (the other schemes, the pages warmed after each step) finish first.
        drained = self._queue_empty(timeout=600.0)
        # the first pass meets the member-page cache cold (most pages rendered for the first
        # time: the figures reported); then the same pages again, warm
        pages = self._wrk(script, seconds, clients)
        piece = max(1, round(seconds / PAGE_ROUNDS))
        warm = in_turns(
            lambda: self._wrk(script, piece, clients), self._floor(piece, clients), PAGE_ROUNDS
        )
        burst = self.burst_benchmark(piece, clients)  # after the server's own first requests
        floors = [r["floor"] for turns in (warm, burst) for r in turns.get("rounds", [])]
        return pages | {
            "clients": clients,
            "seconds": seconds,
            "members": len(self.state["sessions"]),
            "queue_drained_s": drained,
            "warm": warm["pass"] | {k: warm[k] for k in ("p95_ratio", "rps_share")},
            "floor": pass_median(floors),
            "burst": _burst_figures(burst),
            "turns": {"warm": warm["rounds"], "burst": burst.get("rounds", [])},
        }

    def _floor(self, seconds: int, clients: int) -> Callable[[], dict[str, Any]]:
        script = wrk_script(self.state["sessions"], ["/bench-floor/"])
        return lambda: self._wrk(script, seconds, clients)

    def _wrk(self, script_text: str, seconds: int, clients: int) -> dict[str, Any]:
        script = self.workdir / "pages.lua"
        script.write_text(script_text)
        threads = max(1, min(2, clients))
        self.log(f"bench: wrk -t{threads} -c{clients} -d{seconds}s")
        done = subprocess.run(
            [
                "wrk",
                f"-t{threads}",
                f"-c{clients}",
                f"-d{seconds}s",
                "--timeout",
                "10s",
                "-s",
                str(script),
                f"http://127.0.0.1:{self.port}/",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        return parse_wrk(done.stdout)

    def _check_page(self, path: str, session: str | None = None) -> None:
        cookie = f"sessionid={session or self.state['sessions'][0]}"
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}",
            headers={"Cookie": cookie, "X-Forwarded-Proto": "https", "Host": "127.0.0.1"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read().decode()
            if response.status != 200 or "login" in response.geturl():
                raise RuntimeError(f"{path} did not render for a member ({response.status})")
            if "grade" not in text.lower():
                raise RuntimeError(f"{path} shows no grade")

    # ---- tear down ---------------------------------------------------------------------------

    def close(self) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for proc in self.procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        self.procs.clear()
        if self.created and not self.keep:
            try:
                self._flush_redis()
            except Exception:  # noqa: BLE001 - Redis gone: nothing left to clean
                pass
            self._admin_sql(f'DROP DATABASE IF EXISTS "{self.db_name}" WITH (FORCE)')
            self.created = False
        if not self.keep:
            shutil.rmtree(self.workdir, ignore_errors=True)


def players_of(usebio: bytes) -> list[str]:
    """The membership numbers in a USEBIO file (its players)."""
    found = re.findall(rb"<NATIONAL_ID_NUMBER>([^<]+)</NATIONAL_ID_NUMBER>", usebio)
    return sorted({n.decode() for n in found})


def _burst_figures(burst: dict[str, Any]) -> dict[str, Any]:
    """The burst's figures as the report gives them: the pass's medians with its ratios to
    the floor beside it, and who it was (nothing when no member of the last uploads signed in)."""
    if not burst:
        return {}
    keep = ("p95_ratio", "rps_share", "members", "uploads", "kept")
    return burst["pass"] | {k: burst[k] for k in keep}
