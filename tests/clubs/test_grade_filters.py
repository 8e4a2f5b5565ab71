"""The club grade list filtered by status and by "played here in the last 12 months" (issue 19
item 5), so the club's own members are not buried under visitors from old files. A status is
matched only where the list shows it (S7): filtering never tells a private member's status."""

import csv
import datetime as dt
import io

from django.urls import reverse
from django.utils import timezone

from clubs.models import ClubRole
from clubs.selectors.grades import year_before
from grading.common.stale import club_pages_invalidate
from grading.models import CurrentGrade
from grading.uploads.services import upload_create
from tests.csvfiles import csv_bytes, mp_session_rows

PRIVATE, PROVISIONAL = "1003", {"1017", "1018"}
OLD_VISITORS = {str(n) for n in range(2001, 2009)}


def numbers(client, club, **params) -> set[str]:
    response = client.get(reverse("clubs:grades", args=[club.slug]), params)
    assert response.status_code == 200
    return {row.number for row in response.context["rows"]}


def test_filter_by_status(admin_client, graded):
    everyone = numbers(admin_client, graded)
    assert numbers(admin_client, graded, status="P") == PROVISIONAL
    assert numbers(admin_client, graded, status="private") == {PRIVATE}
    published = numbers(admin_client, graded, status="published")
    assert published and not (published & (PROVISIONAL | {PRIVATE}))
    mature = numbers(admin_client, graded, status="M")
    evolving = numbers(admin_client, graded, status="E")
    assert mature | evolving == published and not mature & evolving
    # A private member is never found by the status the list does not show.
    CurrentGrade.objects.filter(member__national_number=PRIVATE).update(status="M")
    club_pages_invalidate(club_ids=[graded.pk])  # written past the services: the list is kept
    assert PRIVATE not in numbers(admin_client, graded, status="M")
    no_grade = numbers(admin_client, graded, status="none")
    assert no_grade == everyone - published - PROVISIONAL - {PRIVATE}
    # An unknown status is ignored (the form refuses it), not an error.
    assert numbers(admin_client, graded, status="X") == everyone


def test_filter_by_played_here_in_the_last_12_months(
    admin_client, graded, django_capture_on_commit_callbacks
):
    """Eight visitors played one session here 13 months ago: the filter leaves them out, and
    the administrator, who has never played, too; every regular stays."""
    old = year_before(timezone.localdate()) - dt.timedelta(days=30)
    rows = mp_session_rows(
        event_id="OLD",
        date=old.isoformat(),
        numbers=[("2001", "2002"), ("2003", "2004"), ("2005", "2006"), ("2007", "2008")],
        scores=[56.0, 52.0, 48.0, 44.0],
    )
    with django_capture_on_commit_callbacks(execute=True):
        upload = upload_create(
            club=graded, filename="old.csv", data=csv_bytes(rows), check_club=False
        )
    upload.refresh_from_db()
    assert upload.status == "graded", upload.problems
    assert OLD_VISITORS <= set(
        ClubRole.objects.filter(club=graded).values_list("member__national_number", flat=True)
    )
    everyone = numbers(admin_client, graded)
    recent = numbers(admin_client, graded, recent="on")
    regulars = {str(n) for n in range(1001, 1017)} | PROVISIONAL
    assert OLD_VISITORS <= everyone and not OLD_VISITORS & recent
    assert regulars <= recent and recent <= regulars
    # Both filters together, and the export follows what is listed.
    assert numbers(admin_client, graded, recent="on", status="P") == PROVISIONAL
    exported = admin_client.get(
        reverse("clubs:grades-export", args=[graded.slug, "csv"]), {"recent": "on"}
    )
    listed = {row[0] for row in list(csv.reader(io.StringIO(exported.content.decode())))[1:]}
    assert listed == recent


def test_sort_links_keep_the_filters(admin_client, graded):
    html = admin_client.get(
        reverse("clubs:grades", args=[graded.slug]), {"status": "P", "recent": "on"}
    ).content.decode()
    assert "?status=P&amp;recent=on&amp;sort=number" in html
    recent_box = html[html.index('name="recent"') - 80 :][:200]
    assert "checked" in recent_box


def test_year_before_a_29th_of_february():
    assert year_before(dt.date(2028, 2, 29)) == dt.date(2027, 2, 28)
    assert year_before(dt.date(2026, 11, 25)) == dt.date(2025, 11, 25)
