"""The union runs it, end to end in Chromium (S15): staff register a club and appoint its
administrator; the administrator follows the emailed link, chooses a password and uploads a
file; staff load the member register and the administrator invites its members in one step; a
sign-up shows as a count on the club's pages and is approved. Screenshots under
tests/artifacts/."""

import re

import pytest
from django.core import mail
from playwright.sync_api import expect

from clubs.models import Club, ClubRole
from grading.models import Upload
from members.models import Invitation, Member
from tests.browser.conftest import log_in
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import UserFactory

pytestmark = pytest.mark.browser

PASSWORD = "a-long-pass-phrase-9"


def link_to(address: str) -> str:
    message = [m for m in mail.outbox if m.to == [address]][-1]
    return re.findall(r"https?://\S+/accounts/\S+", message.body)[0]


def log_out(page):
    page.click("nav form button[type=submit]")


def test_staff_bring_a_club_on_and_its_administrator_runs_it(
    live_server, transactional_db, page, tmp_path, artifacts
):
    base = live_server.url
    UserFactory(username="union", password=PASSWORD, is_staff=True)

    # Staff register the club and appoint its administrator.
    log_in(page, base, "union", PASSWORD)
    page.goto(f"{base}/staff/clubs/")
    page.click("[data-testid=club-new]")
    page.fill("#id_name", "Seaside Bridge Club")
    page.fill("#id_national_number", "4321")
    page.fill("#id_county", "Devon")
    page.click("[data-testid=club-form] button[type=submit]")
    expect(page.locator(".messages")).to_contain_text("Seaside Bridge Club is registered")
    club = Club.objects.get(national_number="4321")
    form = page.locator("[data-testid=appoint-form]")
    form.locator("#id_number").fill("300001")
    form.locator("#id_email").fill("sally@example.org")
    form.locator("#id_name").fill("Sally Scorer")
    form.locator("button[type=submit]").click()
    expect(page.locator(".messages")).to_contain_text("Invitation to administer")
    page.screenshot(path=str(artifacts / "union-club-appointed.png"), full_page=True)
    log_out(page)

    # The administrator follows the emailed link, chooses a password, uploads a file.
    page.goto(link_to("sally@example.org"))
    page.fill("#id_username", "sally")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("[data-testid=choose-login-form] button[type=submit]")
    page.wait_for_url(f"{base}/me/")
    assert ClubRole.objects.get(club=club, member__national_number="300001").role == "admin"
    numbers = [("300001", "300002")] + [
        (str(300011 + 2 * i), str(300012 + 2 * i)) for i in range(7)
    ]
    path = tmp_path / "monday.csv"
    path.write_bytes(csv_bytes(mp_session_rows(numbers=numbers)))
    page.goto(f"{base}/clubs/{club.slug}/uploads/")
    page.set_input_files("#id_files", str(path))
    page.click("[data-testid=upload-form] button[type=submit]")
    page.wait_for_selector("[data-testid=upload-status][data-status=graded]", timeout=30000)
    assert Upload.objects.get().status == Upload.Status.GRADED
    log_out(page)

    # Staff load the register; the administrator invites its members in one step.
    register = tmp_path / "register.csv"
    register.write_text(
        "membership_number,first_name,surname,email,clubs,status\n"
        "300001,Sally,Scorer,sally@example.org,4321,active\n"
        "300002,Paul,Partner,paul@example.org,4321,active\n"
        "300011,Olive,Other,olive@example.org,4321,active\n"
        "399999,Nick,Noemail,,4321,active\n"
    )
    log_in(page, base, "union", PASSWORD)
    page.goto(f"{base}/staff/register/")
    page.set_input_files("#id_file", str(register))
    page.click("[data-testid=register-form] button[type=submit]")
    expect(page.locator("[data-testid=added]")).to_have_text("1")  # Nick: new to the product
    expect(page.locator("[data-testid=changed]")).to_have_text("3")
    page.screenshot(path=str(artifacts / "union-register-loaded.png"), full_page=True)
    log_out(page)

    log_in(page, base, "sally", PASSWORD)
    page.goto(f"{base}/clubs/{club.slug}/members/")
    invite = page.locator("[data-testid=invite-register]")
    expect(invite).to_contain_text("2 members")
    invite.locator("button[type=submit]").click()
    expect(page.locator(".messages")).to_contain_text("Invitations are being sent to 2 members")
    assert {i.email for i in Invitation.objects.filter(accepted__isnull=True)} == {
        "paul@example.org",
        "olive@example.org",
    }
    assert link_to("paul@example.org") and link_to("olive@example.org")
    log_out(page)

    # Nick asks for a login; his home club's administrator sees the count and approves.
    page.goto(f"{base}/accounts/sign-up/")
    page.fill("#id_number", "399999")
    page.fill("#id_name", "Nick Noemail")
    page.fill("#id_email", "nick@example.org")
    page.click("[data-testid=sign-up-form] button[type=submit]")
    expect(page.locator("[data-testid=sign-up-sent]")).to_be_visible()
    assert any(m.to == ["sally@example.org"] and "399999" in m.body for m in mail.outbox)
    log_in(page, base, "sally", PASSWORD)
    expect(page.locator("[data-testid=dashboard-sign-ups]")).to_contain_text("1 sign-up waiting")
    page.goto(f"{base}/clubs/{club.slug}/")
    count = page.locator("[data-testid=sign-ups-waiting]")
    expect(count).to_contain_text("1 sign-up waiting for your answer")
    page.screenshot(path=str(artifacts / "union-sign-up-count.png"), full_page=True)
    count.locator("a").click()
    row = page.locator("[data-testid=sign-ups] tr[data-number='399999']")
    row.locator("button[value=approve]").click()
    expect(page.locator(".messages")).to_contain_text("Approved")
    expect(page.locator("[data-testid=sign-ups-waiting]")).to_have_count(0)
    approved = [m for m in mail.outbox if m.to == ["nick@example.org"]][-1]
    assert "approved" in approved.subject
    assert Member.objects.get(national_number="399999").user is None  # until he follows it


def test_the_staff_page_in_the_demo(live_server, transactional_db, page, artifacts):
    """The demo's staff page: Hilltop has no administrator and a sign-up waits there."""
    from grading.site.demo import demo_seed

    demo_seed()
    log_in(page, live_server.url, "demo-staff", "demo-staff")
    page.click("nav >> [data-nav=staff]")
    page.wait_for_url(f"{live_server.url}/staff/")
    expect(page.locator("[data-testid=clubs-without-admin]")).to_contain_text("Hilltop")
    expect(page.locator("[data-testid=staff-sign-ups]")).to_contain_text("Hilltop Bridge Club")
    expect(page.locator("[data-testid=tasks-waiting]")).to_contain_text("in-process")
    page.screenshot(path=str(artifacts / "union-staff-page.png"), full_page=True)
    # a member is refused with the product's own page, not the admin's login
    page.click("nav form button[type=submit]")
    log_in(page, live_server.url, "demo-member", "demo-member")
    page.goto(f"{live_server.url}/staff/clubs/")
    expect(page.locator("[data-testid=error-403]")).to_be_visible()
