"""Issue 32 item 10: a refused upload kept every problem (4,000 for one file, a 1.9 MB page).
It keeps the first 200 and says how many there were."""

import pytest
from django.urls import reverse

from grading.models import AuditEvent
from grading.uploads.services import PROBLEMS_KEPT, upload_create
from tests.csvfiles import csv_bytes, mp_session_rows


@pytest.mark.django_db
def test_a_refused_file_keeps_the_first_200_problems_and_the_count(client, club_admin):
    admin, _, club = club_admin
    rows = mp_session_rows(scores=[50.0] * 600)
    for row in rows:
        row["score"] = "lots"  # every line wrong
    upload = upload_create(club=club, filename="bad.csv", data=csv_bytes(rows))
    assert upload.status == "refused"
    assert len(upload.problems) == PROBLEMS_KEPT + 1
    last = upload.problems[-1]["message"]
    assert "400 more problems (600 in all)" in last
    audit = AuditEvent.objects.get(action=AuditEvent.Action.UPLOAD)
    assert audit.details["problems"] == 600
    client.force_login(admin)
    page = client.get(reverse("uploads", args=[club.slug]) + f"?show={upload.pk}")
    assert page.status_code == 200 and "600 in all" in page.content.decode()
    assert len(page.content) < 200_000
