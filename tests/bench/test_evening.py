"""The national evening pass of ``manage.py bench`` (issue 28; ``grading/lab/evening.py``):
its files, its schedule, its reading of the emails and the figures it draws from them. Nothing
here is timed."""

import datetime as dt
import io
import json
import smtplib
import time

import pytest
from django.contrib.auth import get_user_model

from grading.ingest import parse_file
from grading.lab.evening import (
    RESULTS_TABLES,
    TABLES,
    email_of,
    emails_summary,
    empty_report,
    evening_files,
    results_file,
    schedule,
    setup,
    uploads_summary,
    why_results_not_graded,
)
from grading.lab.management.commands.bench import Command
from grading.lab.smtpbox import Arrival, smtp_server
from grading.models import CurrentGrade
from grading.results.emails import session_message
from members.models import Member
from tests.factories import ClubFactory, ClubRoleFactory, UserFactory

DAY = dt.date(2026, 11, 24)
CLUBS = [
    {"slug": "club-a", "name": "Club A", "numbers": [str(700000 + i) for i in range(60)]},
    {"slug": "club-b", "name": "Club B", "numbers": [str(800000 + i) for i in range(30)]},
]


def test_the_evening_files_are_twelve_table_sessions_of_one_evening_at_each_club_in_turn():
    files = evening_files(CLUBS, 4, DAY)
    assert len(files) == 5  # the warm-up first
    assert [f.slug for f in files] == ["club-a", "club-b", "club-a", "club-b", "club-a"]
    assert len({f.data for f in files}) == 5 and len({f.event for f in files}) == 5
    for f in files:
        parsed = parse_file(f.name, f.data, club=f.slug)
        assert not parsed.problems
        (session,) = parsed.sessions
        assert session.date == DAY and len(session.pairs) == 2 * TABLES
        club = next(c for c in CLUBS if c["slug"] == f.slug)
        assert set(f.numbers) <= set(club["numbers"])
        assert len(f.numbers) == min(4 * TABLES, len(club["numbers"]))  # the rest are visitors


def test_the_results_session_has_forty_tables_and_the_signed_in_reader_plays_in_it():
    f = results_file(CLUBS, DAY)
    (session,) = parse_file(f.name, f.data, club=f.slug).sessions
    assert len(session.pairs) == 2 * RESULTS_TABLES and f.slug == "club-a"
    assert CLUBS[0]["numbers"][0] in f.numbers
    # every member of both clubs, visitors for the other 70 seats
    assert set(f.numbers) == set(CLUBS[0]["numbers"]) | set(CLUBS[1]["numbers"])


def test_a_results_session_with_too_few_members_is_not_uploaded_and_says_why():
    short = results_file(CLUBS, DAY)  # 90 members: 45 of 80 pairs known
    why = why_results_not_graded(short)
    assert "not more than 2/3 of the pairs are known" in why
    assert "90 graded members for its 160 seats" in why
    third = {"slug": "club-c", "name": "Club C", "numbers": [str(900000 + i) for i in range(80)]}
    full = results_file([*CLUBS, third], DAY)  # 170 members for 160 seats: every pair known
    assert len(full.numbers) == 4 * RESULTS_TABLES
    assert why_results_not_graded(full) == ""


def test_the_schedule_alternates_blocks_off_on_on_off():
    modes = schedule(40, block=10)
    assert modes == [False] * 10 + [True] * 20 + [False] * 10
    assert schedule(8, block=2) == [False, False, True, True, True, True, False, False]
    assert sum(schedule(400)) == 200 and sum(schedule(40)) == 20
    assert schedule(4) == [False, True, True, False]  # a tiny evening has both sides


def _figures(event: str, session_id: int) -> dict:
    return {
        "event": event,
        "club": "Club A",
        "date": "2026-11-24",
        "place": "3",
        "of": 12,
        "group": "",
        "score": "55.20%",
        "partner": "P. Partner",
        "session_grade": "",
        "grade_after": "",
        "reason": "private",
        "results_path": f"/results/{session_id}/v1/",
        "explain_path": f"/results/{session_id}/explain/",
    }


def test_an_email_after_grading_is_read_for_its_event_recipient_and_results_link():
    member = Member(name="A Player", national_number="700001")
    member.user = get_user_model()(username="x", email=email_of("700001"))
    message = session_message(
        member=member, figures=_figures("Evening Pairs, Late 007", 42), correction=False, token="t"
    )
    with smtp_server() as (box, port):
        with smtplib.SMTP("127.0.0.1", port) as smtp:
            smtp.send_message(message.message())
        deadline = time.monotonic() + 10
        while not box.count() and time.monotonic() < deadline:
            time.sleep(0.02)
        (arrival,) = box.snapshot()
    assert arrival.to == "m700001@bench.invalid"
    assert arrival.event == "Evening Pairs, Late 007"  # only the date follows the last comma
    assert arrival.results_path == "/results/42/v1/"
    assert abs(arrival.at - time.time()) < 60


