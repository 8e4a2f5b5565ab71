"""Results for the players in Chromium (S16): a member follows the link in their result email
to their scorecard; a club's administrator sets strata and sees them ranked on the results
page. Screenshots in tests/artifacts/."""

import datetime as dt
import re

import pytest
from playwright.sync_api import expect

from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser

PLAYED = dt.date(2026, 11, 17)


@pytest.fixture
def results_site(live_server, transactional_db, settings):
    """A club, its administrator, and a graded Howell with travellers in which member 5001
    (with a login and an email) played."""
    from grading.models import Session
    from grading.uploads.services import upload_create
    from tests.factories import ClubRoleFactory, MemberFactory, UserFactory
    from tests.results.world import numbers, session_file

    settings.SITE_URL = live_server.url
    admin = UserFactory(username="results-admin")
    role = ClubRoleFactory(member=MemberFactory(user=admin), role="admin")
    MemberFactory(
        national_number="5001",
        name="Alice Archer",
        user=UserFactory(username="alice", email="alice@example.org"),
    )
    upload_create(
        club=role.club,
        filename="tuesday.xml",
        data=session_file(players=numbers(7), date=PLAYED),
        check_club=False,
    )
    return {"url": live_server.url, "club": role.club, "session": Session.objects.get()}


def sign_in_here(page, username: str) -> None:
    page.fill("#id_username", username)
    page.fill("#id_password", "pw-for-tests")
    page.click("button[type=submit]")


def test_a_member_follows_the_emails_link_to_their_scorecard(page, results_site):
    from django.core import mail

    ARTIFACTS.mkdir(exist_ok=True)
    sent = [m for m in mail.outbox if "alice@example.org" in m.to]
    assert len(sent) == 1
    html = sent[0].alternatives[0][0]
    page.set_viewport_size({"width": 390, "height": 844})
    page.set_content(html)
    page.screenshot(path=str(ARTIFACTS / "results-email-phone.png"), full_page=True)
    link = re.search(r"(http://\S+/results/\d+/v1/)", sent[0].body).group(1)
    page.goto(link)  # signed out: the login page first, then straight back to the results
    sign_in_here(page, "alice")
    page.wait_for_url(re.compile(r"/results/\d+/v1/"))
    card = page.get_by_test_id("scorecard")
    expect(card).to_contain_text("Your scorecard")
    expect(card).to_contain_text("Alice Archer")
    assert card.locator("tbody tr").count() >= 10
    expect(page.locator("tr.mine").first).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "results-scorecard-phone.png"), full_page=False)
    page.set_viewport_size({"width": 1200, "height": 900})
    page.screenshot(path=str(ARTIFACTS / "results-page.png"), full_page=True)


def test_an_administrator_sets_strata_and_sees_them(page, results_site):
    from grading.models import CurrentGrade, SessionGrade

    session = results_site["session"]
    # Published grades (not provisional), the lower half of the field below 50 at the start.
    for i, grade in enumerate(SessionGrade.objects.filter(version=session.live_version)):
        grade.grade_before = 44.0 + i
        grade.save(update_fields=["grade_before"])
    CurrentGrade.objects.update(status="E")
    url = results_site["url"]
    page.goto(f"{url}/accounts/login/")
    sign_in_here(page, "results-admin")
    page.wait_for_url(f"{url}/dashboard/")
    page.goto(f"{url}/clubs/{results_site['club'].slug}/results/")
    form = page.get_by_test_id("strata-form")
    form.locator("#id_limit1").fill("50")
    form.locator("#id_limit2").fill("47")
    form.locator("button[type=submit]").click()
    expect(page.get_by_test_id("strata-list")).to_contain_text("below 50.00, below 47.00")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "results-strata-settings.png"), full_page=True)
    page.goto(f"{url}/results/{session.pk}/")
    strata = page.get_by_test_id("strata")
    expect(strata).to_contain_text("Pairs averaging below 50.00")
    expect(strata).to_contain_text("Pairs averaging below 47.00")
    assert strata.locator("tbody tr").count() >= 2
    strata.screenshot(path=str(ARTIFACTS / "results-strata.png"))
