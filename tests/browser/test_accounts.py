"""Members get logins, end to end in Chromium (issue 19 item 1): an invitation sent from the
club's Members page, its email (read from Django's test outbox), choosing a password and
landing on the grade card; a sign-up approved by the club; a password reset. Screenshots under
tests/artifacts/."""

import re

import pytest
from django.core import mail
from playwright.sync_api import expect

from grading.common.auth import reset_mail_wait
from tests.browser.conftest import log_in

pytestmark = pytest.mark.browser


def link_from_last_email(to: str) -> str:
    reset_mail_wait()  # a password reset's email is sent off the request
    message = mail.outbox[-1]
    assert message.to == [to]
    assert message.alternatives and "<html" in message.alternatives[0][0]
    return re.findall(r"https?://\S+/accounts/\S+", message.body)[0]


def log_out(page):
    page.click("nav form button[type=submit]")


def choose_login(page, link: str, username: str, password: str):
    page.goto(link)
    page.fill("#id_username", username)
    page.fill("#id_password1", password)
    page.fill("#id_password2", password)
    page.click("[data-testid=choose-login-form] button[type=submit]")


def test_invitation_email_password_grade_card(demo_site, page, artifacts):
    base = demo_site.url
    log_in(page, base, "demo-admin", "demo-admin")
    page.goto(f"{base}/clubs/riverside/")
    page.click(".club-tabs >> text=Members")
    page.wait_for_url(f"{base}/clubs/riverside/members/")
    page.screenshot(path=str(artifacts / "accounts-members-page.png"), full_page=True)
    form = page.locator("[data-testid=invite-one]")
    form.locator("#id_number").fill("100002")
    form.locator("#id_email").fill("member2@example.org")
    form.locator("button[type=submit]").click()
    expect(page.locator(".messages")).to_contain_text("Invitation sent to member2@example.org")
    expect(page.locator("[data-testid=member-logins] tr[data-number='100002']")).to_contain_text(
        "Invited"
    )
    link = link_from_last_email("member2@example.org")
    log_out(page)

    choose_login(page, link, "member2", "a-long-pass-phrase-7")
    page.wait_for_url(f"{base}/me/")
    expect(page.locator(".messages")).to_contain_text("Your login is ready")
    expect(page.locator("main")).to_contain_text("100002")
    page.screenshot(path=str(artifacts / "accounts-invited-grade-card.png"), full_page=True)

    log_out(page)
    page.goto(link)
    expect(page.locator("[data-testid=invitation-unusable]")).to_be_visible()


def test_sign_up_approval_grade_card(demo_site, page, artifacts):
    base = demo_site.url
    page.goto(base + "/")
    page.click("main >> text=Ask for a login")
    page.fill("#id_number", "100004")
    page.fill("#id_name", "The Member Themselves")
    page.fill("#id_email", "member4@example.org")
    page.screenshot(path=str(artifacts / "accounts-sign-up.png"), full_page=True)
    page.click("[data-testid=sign-up-form] button[type=submit]")
    expect(page.locator("[data-testid=sign-up-sent]")).to_be_visible()
    # nothing is sent to the person, or linked, before the club answers; the club's
    # administrators hear of the request (S15)
    assert all(message.to != ["member4@example.org"] for message in mail.outbox)

    log_in(page, base, "demo-admin", "demo-admin")
    page.goto(f"{base}/clubs/riverside/members/")
    row = page.locator("[data-testid=sign-ups] tr[data-number='100004']")
    expect(row).to_contain_text("member4@example.org")
    page.screenshot(path=str(artifacts / "accounts-sign-up-waiting.png"), full_page=True)
    row.locator("button[value=approve]").click()
    expect(page.locator(".messages")).to_contain_text("Approved")
    link = link_from_last_email("member4@example.org")
    log_out(page)

    choose_login(page, link, "member4", "another-pass-phrase-8")
    page.wait_for_url(f"{base}/me/")
    expect(page.locator("main")).to_contain_text("100004")
    page.screenshot(path=str(artifacts / "accounts-approved-grade-card.png"), full_page=True)


def test_password_reset(demo_site, page, artifacts):
    base = demo_site.url
    page.goto(f"{base}/accounts/login/")
    page.click("[data-testid=forgotten]")
    page.fill("#id_email", "demo-member@example.org")
    page.click("[data-testid=reset-form] button[type=submit]")
    expect(page.locator("[data-testid=reset-sent]")).to_be_visible()
    link = link_from_last_email("demo-member@example.org")
    page.goto(link)
    page.fill("#id_new_password1", "a-brand-new-phrase-9")
    page.fill("#id_new_password2", "a-brand-new-phrase-9")
    page.screenshot(path=str(artifacts / "accounts-reset-confirm.png"), full_page=True)
    page.click("[data-testid=reset-confirm-form] button[type=submit]")
    expect(page.locator("[data-testid=reset-complete]")).to_be_visible()
    log_in(page, base, "demo-member", "a-brand-new-phrase-9")
    expect(page.locator("[data-testid=member-card]")).to_contain_text("100031")


def test_error_and_home_pages_look_like_the_site(demo_site, page, artifacts):
    base = demo_site.url
    page.goto(base + "/")
    expect(page.locator("[data-testid=home-directions]")).to_be_visible()
    page.screenshot(path=str(artifacts / "home-newcomer.png"), full_page=True)
    page.goto(base + "/no/such/page/")
    expect(page.locator("[data-testid=error-404]")).to_be_visible()
    expect(page.locator("nav.nav")).to_be_visible()
    page.screenshot(path=str(artifacts / "error-404.png"), full_page=True)
    log_in(page, base, "demo-member", "demo-member")
    page.goto(base + "/clubs/riverside/")
    expect(page.locator("[data-testid=error-403]")).to_be_visible()
    page.screenshot(path=str(artifacts / "error-403.png"), full_page=True)
