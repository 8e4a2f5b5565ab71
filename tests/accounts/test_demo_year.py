"""The demo's year arrives as a real one would (issue 19 item 2, last bullet): each club's
sessions uploaded within a few days of play, the two clubs interleaved, a handful late and two
corrected."""

import datetime as dt

import pytest
from django.db.models import Count

from grading.ledger.replay.check import ledger_check
from grading.models import Session, SessionVersion, Upload
from grading.site.demo import demo_results_import, demo_seed, demo_upload_plan

TODAY = dt.date(2026, 11, 22)


def played(filename: str) -> dt.date:
    return dt.date.fromisoformat(filename.split("-", 2)[2][:10])


def test_a_year_of_uploads_interleaves_the_clubs_within_days_of_play():
    plan = demo_upload_plan(TODAY)
    assert [when for when, *_ in plan] == sorted(when for when, *_ in plan)
    assert max(when for when, *_ in plan) <= dt.datetime(2026, 11, 21, 21, 0)
    clubs = [slug for _, slug, _, _ in plan]
    switches = sum(a != b for a, b in zip(clubs, clubs[1:], strict=False))
    assert switches > 80  # weekly sessions of two clubs alternate, not one club's year first
    delays = {
        name: (when.date() - played(name)).days
        for when, _, name, _ in plan
        if not name.endswith("-corrected.csv")
    }
    late = [name for name, days in delays.items() if days > 14]
    assert len(late) == 3
    assert sum(1 <= days <= 3 for days in delays.values()) == len(delays) - len(late)
    corrected = [name for _, _, name, _ in plan if name.endswith("-corrected.csv")]
    assert len(corrected) == 2 and {name.split("-")[1] for name in corrected} == {
        "riverside",
        "hilltop",
    }
    files = {name: data for _, _, name, data in plan}
    for name in corrected:  # a correction changes the file
        assert files[name] != files[name.replace("-corrected", "")]


@pytest.mark.django_db
def test_the_demo_year_has_late_and_corrected_sessions(django_capture_on_commit_callbacks):
    demo_seed()
    with django_capture_on_commit_callbacks(execute=True):
        uploaded = demo_results_import(today=TODAY, weeks=12)
    assert uploaded == 24 + 2
    assert not Upload.objects.exclude(status=Upload.Status.GRADED).exists()
    # Only the genuinely late files are late (S5.2): on time, a club's session is in before
    # the other club plays again.
    late = SessionVersion.objects.filter(late=True, upload__filename__endswith="-corrected.csv")
    assert SessionVersion.objects.filter(late=True).count() - late.count() == 3
    corrected = Session.objects.annotate(n=Count("versions")).filter(n=2)
    assert corrected.count() == 2
    # Uploads carry the day they would have arrived, so the uploads list reads like a year.
    first = Upload.objects.order_by("created").first()
    assert first.created.date() < TODAY - dt.timedelta(weeks=10)
    assert ledger_check() == []
