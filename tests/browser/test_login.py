"""The demo logins reach their dashboards with the navigation of their role (S13)."""

import pytest

from tests.browser.conftest import log_in

pytestmark = pytest.mark.browser


def test_demo_member_sees_member_navigation_only(demo_site, page, artifacts):
    log_in(page, demo_site.url, "demo-member", "demo-member")

    assert page.locator("[data-nav=member]").is_visible()
    assert page.locator("[data-nav=club-admin]").count() == 0
    assert page.locator("[data-nav=staff]").count() == 0
    assert "100031" in page.locator("[data-testid=member-card]").inner_text()
    page.screenshot(path=str(artifacts / "dashboard-demo-member.png"), full_page=True)


def test_demo_admin_sees_club_administration_link(demo_site, page, artifacts):
    log_in(page, demo_site.url, "demo-admin", "demo-admin")

    link = page.locator("[data-nav=club-admin]")
    assert link.count() == 1
    assert "Riverside Bridge Club" in link.inner_text()
    link.click()
    page.wait_for_url(f"{demo_site.url}/clubs/riverside/")
    assert page.locator("h1").inner_text() == "Riverside Bridge Club"
    page.screenshot(path=str(artifacts / "club-dashboard-demo-admin.png"), full_page=True)


def test_demo_staff_sees_staff_link(demo_site, page, artifacts):
    log_in(page, demo_site.url, "demo-staff", "demo-staff")

    assert page.locator("[data-nav=staff]").is_visible()
    page.screenshot(path=str(artifacts / "dashboard-demo-staff.png"), full_page=True)
