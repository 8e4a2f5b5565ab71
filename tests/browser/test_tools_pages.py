"""A director using the tools pages as a new user would (issue 3)."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_director_scores_a_pasted_traveller(live_server, page, artifacts):
    page.goto(f"{live_server.url}/tools/score/")
    page.fill("#id_traveller", "1 8 420\n2 7 450\n3 6 -100\n4 5 A60\n")
    page.click("button[type=submit]")
    table = page.locator("[data-testid=scored] tbody tr")
    expect(table).to_have_count(4)  # waits for the scored page (click only starts navigating)
    # A60 stays out of the comparisons, leaving a group of 3 scores, which S2.3 scores 70/60/50%
    # of the top (6): pair 2's 450 is the best of them, 4.2 match points.
    assert table.nth(1).locator("td").nth(3).inner_text() == "4.20"
    page.screenshot(path=str(artifacts / "tools-score.png"), full_page=True)


def test_director_prints_a_vp_scale(live_server, page, artifacts):
    page.goto(f"{live_server.url}/tools/vp-scale/")
    page.fill("#id_boards", "16")
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_contain_text("for 16 boards")
    first = page.locator("[data-testid=continuous] tbody tr").first.inner_text().split()
    assert first == ["0", "10.00", "10.00"]
    page.screenshot(path=str(artifacts / "tools-vp-scale.png"), full_page=True)
