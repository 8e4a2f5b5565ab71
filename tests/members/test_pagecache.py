"""The member's grade card and session history are kept rendered (members/pagecache.py) and
never outlive the data they show: every write that changes a member's grades, PPI, Brambledown
figures or privacy bumps the member's ``pages_version`` in its own transaction."""

import datetime as dt
import re

import pytest
from django.urls import reverse

from grading.common.stale import member_pages_invalidate
from grading.ledger.refresh import grades_refresh
from grading.ledger.replay.check import ledger_refold
from grading.models import CurrentGrade, SessionVersion
from grading.schemes.brambledown.update import brambledown_regrade_club
from grading.schemes.ppi import ppi_rebuild
from grading.staff.services import parameters_change
from grading.uploads.services import session_withdraw, upload_create
from members import pagecache
from members.models import Member
from members.services import member_privacy_set
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import ClubFactory, UserFactory

CARD, SESSIONS = reverse("members:card"), reverse("members:sessions")


@pytest.fixture
def club(db):
    return ClubFactory(slug="riverside", national_number="1101", keeps_brambledown=True)


@pytest.fixture
def upload(club, django_capture_on_commit_callbacks):
    def send(data: bytes):
        with django_capture_on_commit_callbacks(execute=True):
            return upload_create(club=club, filename="results.csv", data=data)

    return send


@pytest.fixture
def me(upload, client):
    """Player 1001 with a login, after one graded session; the client is signed in as them."""
    upload(csv_bytes(mp_session_rows(date="2026-11-02")))
    member = Member.objects.get(national_number="1001")
    member.user = UserFactory()
    member.save(update_fields=["user"])
    client.force_login(member.user)
    return member


def shown_grade(client) -> str:
    return re.search(r'data-testid="grade">([^<]+)<', client.get(CARD).content.decode())[1]


def history_rows(client, query: str = "") -> int:
    return client.get(SESSIONS + query).content.decode().count('data-testid="history-row"')


def main_of(response) -> str:
    """The page without its navigation (whose log-out form has a fresh CSRF token each time)."""
    return response.content.decode().split("<main", 1)[1]


def version_of(number: str) -> int:
    return Member.objects.get(national_number=number).pages_version


def test_a_kept_page_is_served_without_reading_the_grades(
    me, client, django_assert_max_num_queries
):
    first = main_of(client.get(CARD))
    # The session and the user (with their membership and whether they administer a club,
    # members.auth): nothing of the grade card, not even the navigation's clubs.
    with django_assert_max_num_queries(2):
        assert main_of(client.get(CARD)) == first
    CurrentGrade.objects.filter(member=me).update(grade=61.2345)  # not through a service
    assert shown_grade(client) != "61.23"  # so the page really is kept...
    member_pages_invalidate(member_ids=[me.pk])
    assert shown_grade(client) == "61.23"  # ...until the member's version moves


def test_an_upload_shows_at_once_on_both_pages(me, client, upload):
    before = shown_grade(client)
    assert history_rows(client) == 1
    upload(
        csv_bytes(
            mp_session_rows(
                date="2026-11-09", event_id="TUE", scores=[70, 55, 52.5, 50, 47.5, 45, 44, 36]
            )
        )
    )
    grade = CurrentGrade.objects.get(member=me).grade
    assert shown_grade(client) == f"{grade:.2f}" != before
    assert history_rows(client) == 2


def test_a_correction_and_a_withdrawal_show_at_once(me, client, upload):
    shown_grade(client), history_rows(client)
    upload(
        csv_bytes(mp_session_rows(date="2026-11-02", scores=[40, 55, 52.5, 50, 47.5, 45, 44, 66]))
    )
    assert shown_grade(client) == f"{CurrentGrade.objects.get(member=me).grade:.2f}"
    live = SessionVersion.objects.get(state=SessionVersion.State.GRADED)
    session_withdraw(version=live)
    assert history_rows(client) == 0


@pytest.fixture
def no_brambledown(club):
    """Without it, every upload bumps the whole club (its Brambledown grades are redone)."""
    club.keeps_brambledown = False
    club.save(update_fields=["keeps_brambledown"])


def test_replacing_a_session_that_was_not_graded_shows_at_once(me, client, upload, no_brambledown):
    """S3.8: a session without enough known pairs is in its players' histories, not graded;
    its correction leaves out pair 1 (player 1001), whose history must lose it."""
    scores = [55, 54, 53, 52, 51, 50, 45, 40, 50]
    numbers = [(str(1001 + 2 * i), str(1002 + 2 * i)) for i in range(6)] + [("", "")] * 3
    upload(
        csv_bytes(
            mp_session_rows(date="2026-11-09", event_id="TUE", scores=scores, numbers=numbers)
        )
    )
    assert SessionVersion.objects.get(session__event__event_id="TUE").state == "not_graded"
    assert history_rows(client) == 2
    numbers[0] = ("2001", "2002")
    upload(
        csv_bytes(
            mp_session_rows(date="2026-11-09", event_id="TUE", scores=scores, numbers=numbers)
        )
    )
    assert history_rows(client) == 1


