"""End to end (issue 5): an administrator uploads through the page in Chromium, a real Celery
worker grades it through Redis on PostgreSQL, the page shows progress and then the result."""

import pytest

from grading.models import SessionGrade, Upload
from tests.browser.conftest import log_in
from tests.csvfiles import csv_bytes, mp_session_rows

pytestmark = pytest.mark.browser


@pytest.fixture
def people_site(live_server, transactional_db, postgres):
    from grading.site.demo import demo_seed

    demo_seed()
    return live_server


def test_upload_graded_by_a_real_worker(people_site, redis_worker, page, tmp_path, artifacts):
    assert not redis_worker.conf.task_always_eager
    numbers = [(str(100001 + 2 * i), str(100002 + 2 * i)) for i in range(8)]
    path = tmp_path / "monday.csv"
    path.write_bytes(csv_bytes(mp_session_rows(numbers=numbers)))

    log_in(page, people_site.url, "demo-admin", "demo-admin")
    page.goto(f"{people_site.url}/clubs/riverside/uploads/")
    page.set_input_files("#id_files", str(path))
    page.click("[data-testid=upload-form] button[type=submit]")
    status = page.locator("[data-testid=upload-status]")
    status.wait_for()
    # The page polls until the worker has graded the session.
    page.wait_for_selector("[data-testid=upload-status][data-status=graded]", timeout=30000)
    assert "New session" in status.inner_text()
    # The list of past uploads was refreshed with the result too.
    assert "Graded" in page.locator("[data-testid=past-uploads]").inner_text()
    assert Upload.objects.get().status == Upload.Status.GRADED
    assert SessionGrade.objects.filter(session_grade__isnull=False).count() == 16
    page.screenshot(path=str(artifacts / "upload-graded.png"), full_page=True)


def test_refused_upload_explains_itself(people_site, page, tmp_path, artifacts):
    rows = mp_session_rows(numbers=[(str(100001 + 2 * i), str(100002 + 2 * i)) for i in range(8)])
    rows[1]["date"] = "31/11/2026"
    path = tmp_path / "bad.csv"
    path.write_bytes(csv_bytes(rows))
    log_in(page, people_site.url, "demo-admin", "demo-admin")
    page.goto(f"{people_site.url}/clubs/riverside/uploads/")
    page.set_input_files("#id_files", str(path))
    page.click("[data-testid=upload-form] button[type=submit]")
    text = page.locator("[data-testid=upload-status]").inner_text()
    assert "Refused: nothing was stored" in text
    assert "line 3, column date" in text
    page.screenshot(path=str(artifacts / "upload-refused.png"), full_page=True)
