"""The site around the pages (issue 19 item 5): 403, 404 and 500 in the site's look, with the
navigation and a sentence on what happened and what to do, also under production settings
(DJANGO_DEBUG=0, collected static files); the home page shows a newcomer where to go, and the
demo logins on a development server only."""

import html
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import ClubFactory, ClubRoleFactory, MemberFactory, UserFactory

ROOT = Path(__file__).resolve().parent.parent.parent
NAV = 'aria-label="Main"'


@pytest.mark.django_db
def test_404_in_the_sites_look(client):
    page = client.get("/no/such/page/")
    body = page.content.decode()
    assert page.status_code == 404
    assert NAV in body and "There is no page at this address" in body
    assert reverse("members:top") in body  # somewhere to go


@pytest.mark.django_db
def test_403_in_the_sites_look_says_who_may_open_it(client):
    user = UserFactory(username="plain")
    ClubRoleFactory(member=MemberFactory(user=user))
    client.force_login(user)
    page = client.get(reverse("clubs:dashboard", args=[ClubFactory().slug]))
    body = html.unescape(page.content.decode())
    assert page.status_code == 403
    assert NAV in body and "This page is not open to you" in body
    assert "Only the club's administrators may open this page." in body
    assert "logged in as plain" in body


@pytest.mark.django_db
def test_500_in_the_sites_look(monkeypatch):
    import grading.site.pages

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(grading.site.pages, "render", broken)
    page = Client(raise_request_exception=False).get(reverse("home"))
    body = page.content.decode()
    assert page.status_code == 500
    assert NAV in body and "Something went wrong on our side" in body


def test_api_errors_stay_json(client, db):
    response = client.get("/api/v1/no-such-thing/")
    assert response.status_code == 404 and response.json() == {"detail": "Not found."}


@pytest.mark.django_db
def test_home_shows_a_newcomer_where_to_go(client, settings):
    settings.DEBUG = False
    body = client.get(reverse("home")).content.decode()
    for name in ("members:top", "members:bands", "score-tool", "vp-scale", "login"):
        assert reverse(name) in body, name
    assert reverse("accounts:sign-up") in body
    assert "demo-member" not in body  # no demo logins on a production server


@pytest.mark.django_db
def test_home_shows_the_demo_logins_on_a_development_server(client, settings):
    settings.DEBUG = True
    body = client.get(reverse("home")).content.decode()
    assert 'data-testid="demo-logins"' in body
    for login in ("demo-member", "demo-admin", "demo-staff"):
        assert f"<code>{login}</code>" in body


SCRIPT = textwrap.dedent(
    """
    import django
    django.setup()
    from django.core.exceptions import PermissionDenied
    from django.test import Client
    from django.urls import path
    import grading.urls

    def forbidden(request):
        raise PermissionDenied("Only the club's administrators may open this page.")

    def broken(request):
        raise RuntimeError("boom")

    grading.urls.urlpatterns[:0] = [path("t/forbidden/", forbidden), path("t/broken/", broken)]
    client = Client(raise_request_exception=False)
    for url, status in (("/no/such/", 404), ("/t/forbidden/", 403), ("/t/broken/", 500)):
        response = client.get(url, secure=True)
        body = response.content.decode()
        assert response.status_code == status, (url, response.status_code)
        assert 'aria-label="Main"' in body, body[:500]
        assert "/static/css/site." in body  # the site's stylesheet, by its hashed name
        print(url, status, "ok")
    """
)


@pytest.mark.slow
def test_error_pages_under_production_settings(tmp_path):
    """DJANGO_DEBUG=0: hashed static names from the collected manifest, no debug pages."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL"))}
    env.update(
        DJANGO_SETTINGS_MODULE="grading.settings",
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY="test-only-" + "k" * 50,
        DJANGO_ALLOWED_HOSTS="testserver",
        DJANGO_STATIC_ROOT=str(tmp_path / "static"),
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
    )
    run = dict(cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    collected = subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput"], **run)
    assert collected.returncode == 0, collected.stderr
    result = subprocess.run([sys.executable, "-c", SCRIPT], **run)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count(" ok") == 3


@pytest.mark.django_db
def test_a_refused_form_says_what_to_do():
    client = Client(enforce_csrf_checks=True)
    page = client.post(reverse("accounts:sign-up"), {"number": "1"})
    body = page.content.decode()
    assert page.status_code == 403
    assert NAV in body and "Your form was not accepted" in body
