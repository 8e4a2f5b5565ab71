"""The staff page (S15): what needs a person and the worker's health."""

import pytest
from django.urls import reverse

from grading.models import Upload
from grading.staff.selectors import broker_lists, broker_waiting
from grading.tasks import refresh_grades
from grading.uploads.services import upload_create
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import ClubFactory, UserFactory


@pytest.mark.django_db
def test_the_staff_page_shows_the_workers_health_and_clubs_without_administrators(
    client, settings, django_capture_on_commit_callbacks
):
    settings.REDIS_URL = ""
    club = ClubFactory(name="Lonely Club")
    with django_capture_on_commit_callbacks(execute=True):
        upload_create(club=club, filename="monday.csv", data=csv_bytes(mp_session_rows()))
    refresh_grades()
    Upload.objects.create(club=club, filename="broken.csv", status=Upload.Status.FAILED)
    client.force_login(UserFactory(is_staff=True))
    page = client.get(reverse("staff-home")).content.decode()
    assert "Tasks run in-process" in page
    assert "Last upload graded: monday.csv (Lonely Club)" in page
    assert "Last nightly refresh:" in page
    without = page.split('data-testid="clubs-without-admin"')[1].split("</section>")[0]
    assert "Lonely Club" in without
    failed = page.split('data-testid="failed-uploads"')[1].split("</section>")[0]
    assert "broken.csv" in failed
    for link in ("staff-parameters", "staff-quality", "staff-clubs", "staff-register"):
        assert reverse(link) in page


def test_tasks_waiting_are_read_from_the_broker_when_there_is_one(settings):
    import redis

    url = "redis://127.0.0.1:6379/15"
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=1)
        client.ping()
    except redis.exceptions.ConnectionError:
        pytest.skip("no Redis on localhost")
    settings.REDIS_URL = url
    lists = broker_lists()
    client.delete(*lists)
    # grading's queue, the background one, and a task sent with a low priority (its own list)
    client.rpush("celery", "a", "b", "c")
    client.rpush("background", "d")
    client.rpush("background\x06\x169", "e", "f")
    try:
        assert {"celery", "background", "background\x06\x169"} <= set(lists)
        assert broker_waiting() == 6
    finally:
        client.delete(*lists)
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens: said, not a 500
    assert broker_waiting() == -1
