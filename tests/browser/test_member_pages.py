"""The member pages in Chromium as demo-member (issue 6): key figures against the database,
screenshots under tests/artifacts/."""

import datetime as dt

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from grading.engine.ngs import shown
from grading.models import CurrentGrade
from members.selectors.card import grade_card
from tests.browser.conftest import log_in

pytestmark = pytest.mark.browser


def _send(club, data: bytes, name: str):
    from grading.models import Upload
    from grading.uploads.services import upload_create

    upload = upload_create(club=club, filename=name, data=data)  # commits: grading runs
    upload.refresh_from_db()
    assert upload.status == Upload.Status.GRADED, (upload.problems, upload.summary)


@pytest.fixture
def member_site(demo_site):
    """The demo site; demo-member gets a graded history if the demo data has none yet."""
    from clubs.models import Club
    from clubs.services import planned_session_create
    from grading.models import SessionGrade
    from members.models import Member
    from tests.members import world

    demo = Member.objects.get(user__username="demo-member")
    if not SessionGrade.objects.filter(member=demo).exists():
        people = world.People.numbered(int(demo.national_number))
        world.build(
            _send,
            Club.objects.get(slug="riverside"),
            Club.objects.get(slug="hilltop"),
            people,
            prefix="T6-",
        )
    planned_session_create(
        club=Club.objects.get(slug="riverside"),
        event_name="Monday Pairs",
        date=timezone.localdate() + dt.timedelta(days=1),
        start=dt.time(19, 30),
    )
    demo_site.member = demo
    return demo_site


@pytest.fixture
def member_page(member_site, page):
    log_in(page, member_site.url, "demo-member", "demo-member")
    return page


