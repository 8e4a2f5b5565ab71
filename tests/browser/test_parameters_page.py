"""Staff change the NGS parameter set and replay the ledger from the browser (S9, S13)."""

import pytest

from tests.browser.conftest import log_in

pytestmark = pytest.mark.browser


@pytest.fixture
def graded_site(live_server, transactional_db):
    """A staff login and one graded Butler session (graded when the upload commits)."""
    from grading.uploads.services import upload_create
    from tests.csvfiles import butler_session_rows, csv_bytes
    from tests.factories import ClubFactory, UserFactory

    UserFactory(username="grader", password="grader-pw", is_staff=True)
    rows = butler_session_rows()
    upload_create(
        club=ClubFactory(slug="riverside", national_number=""),
        filename="mon.csv",
        data=csv_bytes(rows),
    )
    yield live_server


def test_staff_switch_the_parameter_set_and_replay(graded_site, page, artifacts):
    from grading.ledger.replay.check import ledger_check
    from grading.models import LedgerHead

    base = graded_site.url
    log_in(page, base, "grader", "grader-pw")
    page.click("[data-nav=staff-parameters]")
    page.wait_for_url(f"{base}/staff/parameters/")
    assert page.locator("[data-testid=active-name]").inner_text() == "ngs-15a"
    assert page.locator("[data-testid=parameters-table] td.differs").count() == 5
    page.screenshot(path=str(artifacts / "staff-parameters.png"), full_page=True)

    page.on("dialog", lambda dialog: dialog.accept())  # the data-confirm question
    page.click("[data-testid=change-form] button[type=submit]")  # nothing chosen: not sent
    assert page.locator("#id_params:invalid, #id_reason:invalid").count() == 2
    page.select_option("#id_params", "fr18-factors")
    page.fill("#id_reason", "FR 18's estimates of the IMP factors")
    page.click("[data-testid=change-form] button[type=submit]")
    page.wait_for_url(f"{base}/staff/parameters/")
    assert "being recomputed" in page.locator(".messages").inner_text()
    assert page.locator("[data-testid=active-name]").inner_text() == "fr18-factors"
    rows = page.locator("[data-testid=history] tbody tr")
    assert rows.count() == 2
    assert rows.nth(1).inner_text().split("\t")[1:] == [
        "change",
        "grader",
        "ngs-15a",
        "fr18-factors",
        "FR 18's estimates of the IMP factors",
    ]
    assert LedgerHead.objects.get().params_name == "fr18-factors" and ledger_check() == []
    page.screenshot(path=str(artifacts / "staff-parameters-changed.png"), full_page=True)

    page.click("[data-testid=replay-form] button[type=submit]")
    page.wait_for_url(f"{base}/staff/parameters/")
    assert "being replayed" in page.locator(".messages").inner_text()
    assert page.locator("[data-testid=history] tbody tr[data-kind=refold]").count() == 2
    page.set_viewport_size({"width": 390, "height": 844})  # a phone: the table scrolls sideways
    page.screenshot(path=str(artifacts / "staff-parameters-phone.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