def test_an_event_renamed_by_a_later_file_shows_at_once(me, client, upload, no_brambledown):
    """Session 2 of the event, without player 1001, renames it; 1001's session 1 shows the
    new name."""
    assert "MON Pairs" in client.get(SESSIONS).content.decode()
    rows = mp_session_rows(
        date="2026-11-02",
        session=2,
        start="14:00",
        numbers=[(str(3001 + 2 * i), str(3002 + 2 * i)) for i in range(8)],
    )
    for row in rows:
        row["event_name"] = "Monday Pairs"
    upload(csv_bytes(rows))
    page = client.get(SESSIONS).content.decode()
    assert "Monday Pairs" in page and "MON Pairs" not in page


def test_a_parameter_change_bumps_every_member(me, club, django_capture_on_commit_callbacks):
    """The grade card reads the active set (statuses, weights): every member's pages go."""
    before = dict(Member.objects.values_list("national_number", "pages_version"))
    with django_capture_on_commit_callbacks(execute=False):  # before the refold it asks for
        parameters_change(params_name="fr18-factors", reason="FR 18's estimates")
    after = dict(Member.objects.values_list("national_number", "pages_version"))
    assert after.keys() == before.keys() and all(after[n] != before[n] for n in before)


def test_a_privacy_change_shows_at_once(me, client):
    assert "Private: only you see this grade" not in client.get(CARD).content.decode()
    member_privacy_set(member=me, private=True)
    assert "Private: only you see this grade" in client.get(CARD).content.decode()


def test_each_filtered_history_page_is_kept_apart(me, client, upload):
    upload(csv_bytes(mp_session_rows(date="2025-06-02", event_id="OLD")))
    assert history_rows(client) == 2
    assert history_rows(client, "?year=2025") == 1
    assert history_rows(client, "?year=2026") == 1
    assert history_rows(client) == 2


def test_pages_are_per_member(me, client, upload):
    mine = client.get(CARD).content.decode()
    other = Member.objects.get(national_number="1016")
    other.user = UserFactory()
    other.save(update_fields=["user"])
    client.force_login(other.user)
    theirs = client.get(CARD).content.decode()
    assert "(1016)" in theirs and "(1001)" in mine and theirs != mine


def test_the_date_is_part_of_the_key(me, monkeypatch):
    today = pagecache.page_key(member=me, page="card", variant="")
    monkeypatch.setattr(pagecache.timezone, "localdate", lambda: dt.date(2030, 1, 1))
    assert pagecache.page_key(member=me, page="card", variant="") != today


@pytest.mark.parametrize(
    "query, cacheable",
    [
        ("", True),
        ("page=2", True),
        ("page=12", True),
        ("page=02", False),
        ("page=2&page=3", False),
        ("year=2026", False),
        ("club=3&page=2", False),
        ("club=1%26page%3D3", False),
        ("utm_source=x", False),
        ("page=" + "9" * 300, False),
    ],
)
def test_only_the_unfiltered_history_and_its_pages_are_kept(query, cacheable):
    """So one member can only make the cache hold as many pages as their history has."""
    assert (pagecache.cacheable_query(query) is not None) == cacheable


def test_a_cache_that_is_down_only_means_rendering_every_time(me, client, monkeypatch):
    def down(*args, **kwargs):
        raise ConnectionError("Redis is restarting")

    monkeypatch.setattr(pagecache.cache, "get", down)
    monkeypatch.setattr(pagecache.cache, "set", down)
    assert client.get(CARD).status_code == 200
    assert client.get(SESSIONS).status_code == 200


@pytest.mark.parametrize("write", ["refold", "refresh", "ppi", "brambledown"])
def test_wholesale_recomputations_bump_everyone_they_touch(me, club, write):
    players = [f"{n}" for n in range(1001, 1017)]
    before = {n: version_of(n) for n in players}
    {
        "refold": lambda: ledger_refold(),
        "refresh": lambda: grades_refresh(today=dt.date(2026, 12, 1)),
        "ppi": lambda: ppi_rebuild(),
        "brambledown": lambda: brambledown_regrade_club(club=club, quarter="2026Q4"),
    }[write]()
    assert all(version_of(n) != before[n] for n in players)
