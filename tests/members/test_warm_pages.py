"""What a page kept rendered still costs each request (issue 17): the session, the user with
their membership, and for a club's administrator the clubs they administer; nothing else. The
page benchmark compares these pages with a view that does nothing behind the same middleware,
which reads the session and the user too."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.sessions.backends.cached_db import SessionStore as CachedSession
from django.urls import reverse

from tests.members.conftest import url

ROOT = Path(__file__).resolve().parents[2]
CACHED_DB = "django.contrib.sessions.backends.cached_db"


def main_of_text(page: str) -> str:
    """The page without its navigation (whose log-out form has a fresh CSRF token each time)."""
    return page.split("<main", 1)[1]


def main_of(response) -> str:
    return main_of_text(response.content.decode())


@pytest.mark.parametrize("name", ["card", "sessions"])
def test_a_warm_member_page_reads_the_session_and_the_user_only(
    me_client, graded, django_assert_num_queries, name
):
    first = main_of(me_client.get(url(name)))
    with django_assert_num_queries(2):
        assert main_of(me_client.get(url(name))) == first


def test_a_warm_grade_list_reads_the_session_the_user_and_their_clubs_only(
    client, graded, django_assert_num_queries
):
    client.force_login(graded.admin_user)
    page = reverse("clubs:grades", args=[graded.riverside.slug])
    first = main_of(client.get(page))
    # The club comes from the clubs the navigation lists (the administrator's): no query of
    # its own, and no second look at the administrator's role.
    with django_assert_num_queries(3):
        again = client.get(page).content.decode()
    assert main_of_text(again) == first
    assert "Administer Riverside" in again and "Administer Hilltop" in again


def test_staff_who_administer_no_club_still_reach_the_list(client, graded):
    from tests.factories import UserFactory

    client.force_login(UserFactory(is_staff=True))
    assert client.get(reverse("clubs:grades", args=[graded.riverside.slug])).status_code == 200


def test_a_member_who_administers_another_club_is_refused(client, graded):
    from clubs.models import ClubRole

    ClubRole.objects.filter(member__user=graded.admin_user, club=graded.riverside).update(
        role="member"
    )
    client.force_login(graded.admin_user)
    assert client.get(reverse("clubs:grades", args=[graded.riverside.slug])).status_code == 403
    assert client.get(reverse("clubs:grades", args=[graded.hilltop.slug])).status_code == 200


def test_with_sessions_in_the_cache_a_warm_page_reads_the_user_only(
    client, graded, settings, django_assert_num_queries
):
    settings.SESSION_ENGINE = CACHED_DB
    client.force_login(graded.me_user)
    assert isinstance(client.session, CachedSession)
    first = main_of(client.get(url("card")))
    with django_assert_num_queries(1):
        assert main_of(client.get(url("card"))) == first


def _session_engine(**env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL",)}
    done = subprocess.run(
        [sys.executable, "-c", "import grading.settings as s; print(s.SESSION_ENGINE)"],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.strip()


def test_sessions_are_kept_in_the_cache_only_when_it_is_shared():
    """With Redis every process sees a log-out at once; a cache per process would not."""
    # cached_db, whose cache may be down (grading/common/sessions.py, issue 32 item 7)
    assert _session_engine(REDIS_URL="redis://127.0.0.1:6379/0") == "grading.common.sessions"
    assert _session_engine() == "django.contrib.sessions.backends.db"
