"""No figure, however large, may take a page down (S14.26; issue 32 item 5: a 30-digit
aggregate score made /me/ answer 500). The readers now refuse such a score
(``grading.ingest.limits.score_problems``); this stores one directly, as a database filled
before the bound may hold it, and asks every page that shows its figures."""

import dataclasses

import pytest
from django.db import transaction
from django.urls import reverse

from grading.ingest import parse_file
from grading.ledger.step import versions_grade_pending
from grading.models import SessionGrade, SessionVersion, Upload
from grading.uploads.store import sessions_store
from members.models import Member
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import UserFactory


def store_aggregate(club, huge: float) -> SessionVersion:
    rows = mp_session_rows(event_id="AGG", scores=[100, 60, 20, -10, -40, -130])
    for row in rows:
        row["scoring"] = "AGGREGATE"
    parsed = parse_file("agg.csv", csv_bytes(rows), club=club.slug)
    assert not parsed.problems, parsed.problems
    (result,) = parsed.sessions
    pairs = list(result.pairs)
    pairs[0] = dataclasses.replace(pairs[0], score=huge)
    pairs[1] = dataclasses.replace(pairs[1], score=-huge)
    result = dataclasses.replace(result, pairs=tuple(pairs))
    with transaction.atomic():
        upload = Upload.objects.create(
            club=club, filename="agg.csv", sha256="1" * 64, status=Upload.Status.STORED
        )
        (version,) = sessions_store(upload, (result,), parsed.meta).new_versions
    versions_grade_pending()
    version.refresh_from_db()
    return version


@pytest.mark.django_db
@pytest.mark.parametrize("score", [1e25, 1e30, 1e300, 1.7e308])
def test_a_stored_score_of_many_digits_takes_no_page_down(client, club_admin, score):
    """1.7e308 makes the grades infinite: the API writes them as null."""
    admin, _, club = club_admin
    store_aggregate(club, score)
    player = Member.objects.get(national_number="1001")
    player.user = UserFactory()
    player.save()
    client.force_login(player.user)
    pages = [
        reverse("members:card"),
        reverse("members:sessions"),
        reverse("members:sessions-csv"),
        reverse("members:partners"),
        reverse("members:forecast"),
        reverse("members:api-card"),
        reverse("members:api-sessions"),
        reverse("members:top"),
        reverse("members:api-top"),
        reverse("members:bands"),
        reverse("members:public", args=["1001"]),
    ]
    grades = SessionGrade.objects.filter(member=player)
    for session_id in grades.values_list("version__session_id", flat=True):
        pages += [reverse("members:explain", args=[session_id])]
        pages += [reverse("members:api-explain", args=[session_id])]
    for url in pages:
        assert client.get(url).status_code == 200, url
    client.force_login(admin)
    for url in [
        reverse("clubs:sessions", args=[club.slug]),
        reverse("clubs:grades", args=[club.slug]),
        reverse("clubs:dashboard", args=[club.slug]),
    ]:
        assert client.get(url).status_code == 200, url
