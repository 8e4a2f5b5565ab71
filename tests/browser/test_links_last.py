"""A bookmarked session page answers after a replay (issue 30 item 3), in Chromium as
demo-member: the address taken from the history's link before a replay that rewrites every
session grade row opens the same session after it."""

import pytest
from django.db import transaction

from tests.browser import test_member_pages

# the member pages' fixtures: demo-member, logged in, with a graded history
member_site = test_member_pages.member_site
member_page = test_member_pages.member_page

pytestmark = pytest.mark.browser


def _replay_step_by_step() -> None:
    """A replay that writes every session grade again under a new id (the step-by-step
    refold), as a staff replay or a parameter change did before sessions had addresses of
    their own."""
    from grading.ledger.lock import ledger_head_lock
    from grading.ledger.replay.run import refold_ledger_locked

    with transaction.atomic():
        refold_ledger_locked(ledger_head_lock(), lambda done, total: None, bulk=False)


def test_a_bookmarked_session_page_opens_after_a_replay(member_site, member_page, artifacts):
    from grading.models import SessionGrade

    page = member_page
    page.goto(f"{member_site.url}/me/sessions/")
    page.locator("[data-testid=history-row] a").first.click()
    page.wait_for_url("**/me/sessions/session/*/")
    bookmark = page.url
    before = page.inner_text("[data-testid=buildup]")
    ids_before = set(SessionGrade.objects.values_list("pk", flat=True))
    _replay_step_by_step()
    assert not ids_before & set(SessionGrade.objects.values_list("pk", flat=True))
    response = page.goto(bookmark)
    assert response.status == 200
    assert page.url == bookmark
    assert page.inner_text("[data-testid=buildup]") == before
    page.set_viewport_size({"width": 1280, "height": 900})
    page.screenshot(path=str(artifacts / "member-explain-after-replay.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(artifacts / "member-explain-after-replay-phone.png"), full_page=True)
    # the older address by a row's id is gone with the row: the bookmark by session is not
    old = page.goto(f"{member_site.url}/me/sessions/{min(ids_before)}/")
    assert old.status == 404
