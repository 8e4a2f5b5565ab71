"""The uploads page in Chromium (issue 19 items 4 and 5, issue 21 item 3): the club's tab bar,
a refused file reopened from the list, and a withdrawal followed to its end."""

import pytest

from tests.browser.conftest import log_in
from tests.csvfiles import csv_bytes, mp_session_rows

pytestmark = pytest.mark.browser


@pytest.fixture
def people_site(live_server, transactional_db, postgres):
    from grading.site.demo import demo_seed

    demo_seed()
    return live_server


def upload(page, base: str, path) -> None:
    page.goto(f"{base}/clubs/riverside/uploads/")
    page.set_input_files("#id_files", str(path))
    page.click("[data-testid=upload-form] button[type=submit]")
    page.locator("[data-testid=upload-status]").wait_for()


def test_uploads_page_reopens_problems_and_withdraws(people_site, page, tmp_path, artifacts):
    base = people_site.url
    numbers = [(str(100001 + 2 * i), str(100002 + 2 * i)) for i in range(8)]
    bad_rows = mp_session_rows(numbers=numbers)
    bad_rows[1]["date"] = "31/11/2026"
    bad, good = tmp_path / "bad.csv", tmp_path / "good.csv"
    bad.write_bytes(csv_bytes(bad_rows))
    good.write_bytes(csv_bytes(mp_session_rows(numbers=numbers, event_id="SEC")))
    log_in(page, base, "demo-admin", "demo-admin")
    upload(page, base, bad)
    upload(page, base, good)
    page.wait_for_selector("[data-testid=upload-status][data-status=graded]", timeout=30000)

    tabs = page.locator("nav.club-tabs")
    assert tabs.is_visible() and "Handicaps" in tabs.inner_text()
    listing = page.locator("[data-testid=past-uploads]")
    assert "Graded" in listing.inner_text() and "Refused" in listing.inner_text()
    page.screenshot(path=str(artifacts / "uploads-page.png"), full_page=True)

    page.click("[data-testid=past-uploads] a:has-text('1 problem: show')")
    reopened = page.locator("[data-testid=upload-status]").first
    assert "line 3, column date" in reopened.inner_text()

    page.goto(f"{base}/clubs/riverside/uploads/")
    page.once("dialog", lambda dialog: dialog.accept())
    row = page.locator("[data-testid=past-uploads] tr", has_text="good.csv")
    row.locator("button:has-text('Withdraw')").click()
    page.wait_for_selector("[data-testid=upload-status][data-status=graded]", timeout=30000)
    assert "Withdrawn:" in page.locator("[data-testid=upload-status]").first.inner_text()
    assert "Withdrawn" in page.locator("[data-testid=past-uploads]").inner_text()
    page.screenshot(path=str(artifacts / "uploads-withdrawn.png"), full_page=True)