def test_grade_card(member_site, member_page, artifacts):
    from grading.models import CurrentGrade

    page = member_page
    page.click("[data-nav=member]")
    page.wait_for_url(f"{member_site.url}/me/")
    current = CurrentGrade.objects.get(member=member_site.member)
    assert page.inner_text("[data-testid=grade]") == f"{shown(current.grade):.2f}"
    assert page.inner_text("[data-testid=band]") == current.band
    assert page.inner_text("[data-testid=status-label]") == current.get_status_display()
    assert page.inner_text("[data-testid=boards]") == str(current.boards_in_window)
    page.wait_for_selector("#grade-chart .main-svg")  # plotly drew the chart
    assert page.locator("#grade-chart .scatterlayer .point").count() > 5
    page.screenshot(path=str(artifacts / "member-grade-card.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    page.wait_for_selector("#grade-chart .main-svg")
    page.screenshot(path=str(artifacts / "member-grade-card-phone.png"), full_page=True)


def test_session_history_and_explain(member_site, member_page, artifacts):
    from grading.models import SessionGrade
    from members.selectors.history import history_rows

    page = member_page
    page.goto(f"{member_site.url}/me/sessions/")
    rows = list(history_rows(member=member_site.member)[:25])
    assert page.locator("[data-testid=history-row]").count() == len(rows)
    first_graded = next(r for r in rows if r.session_grade is not None)
    line = page.locator(f"[data-testid=history-row][data-id='{first_graded.pk}']")
    assert line.locator("[data-testid=session-grade]").inner_text() == (
        f"{first_graded.session_grade:.2f}"
    )
    assert line.locator("[data-testid=par]").inner_text() == f"{first_graded.par:.2f}%"
    page.screenshot(path=str(artifacts / "member-sessions.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(artifacts / "member-sessions-phone.png"), full_page=False)
    page.set_viewport_size({"width": 1200, "height": 900})
    line.locator("a").first.click()
    page.wait_for_url(f"{member_site.url}/me/sessions/session/{first_graded.version.session_id}/")
    grade = SessionGrade.objects.get(pk=first_graded.pk)
    assert page.inner_text("[data-testid=buildup] [data-testid=par]") == f"{grade.par:.2f}%"
    assert "Why a good score can lower your grade" in page.content()
    page.screenshot(path=str(artifacts / "member-explain.png"), full_page=True)


def test_partners(member_site, member_page, artifacts):
    from members.selectors.partners import partnerships

    page = member_page
    page.goto(f"{member_site.url}/me/partners/")
    expected = partnerships(member=member_site.member)
    assert page.locator("[data-testid=partner-row]").count() == len(expected)
    top = expected[0]
    row = page.locator(f"[data-testid=partner-row][data-number='{top.partner.national_number}']")
    assert row.locator("[data-testid=boards]").inner_text() == str(top.boards)
    page.screenshot(path=str(artifacts / "member-partners.png"), full_page=True)


def test_forecast(member_site, member_page, artifacts):
    from grading.models import CurrentGrade

    page = member_page
    page.goto(f"{member_site.url}/me/forecast/")
    page.fill("#id_partner_grade", "48")
    page.select_option("#id_series", index=1)
    page.click("[data-testid=forecast-form] button[type=submit]")
    page.wait_for_selector("[data-testid=forecast-result]")
    mine = shown(CurrentGrade.objects.get(member=member_site.member).grade)
    par_text = page.inner_text("[data-testid=forecast-result] [data-testid=par]")
    field = float(
        page.locator("#id_series option:checked")
        .inner_text()
        .split("recent field ")[1]
        .split(",")[0]
    )
    assert float(par_text.rstrip("%")) == pytest.approx(50 + (mine + 48) / 2 - field, abs=0.011)
    assert page.locator("[data-testid=chance]").count() == 5
    page.screenshot(path=str(artifacts / "member-forecast.png"), full_page=True)


def test_privacy_and_host_exemption(member_site, member_page, artifacts):
    from clubs.models import HostExemptionRequest

    page = member_page
    page.goto(f"{member_site.url}/me/privacy/")
    page.check("input[value=private]")
    page.click("[data-testid=privacy-form] button[type=submit]")
    expect(page.locator("[data-testid=privacy-now]")).to_contain_text("private")
    member_site.member.refresh_from_db()
    assert member_site.member.grade_private
    page.screenshot(path=str(artifacts / "member-privacy.png"), full_page=True)
    page.check("input[value=public]")
    page.click("[data-testid=privacy-form] button[type=submit]")
    expect(page.locator("[data-testid=privacy-now]")).to_contain_text("public")

    before = HostExemptionRequest.objects.filter(member=member_site.member).count()
    page.goto(f"{member_site.url}/me/host-exemption/")
    page.select_option("#id_planned_session", index=1)
    page.fill("#id_partner_number", "100001")
    page.click("[data-testid=exemption-form] button[type=submit]")
    page.wait_for_selector("[data-testid=request]")
    assert "Waiting for the club" in page.inner_text("[data-testid=requests]")
    assert HostExemptionRequest.objects.filter(member=member_site.member).count() == before + 1
    page.select_option("#id_planned_session", index=1)
    page.fill("#id_partner_number", "100001")
    page.click("[data-testid=exemption-form] button[type=submit]")
    assert "You have already asked to host this session" in page.inner_text("[data-testid=refused]")
    page.screenshot(path=str(artifacts / "member-host-exemption.png"), full_page=True)


def test_public_pages(member_site, page, artifacts):
    from members.selectors.public import top_grades

    page.goto(f"{member_site.url}/grades/top/")
    expected = top_grades()
    assert page.locator("[data-testid=top-row]").count() == len(expected)
    page.screenshot(path=str(artifacts / "public-top.png"), full_page=True)
    page.goto(f"{member_site.url}/grades/bands/?club=riverside")
    page.wait_for_selector("#bands-national .main-svg")
    page.wait_for_selector("#bands-club .main-svg")
    page.screenshot(path=str(artifacts / "public-bands.png"), full_page=True)
    number = expected[0].number
    page.goto(f"{member_site.url}/members/{number}/")
    assert page.inner_text("[data-testid=grade]") == f"{expected[0].grade:.2f}"
    page.screenshot(path=str(artifacts / "public-member.png"), full_page=True)


def test_grade_chart_is_the_grade_as_of_each_day_and_ends_on_the_card(
    member_site, member_page, artifacts
):
    """Issue 19: the chart draws the grade at the end of each day played from every result
    known now (no saw-tooth from a late upload); its last point is the card's grade."""
    page = member_page
    page.goto(f"{member_site.url}/me/")
    page.wait_for_selector("#grade-chart .main-svg")
    figure = page.evaluate("JSON.parse(document.getElementById('grade-chart-data').textContent)")
    ys = figure["data"][0]["y"]
    card = grade_card(member=member_site.member)
    assert ys == pytest.approx([p.grade for p in card.points])
    assert f"{ys[-1]:.2f}" == page.inner_text("[data-testid=grade]")
    current = CurrentGrade.objects.get(member=member_site.member)
    assert f"{ys[-1]:.2f}" == f"{shown(current.grade):.2f}"
    drawn = page.locator("#grade-chart .scatterlayer .point").count()
    assert drawn == len(card.points)
    assert "end of a day you played" in page.inner_text("[data-testid=chart-words]")
    page.locator("#grade-chart").screenshot(path=str(artifacts / "member-grade-chart.png"))


LABEL_APART = """(rows) => rows.flatMap((tr) => [...tr.querySelectorAll('td')].map((td) => {
  const box = td.getBoundingClientRect();
  const style = getComputedStyle(td);
  if (style.display === 'none') return null;
  const label = parseFloat(style.gridTemplateColumns.split(' ')[0]);
  const range = document.createRange();
  range.selectNodeContents(td);
  const value = range.getBoundingClientRect();
  return {label: td.dataset.label, tdLeft: box.left, tdRight: box.right, labelWidth: label,
          valueLeft: value.left, valueRight: value.right, empty: value.width === 0};
}).filter(Boolean))"""


def test_session_cards_at_390px_keep_labels_apart_from_values(member_site, member_page, artifacts):
    page = member_page
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{member_site.url}/me/sessions/")
    cells = page.locator("[data-testid=history-row]").evaluate_all(LABEL_APART)
    assert len(cells) > 20
    for cell in cells:
        assert cell["labelWidth"] > 50, cell
        if cell["empty"]:
            continue
        # the value starts right of the label's column and stays inside the card
        assert cell["valueLeft"] >= cell["tdLeft"] + cell["labelWidth"], cell
        assert cell["valueRight"] <= cell["tdRight"] + 1, cell
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390
    page.locator("[data-testid=history-row]").first.evaluate("(tr) => tr.scrollIntoView()")
    page.screenshot(path=str(artifacts / "member-sessions-390.png"), full_page=False)