def test_the_emails_summary_counts_missing_doubles_late_and_unexpected_emails():
    finished = dt.datetime(2026, 11, 24, 21, 0, tzinfo=dt.UTC)
    t0 = finished.timestamp()
    uploads = [
        {
            "event": "E1",
            "numbers": ("1", "2", "3"),
            "emails": True,
            "finished": finished.isoformat(),
        },
        {"event": "E2", "numbers": ("1", "2"), "emails": False, "finished": finished.isoformat()},
    ]
    arrivals = [
        Arrival(t0 + 1.0, email_of("1"), "E1", "/results/1/v1/"),
        Arrival(t0 + 2.0, email_of("2"), "E1", "/results/1/v1/"),
        Arrival(t0 + 90.0, email_of("2"), "E1", "/results/1/v1/"),  # again, and late
        Arrival(t0 + 1.0, email_of("1"), "E2", "/results/2/v1/"),  # emails were off
        Arrival(t0 + 1.0, email_of("9"), "E9", "/results/9/v1/"),  # no such upload
    ]
    s = emails_summary(uploads, arrivals)
    assert s["expected"] == 3 and s["received"] == 3
    moved = emails_summary(uploads, arrivals, {"3": "own@example.org"})
    assert moved["missing"] == 1 and moved["unexpected"] == 2  # "3" is expected elsewhere
    assert s["missing"] == 1 and s["sent_twice"] == 1
    assert s["unexpected"] == 2 and s["later_than_target"] == 1
    assert s["lag_max_s"] == pytest.approx(90.0)
    assert s["lag_p50_s"] == pytest.approx(2.0)


def test_the_upload_summary_compares_the_p95_of_emails_on_to_off():
    s = uploads_summary([100.0] * 19 + [220.0], [100.0] * 19 + [200.0])
    assert s["on"]["uploads"] == 20 and s["off"]["max_ms"] == 200.0
    # p95 of 20 values by linear interpolation: 100 + 0.05 * (220 - 100) against 100 + 0.05 * 100
    assert s["on"]["p95_ms"] == pytest.approx(106.0) and s["off"]["p95_ms"] == pytest.approx(105.0)
    assert s["p95_ratio"] == pytest.approx(106.0 / 105.0)


@pytest.mark.django_db
def test_setup_gives_the_players_of_the_evening_logins_with_an_email_and_signs_one_in(tmp_path):
    big, small = ClubFactory(), ClubFactory()
    for club, count in ((big, 6), (small, 3)):
        for _ in range(count):
            role = ClubRoleFactory(club=club)
            CurrentGrade.objects.create(
                member=role.member, grade=50.0, status="E", band="", initial_grade=50.0, as_of=DAY
            )
    ClubRoleFactory(club=small)  # never graded: not drawn on
    had = Member.objects.filter(club_roles__club=big).order_by("pk").last()
    had.user = UserFactory(email="")
    had.save()
    own = Member.objects.filter(club_roles__club=small).order_by("pk").first()
    own.user = UserFactory(email="own@example.org")
    own.save()
    out = tmp_path / "evening.json"
    setup(str(out), 3)
    state = json.loads(out.read_text())
    assert [c["slug"] for c in state["clubs"]] == [big.slug, small.slug]
    assert [len(c["numbers"]) for c in state["clubs"]] == [6, 3]
    assert state["logins_made"] == 7  # two members already had a login
    assert state["addresses"] == {own.national_number: "own@example.org"}  # kept
    for number in (n for c in state["clubs"] for n in c["numbers"]):
        member = Member.objects.select_related("user").get(national_number=number)
        assert member.user.email == state["addresses"].get(number, email_of(number))
        if member.pk not in (had.pk, own.pk):  # logins made here have no password
            assert not member.user.has_usable_password()
    had.refresh_from_db()
    assert had.user.email == email_of(had.national_number)
    assert state["login"]["number"] == state["clubs"][0]["numbers"][0]
    assert state["login"]["session"]


def test_the_text_report_prints_the_evening_against_its_targets():
    report = {
        "scale": "small",
        "machine": {"date": "d", "commit": "c", "nproc": 2, "memory_gb": 1, "cpu": "x"},
        "total_seconds": 1.0,
        **empty_report(),
    }
    report.update(
        evening_upload_p95_on_ms=1100.0,
        evening_upload_p95_off_ms=1000.0,
        evening_upload_p95_ratio=1.1,
        evening_emails_expected=96,
        evening_emails_received=96,
        evening_email_lag_p95_s=2.0,
        evening_email_lag_max_s=3.5,
        evening_results_page_ms=40.0,
        evening_grade_card_ms=20.0,
        evening_results_page_ratio=2.0,
        evening={"sessions": 4, "tables": TABLES, "results_session": {"tables": RESULTS_TABLES}},
    )
    command = Command(stdout=io.StringIO())
    command._print(report)
    text = command.stdout._out.getvalue()
    assert "evening (4 x 12-table sessions)" in text
    assert "= 1.10x" in text and "emails 96/96" in text and "40-table results page" in text
