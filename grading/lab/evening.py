"""The national evening pass of ``manage.py bench`` (issue 28, "size and speed"): sessions
uploaded one after another on one evening with the emails after grading on for every player,
against the same run with them off, the emails handed to a real SMTP server, and a 40-table
session's results page against the member's grade card.

Run on the bench stack (``grading/lab/load.py``: its database, gunicorn) after the other
passes. The pass

1. gives every player of its files a login with an email address (``setup``, in a child
   process on the bench database, as ``bench_setup`` does);
2. starts an SMTP server (aiosmtpd, in this process, on a free loopback port) that records
   when each message arrives, and restarts the stack's Celery workers with the product's email
   settings (``EMAIL_HOST``, ``EMAIL_PORT``, ``EMAIL_USE_TLS``: ``grading/settings.py``)
   pointed at it;
3. uploads one untimed session (the workers' cold start), then the evening's 12-table sessions
   through the API, each polled until graded as the upload benchmark does, in blocks of
   ``BLOCK`` sessions with the clubs' email switch (S16) off or on, in the order off, on, on,
   off, off, on... so that a drift of the shared machine falls on both alike. At each switch
   the pass waits for every email so far and for a queue holding nothing but the pages
   rendered ahead (the lowest priority: at this pace, an upload a second, nationally they
   never catch up, and they run alike on both sides), so that neither side starts with the
   other's work still running;
4. uploads one 40-table session (emails on) and times its results page, reached by the link of
   one of its players' email, against that member's grade card (``/me/``), the two requested
   in turn through gunicorn.

The targets (issue 28): ``evening_upload_p95_ratio`` (p95 upload to visible grade, emails on
/ off) at most 1.10; every email of a session with emails on reaches the SMTP server, once,
within 60 s of its session's grading (the upload's ``finished``, set in the grading
transaction); ``evening_results_page_ratio`` (median results page / median grade card) at
most 2. The sessions are uploaded back to back, far faster than clubs upload on a real evening
(400 sessions within about three hours), so the email work overlaps the grading more than it
would then.

Lab code: never imported by the product.
"""

from __future__ import annotations

import datetime as dt
import json
import statistics
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from grading.lab.bench import percentile, ratio
from grading.lab.eveningfiles import (
    RESULTS_TABLES,
    TABLES,
    EveningFile,
    evening_files,
    results_file,
    why_results_not_graded,
)
from grading.lab.smtpbox import Arrival, email_env, smtp_server

# Sessions of the evening, by scale (the figure at national scale); --evening-sessions
# overrides it.
EVENING_SESSIONS = {"tiny": 4, "small": 40, "region": 100, "national": 400}
BLOCK = 5  # sessions in a row with the emails on, or off
PAGE_REQUESTS = 20  # of each page, in turn, after a first (untimed) request of each
EMAIL_DOMAIN = "bench.invalid"
LAG_TARGET_S = 60.0
UPLOAD_RATIO_TARGET = 1.10
PAGE_RATIO_TARGET = 2.0

REPORT_KEYS = (
    "evening_sessions",
    "evening_upload_p95_on_ms",
    "evening_upload_p95_off_ms",
    "evening_upload_p95_ratio",
    "evening_upload_p50_ratio",
    "evening_emails_expected",
    "evening_emails_received",
    "evening_email_lag_p95_s",
    "evening_email_lag_max_s",
    "evening_results_page_ms",
    "evening_grade_card_ms",
    "evening_results_page_ratio",
)


def empty_report() -> dict[str, Any]:
    """The pass's report keys, none measured (``--skip-evening``)."""
    return dict.fromkeys(REPORT_KEYS)


def email_of(number: str) -> str:
    return f"m{number}@{EMAIL_DOMAIN}"


