"""A measurement, not a test (issue 28, "size and speed"; not collected by a plain run: its name
is not test_*): 40-table Mitchell sessions (160 players, each with a login and an email)
uploaded and graded with the result emails on and off, the emails handed to a real SMTP server
(aiosmtpd), and the results page of a 40-table session against the member's grade card.

    python -m pytest tests/bench/results_bench.py -s -p no:logging

Prints: the grading step's time with the emails on and off (the email task runs after the
step's commit, as a separate task), how long after the grading committed each email reached
the SMTP server, and the two pages' median render times."""

import datetime as dt
import statistics
import time

import pytest
from django.core.cache import cache
from django.urls import reverse

from grading.engine.types import Movement
from grading.ledger.step import versions_grade_pending
from grading.uploads.services import upload_create
from members.models import Member, ResultsEmail
from tests.factories import UserFactory
from tests.results.smtp import mailbox  # noqa: F401  (fixture)
from tests.results.world import numbers, session_file

pytestmark = pytest.mark.django_db

SESSIONS = 12
TABLES = 40


def median(values):
    return statistics.median(values) if values else float("nan")


def test_results_and_emails_bench(client, club_admin, mailbox, django_capture_on_commit_callbacks):  # noqa: F811
    club = club_admin[2]
    players = numbers(2 * TABLES)
    for pair in players:
        for n in pair:
            Member.objects.create(
                national_number=n,
                name=f"P{n}",
                user=UserFactory(username=f"u{n}", email=f"{n}@x.org"),
            )
    grading = {"on": [], "off": []}
    session = None
    for week in range(SESSIONS):
        mode = "on" if week % 2 == 0 else "off"
        club.results_emails = mode == "on"
        club.save()
        date = dt.date(2026, 6, 2) + dt.timedelta(weeks=week)
        data = session_file(players=players, date=date, seed=week, movement=Movement.TWO_WINNER)
        with django_capture_on_commit_callbacks(execute=False):  # grade here, timed
            upload = upload_create(club=club, filename=f"w{week}.xml", data=data, check_club=False)
        with django_capture_on_commit_callbacks(execute=True):
            started = time.perf_counter()
            versions_grade_pending()
            grading[mode].append(time.perf_counter() - started)
        upload.refresh_from_db()
        session = upload.versions.get().session
    lags = [
        (row.sent - row.version.upload.finished).total_seconds()
        for row in ResultsEmail.objects.filter(status="sent").select_related("version__upload")
    ]
    print(f"\n{SESSIONS} sessions of {TABLES} tables, {4 * TABLES} players with a login each")
    print(
        f"grading step, emails on:  median {median(grading['on']):.3f} s  max {max(grading['on']):.3f} s"
    )
    print(
        f"grading step, emails off: median {median(grading['off']):.3f} s  max {max(grading['off']):.3f} s"
    )
    print(
        f"emails handed to SMTP: {len(mailbox.messages)}; after grading: median {median(lags):.2f} s, max {max(lags):.2f} s"
    )
    member = Member.objects.get(national_number="5001")
    client.force_login(member.user)

    def timed(url, fresh=False, n=15):
        out = []
        for _ in range(n):
            if fresh:
                cache.clear()
            t = time.perf_counter()
            assert client.get(url).status_code == 200
            out.append(time.perf_counter() - t)
        return median(out)

    page = timed(reverse("results:session", args=[session.pk]))
    first = timed(reverse("results:session", args=[session.pk]), fresh=True, n=5)
    card = timed(reverse("members:card"), fresh=True)
    print(
        f"results page ({TABLES} tables): median {page:.3f} s ({first:.3f} s with nothing kept); "
        f"grade card: median {card:.3f} s (nothing kept); ratio {page / card:.2f}"
    )
