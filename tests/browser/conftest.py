"""Playwright driving Debian's Chromium against pytest-django's live server."""

import os
from pathlib import Path

import pytest

from tests.conftest import skip_or_fail

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        skip_or_fail(f"{CHROMIUM} is missing: apt-get install -y chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.set_default_timeout(float(os.environ.get("BROWSER_TIMEOUT_MS", "15000")))
    yield page
    context.close()


DEMO_WEEKS = 12  # a shorter history than make run's year: the live server's database is
# flushed after every test, so each browser test seeds again


@pytest.fixture
def demo_site(live_server, transactional_db):
    """The live server with the demo people, 12 weeks of graded results at both clubs,
    planned sessions and a waiting host request (grading.site.demo)."""
    from django.utils import timezone

    from grading.site.demo import demo_plans_create, demo_results_import, demo_seed

    demo_seed()
    today = timezone.localdate()
    demo_results_import(today=today, weeks=DEMO_WEEKS)
    demo_plans_create(today=today)
    return live_server


def log_in(page, base_url: str, username: str, password: str) -> None:
    page.goto(f"{base_url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base_url}/dashboard/")
