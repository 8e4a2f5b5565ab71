"""The demo data of make run (issues 2 and 5): results through the real pipeline."""

import datetime as dt

import pytest

from clubs.models import HostExemptionRequest, PlannedSession
from grading.ledger.replay.check import ledger_check
from grading.models import CurrentGrade, SessionGrade, SessionVersion, Upload
from grading.site.demo import demo_plans_create, demo_results, demo_results_import, demo_seed
from members.models import Member

TODAY = dt.date(2026, 11, 22)
NOON = dt.datetime(2026, 11, 22, 12, tzinfo=dt.UTC)  # the demo's clock on TODAY


def test_demo_results_are_deterministic_and_end_before_today():
    first, again = demo_results(TODAY, weeks=6), demo_results(TODAY, weeks=6)
    assert first == again
    text = b"".join(data for _, _, data in first).decode()
    assert "2026-11-16" in text  # the last Monday before today
    assert "2026-11-22" not in text


@pytest.mark.django_db
def test_demo_import_grades_everything_once(django_capture_on_commit_callbacks):
    demo_seed()
    with django_capture_on_commit_callbacks(execute=True):
        uploaded = demo_results_import(today=TODAY, weeks=6)
        again = demo_results_import(today=TODAY, weeks=6)
    assert uploaded > 0 and again == 0
    assert not Upload.objects.exclude(status=Upload.Status.GRADED).exists()
    assert SessionVersion.objects.filter(state="graded").count() == 12
    member = Member.objects.get(user__username="demo-member")
    assert SessionGrade.objects.filter(member=member, session_grade__isnull=False).count() >= 6
    assert CurrentGrade.objects.filter(member=member).exists()
    assert ledger_check() == []


@pytest.mark.django_db
def test_demo_plans_include_a_waiting_host_request():
    demo_seed()
    demo_plans_create(today=TODAY, now=NOON)
    demo_plans_create(today=TODAY, now=NOON)
    assert PlannedSession.objects.filter(date__gte=TODAY).count() == 4
    request = HostExemptionRequest.objects.get()
    assert request.status == "waiting" and request.planned_session.club.slug == "riverside"


def test_the_demo_register_file_is_the_one_the_demo_loads():
    from pathlib import Path

    from grading.site.demo import demo_register_csv

    shipped = Path(__file__).resolve().parent.parent / "docs/examples/demo-register.csv"
    assert shipped.read_bytes() == demo_register_csv()


@pytest.mark.django_db
def test_the_demo_has_a_register_and_a_club_without_an_administrator(client):
    from clubs.models import ClubRole
    from grading.site.demo import demo_register_csv
    from grading.staff.register import register_load
    from tests.factories import UserFactory

    demo_seed()
    assert Member.objects.exclude(register_status="").count() == 60
    assert ClubRole.objects.filter(club__slug="riverside", home=True).count() == 40
    assert not ClubRole.objects.filter(club__slug="hilltop", role="admin").exists()
    assert register_load(data=demo_register_csv()).text().startswith("Nothing changed")
    client.force_login(UserFactory(is_staff=True))
    page = client.get("/staff/").content.decode()
    waiting = page.split('data-testid="staff-sign-ups"')[1].split("</section>")[0]
    assert "Hilltop Bridge Club" in waiting
