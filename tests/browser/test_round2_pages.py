"""Issue 30 in Chromium, at 1,280 and 390 px: privacy said plainly (item 1), the session table
and the phone's menus (item 6), the chart pages on the partial plotly bundle (item 7).
Screenshots under tests/artifacts/ (round2-*.png)."""

import pytest

from tests.browser.conftest import log_in

pytestmark = pytest.mark.browser

WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}


def _regular_partner(member):
    from grading.models import SessionGrade

    partners = list(
        SessionGrade.objects.filter(member=member)
        .exclude(partner=None)
        .values_list("partner_id", flat=True)
    )
    return max(set(partners), key=partners.count)


def _shots(page, url, name, artifacts, ready=None):
    for label, (width, height) in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": height})
        page.goto(url)
        if ready:
            page.wait_for_selector(ready)
        assert page.evaluate("document.documentElement.scrollWidth") <= width, (name, label)
        page.screenshot(path=str(artifacts / f"round2-{name}-{width}.png"), full_page=True)


def test_privacy_is_said_plainly(demo_site, page, artifacts):
    from grading.models import SessionGrade
    from members.models import Member
    from members.services import member_privacy_set

    me = Member.objects.get(user__username="demo-member")
    partner = Member.objects.get(pk=_regular_partner(me))
    member_privacy_set(member=partner, private=True)
    log_in(page, demo_site.url, "demo-member", "demo-member")

    _shots(page, f"{demo_site.url}/me/privacy/", "privacy", artifacts)
    limits = page.inner_text("[data-testid=privacy-cannot-hide]")
    assert "A partner can work out your grade exactly." in limits
    assert "come close" not in page.content()

    grade = SessionGrade.objects.filter(member=me, partner=partner).exclude(excess=None).first()
    _shots(page, f"{demo_site.url}/me/sessions/{grade.pk}/", "explain-private-partner", artifacts)
    note = page.inner_text("[data-testid=partner-withheld]")
    assert partner.name in note and "exactly" in note
    assert "would give your partner's grade" not in page.content()


def test_session_table_fits_a_desktop_and_menus_stay_short_on_a_phone(demo_site, page, artifacts):
    log_in(page, demo_site.url, "demo-member", "demo-member")
    _shots(page, f"{demo_site.url}/me/sessions/", "sessions", artifacts)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{demo_site.url}/me/sessions/")
    table = page.evaluate(
        """() => { const t = document.querySelector('[data-testid=history]');
          const notes = [...t.querySelectorAll('th')].pop().getBoundingClientRect();
          return {wrap: t.parentElement.scrollWidth - t.parentElement.clientWidth,
                  right: notes.right, width: t.getBoundingClientRect().width}; }"""
    )
    assert table["wrap"] == 0, table  # no sideways scrolling inside the table's box
    assert table["right"] <= 1280 and table["width"] <= 1280 - 2 * 16, table

    page.context.clear_cookies()
    log_in(page, demo_site.url, "demo-admin", "demo-admin")
    for path, name in (("grades", "club-grades"), ("sessions", "club-sessions")):
        _shots(page, f"{demo_site.url}/clubs/riverside/{path}/", name, artifacts)
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(f"{demo_site.url}/clubs/riverside/{path}/")
        menus = page.evaluate(
            """() => Math.max(...[...document.querySelectorAll('nav.nav, .club-tabs')]
                 .map(m => m.getBoundingClientRect().bottom))"""
        )
        assert menus < 250, menus  # about 400 of 844 px before (issue 30)
        current = page.locator(".club-tabs [aria-current=page]").bounding_box()
        assert 0 <= current["x"] and current["x"] + current["width"] <= 390  # scrolled into view


def test_chart_pages_load_the_partial_plotly_bundle(demo_site, page, artifacts):
    scripts: dict[str, int] = {}

    def record(response):
        if response.request.resource_type == "script":
            scripts[response.url] = len(response.body())

    page.on("response", record)
    log_in(page, demo_site.url, "demo-member", "demo-member")
    for path, name, ready in (
        ("/me/", "grade-card", "#grade-chart .main-svg"),
        ("/grades/bands/", "bands", "#bands-national .main-svg"),
    ):
        scripts.clear()
        _shots(page, demo_site.url + path, name, artifacts, ready)
        urls = list(scripts)
        assert any(u.endswith("/static/vendor/plotly-basic/plotly-basic.min.js") for u in urls)
        assert not any("/vendor/plotly/plotly.min.js" in u for u in urls), urls
        assert all(u.startswith(demo_site.url) for u in urls), urls  # offline: no CDN
        assert sum(scripts.values()) < 1_300_000, scripts  # 4.9 MB with the full bundle
    page.goto(f"{demo_site.url}/me/")
    chart = page.locator("#grade-chart")
    assert chart.get_attribute("role") == "img" and chart.get_attribute("aria-label")
    page.click("text=The figures")
    assert page.locator("details[open] tbody tr").count() > 5

    page.context.clear_cookies()
    log_in(page, demo_site.url, "demo-admin", "demo-admin")
    _shots(
        page,
        f"{demo_site.url}/clubs/riverside/sessions/",
        "sof",
        artifacts,
        "[data-testid=sof-chart] .main-svg",
    )
    first = page.locator("[data-testid=sof-chart] .plotly-graph-div").first
    assert "strength of field" in first.get_attribute("aria-label")
    page.locator("[data-testid=sof-figures] summary").first.click()
    assert page.locator("[data-testid=sof-figures] tbody tr").count() >= 3