def block_of(sessions: int) -> int:
    """Sessions a block: ``BLOCK``, fewer for an evening of under four blocks (both sides get
    sessions: a tiny evening of 4 is off, on, on, off)."""
    return min(BLOCK, max(1, sessions // 4))


def schedule(sessions: int, block: int | None = None) -> list[bool]:
    """Emails on (True) or off for each timed session: blocks of ``block`` in the order off,
    on, on, off, off, on, on, off... (a steady drift of the machine weighs on both alike)."""
    block = block or block_of(sessions)
    return [(k // block) % 4 in (1, 2) for k in range(sessions)]


# ---- the figures ----------------------------------------------------------------------------


def _epoch(stamp: str) -> float:
    return dt.datetime.fromisoformat(stamp).timestamp()


def emails_summary(
    uploads: list[dict[str, Any]],
    arrivals: list[Arrival],
    addresses: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Every upload's emails against what the SMTP server received. ``uploads``: ``event``,
    ``numbers``, ``emails`` (on or off) and ``finished`` (the API's ISO time of grading);
    ``addresses``: the members whose login had an address of its own (else ``email_of``)."""
    addresses = addresses or {}
    by_event: dict[str, list[Arrival]] = {}
    for a in arrivals:
        by_event.setdefault(a.event, []).append(a)
    expected = received = missing = twice = late = unexpected = 0
    lags: list[float] = []
    for upload in uploads:
        got = by_event.pop(upload["event"], [])
        if not upload["emails"]:
            unexpected += len(got)
            continue
        want = {addresses.get(n) or email_of(n) for n in upload["numbers"]}
        to = [a.to for a in got]
        expected += len(want)
        received += len(got)
        missing += len(want - set(to))
        twice += len(to) - len(set(to))
        unexpected += len(set(to) - want)
        finished = _epoch(upload["finished"])
        for a in got:
            lags.append(a.at - finished)
        late += sum(1 for a in got if a.at - finished > LAG_TARGET_S)
    unexpected += sum(len(rest) for rest in by_event.values())
    return {
        "expected": expected,
        "received": received,
        "missing": missing,
        "sent_twice": twice,
        "unexpected": unexpected,
        "later_than_target": late,
        "lag_p50_s": percentile(lags, 50),
        "lag_p95_s": percentile(lags, 95),
        "lag_max_s": max(lags) if lags else None,
    }


def uploads_summary(times_on: list[float], times_off: list[float]) -> dict[str, Any]:
    def figures(times: list[float]) -> dict[str, Any]:
        return {
            "uploads": len(times),
            "p50_ms": percentile(times, 50),
            "p95_ms": percentile(times, 95),
            "max_ms": max(times) if times else None,
            "times_ms": times,
        }

    on, off = figures(times_on), figures(times_off)
    return {
        "on": on,
        "off": off,
        "p95_ratio": ratio(on["p95_ms"], off["p95_ms"]),
        "p50_ratio": ratio(on["p50_ms"], off["p50_ms"]),
    }


# ---- the pass -------------------------------------------------------------------------------


def _clubs_emails_set(stack, on: bool) -> None:
    """Every club's switch of the emails after grading (S16), as a club administrator sets
    it on the club's results settings page."""
    import psycopg

    with psycopg.connect(stack.database_url, autocommit=True) as conn:
        conn.execute("UPDATE clubs_club SET results_emails = %s", (on,))


def _email_rows(stack) -> dict[str, int]:
    """The ``ResultsEmail`` rows by status (what the sender recorded)."""
    import psycopg

    with psycopg.connect(stack.database_url) as conn:
        rows = conn.execute(
            "SELECT status, count(*) FROM members_resultsemail GROUP BY status"
        ).fetchall()
    return {status: n for status, n in rows}


def _get(stack, path: str, session: str) -> tuple[float, str]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{stack.port}{path}",
        headers={
            "Cookie": f"sessionid={session}",
            "X-Forwarded-Proto": "https",
            "Host": "127.0.0.1",
        },
    )
    t0 = time.perf_counter()
    with urllib.request.urlopen(request, timeout=60) as response:
        text = response.read().decode()
        elapsed = (time.perf_counter() - t0) * 1000.0
        if response.status != 200 or "login" in response.geturl():
            raise RuntimeError(f"{path} did not render for the member ({response.status})")
    return elapsed, text


def pages_compare(stack, results_path: str, session: str, requests: int = PAGE_REQUESTS) -> dict:
    """The results page and the grade card of one signed-in member, a first request of each
    then ``requests`` of each in turn; the medians' ratio is the target's figure."""
    first_results, text = _get(stack, results_path, session)
    if "Board" not in text and "board" not in text:
        raise RuntimeError(f"{results_path} shows no travellers")
    first_card, _ = _get(stack, "/me/", session)
    results, card = [], []
    for _ in range(requests):
        results.append(_get(stack, results_path, session)[0])
        card.append(_get(stack, "/me/", session)[0])
    return {
        "path": results_path,
        "requests": requests,
        "results_first_ms": first_results,
        "card_first_ms": first_card,
        "results_median_ms": statistics.median(results),
        "results_p95_ms": percentile(results, 95),
        "card_median_ms": statistics.median(card),
        "card_p95_ms": percentile(card, 95),
        "ratio": ratio(statistics.median(results), statistics.median(card)),
    }


def _results_pages(stack, state: dict, big: EveningFile, arrivals) -> dict:
    """The results page against the grade card, reached by the link of the signed-in
    member's email."""
    login = state["login"]
    mine = [
        a
        for a in arrivals
        if a.event == big.event
        and a.to == (state["addresses"].get(login["number"]) or email_of(login["number"]))
        and a.results_path
    ]
    if not mine:
        raise RuntimeError("the 40-table session's player got no email with a results link")
    return pages_compare(stack, mine[0].results_path, login["session"])


def _ms(value: float | None) -> str:
    return "none" if value is None else f"{value:.0f}"


def _wait(check: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def evening_run(
    stack, sessions: int | None = None, log: Callable[[str], None] = print
) -> dict[str, Any]:
    """The pass on an opened ``BenchStack`` with gunicorn running: its report keys, and
    ``evening`` (every figure). Runs on workers of its own (the stack's restarted after it),
    and drops the pages-ahead tasks still queued at its end (``pages_ahead_dropped``)."""
    began = time.perf_counter()
    sessions = sessions or EVENING_SESSIONS.get(stack.scale.name, 40)
    day = dt.date.today()
    spec = stack.workdir / "evening.json"
    stack._run("-m", "grading.lab.evening", "setup", str(spec), str(sessions))
    state = json.loads(spec.read_text())
    clubs = state["clubs"]
    files = evening_files(clubs, sessions, day)
    big = results_file(clubs, day)
    big_skipped = why_results_not_graded(big)
    block = block_of(sessions)
    modes = schedule(sessions, block)
    log(
        f"bench: evening of {sessions} {TABLES}-table sessions at {len(clubs)} club(s), "
        f"emails on for {sum(modes)} and off for {sessions - sum(modes)} in blocks of {block}; "
        f"then one {RESULTS_TABLES}-table session"
    )
    uploads: list[dict[str, Any]] = []
    times: dict[bool, list[float]] = {True: [], False: []}
    with smtp_server() as (box, port):
        stack.stop_workers()
        stack.start_worker(**email_env(port))
        expected = 0

        def upload(f: EveningFile, emails: bool, timeout: float = 120.0) -> float:
            nonlocal expected
            ms, made = stack.upload_timed(f.slug, f.name, f.data, timeout=timeout)
            stored = (made.get("summary") or {}).get("sessions") or [{}]
            uploads.append(
                {
                    "event": stored[0].get("event", f.event),  # as the emails name it
                    "numbers": f.numbers,
                    "emails": emails,
                    "finished": made["finished"],
                    "ms": ms,
                }
            )
            expected += len(f.numbers) if emails else 0
            return ms

        def settle() -> None:
            """Every email expected so far received, then nothing queued but the pages
            rendered ahead: the same on both sides, and at the evening's pace (an upload a
            second, where a real evening has one a minute) never caught up nationally."""
            if not _wait(lambda: box.count() >= expected, 2 * LAG_TARGET_S):
                log(f"bench: only {box.count()} of {expected} emails after {2 * LAG_TARGET_S} s")
            stack._queue_empty(pages_ahead=False)

        _clubs_emails_set(stack, True)
        cold = upload(files[0], True, timeout=600.0)
        settle()
        current = None
        for k, (f, on) in enumerate(zip(files[1:], modes, strict=True)):
            if on != current:
                if k:
                    settle()
                _clubs_emails_set(stack, on)
                current = on
            times[on].append(upload(f, on))
        settle()
        big_ms, pages = None, dict.fromkeys(("results_median_ms", "card_median_ms", "ratio"))
        if big_skipped:
            log(f"bench: {big_skipped}")
        else:
            _clubs_emails_set(stack, True)
            big_ms = upload(big, True, timeout=600.0)
            settle()
        arrivals = box.snapshot()
        if not big_skipped:
            pages = _results_pages(stack, state, big, arrivals)
        # the pages ahead still queued (at this pace they never catch up), dropped so the
        # passes after this one have the machine; the stack's own workers back
        pages_ahead_dropped = stack.pages_ahead_drop()
        stack.stop_workers()
    stack.start_worker()
    emails = emails_summary(uploads, arrivals, state["addresses"])
    emails["rows"] = _email_rows(stack)
    uploaded = uploads_summary(times[True], times[False])
    detail = {
        "sessions": sessions,
        "tables": TABLES,
        "clubs": len(clubs),
        "block": block,
        "members_given_logins": state["logins_made"],
        "cold_first_ms": cold,
        "uploads": uploaded,
        "emails": emails,
        "results_session": {
            "tables": RESULTS_TABLES,
            "upload_ms": big_ms,
            "pages": pages,
            "skipped": big_skipped,
        },
        "pages_ahead_dropped": pages_ahead_dropped,
        "seconds": time.perf_counter() - began,
        "targets": {
            "upload_p95_ratio": UPLOAD_RATIO_TARGET,
            "email_lag_s": LAG_TARGET_S,
            "results_page_ratio": PAGE_RATIO_TARGET,
        },
    }
    log(
        f"bench: evening done in {detail['seconds']:.0f} s: p95 on/off "
        f"{_ms(uploaded['on']['p95_ms'])}/{_ms(uploaded['off']['p95_ms'])} ms, "
        f"{emails['received']}/{emails['expected']} emails"
    )
    return {
        "evening_sessions": sessions,
        "evening_upload_p95_on_ms": uploaded["on"]["p95_ms"],
        "evening_upload_p95_off_ms": uploaded["off"]["p95_ms"],
        "evening_upload_p95_ratio": uploaded["p95_ratio"],
        "evening_upload_p50_ratio": uploaded["p50_ratio"],
        "evening_emails_expected": emails["expected"],
        "evening_emails_received": emails["received"],
        "evening_email_lag_p95_s": emails["lag_p95_s"],
        "evening_email_lag_max_s": emails["lag_max_s"],
        "evening_results_page_ms": pages["results_median_ms"],
        "evening_grade_card_ms": pages["card_median_ms"],
        "evening_results_page_ratio": pages["ratio"],
        "evening": detail,
    }


# ---- the setup step (a child process on the bench database) ---------------------------------


def setup(out: str, sessions: int) -> None:
    """The clubs of the evening (those with the most graded members, one per session at most)
    and, for each, the members its files draw on (enough for its sessions; the first club's
    also fill the 40-table session); every one of them given a login with an email address (a
    login without one gets one); a signed-in session for the first club's first member (the
    results page's reader). Written to ``out`` as JSON."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.db.models import Count, Q

    from clubs.models import Club
    from grading.lab.bench_setup import _login
    from members.models import Member

    User = get_user_model()
    graded = Q(roles__member__current_grade__isnull=False)
    ranked = (
        Club.objects.annotate(n=Count("roles", filter=graded)).filter(n__gt=0).order_by("-n", "pk")
    )
    chosen = list(ranked[:sessions])
    per_club = [sessions // len(chosen) + (i < sessions % len(chosen)) for i in range(len(chosen))]
    clubs = []
    for i, (club, count) in enumerate(zip(chosen, per_club, strict=True)):
        need = min(400, max(4 * TABLES * count, 4 * RESULTS_TABLES if i == 0 else 0))
        numbers = list(
            Member.objects.filter(club_roles__club=club, current_grade__isnull=False)
            .order_by("pk")
            .values_list("national_number", flat=True)
            .distinct()[:need]
        )
        clubs.append({"slug": club.slug, "name": club.name, "numbers": numbers})
    wanted = {n for club in clubs for n in club["numbers"]}
    made = 0
    addresses: dict[str, str] = {}
    with transaction.atomic():
        members = list(Member.objects.filter(national_number__in=wanted).select_related("user"))
        for member in members:
            if member.user is not None and not member.user.email:
                User.objects.filter(pk=member.user.pk).update(
                    email=email_of(member.national_number)
                )
            elif member.user is not None:  # a login with an address of its own keeps it
                addresses[member.national_number] = member.user.email
        bare = [m for m in members if m.user is None]
        users = []
        for member in bare:
            user = User(
                username=f"evening-{member.national_number}",
                email=email_of(member.national_number),
            )
            user.set_unusable_password()
            users.append(user)
        User.objects.bulk_create(users, batch_size=1000)
        for member, user in zip(bare, users, strict=True):
            member.user = user
        Member.objects.bulk_update(bare, ["user"], batch_size=1000)
        made = len(bare)
    reader = Member.objects.select_related("user").get(national_number=clubs[0]["numbers"][0])
    Path(out).write_text(
        json.dumps(
            {
                "clubs": clubs,
                "logins_made": made,
                "addresses": addresses,
                "login": {"number": reader.national_number, "session": _login(reader.user)},
            }
        )
    )


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "setup":
        setup(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit("usage: python -m grading.lab.evening setup OUT.json SESSIONS")
