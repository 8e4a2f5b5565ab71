"""Pages ready before members arrive (members/pagewarm.py): after a grading step the worker
renders the graded members' grade card and history into the page cache, under the keys the
pages read, so the first request finds them kept; bounded per step; never able to undo or hold
up the grading."""

from django.core.cache import cache

import members.pagewarm
from grading.common import queue
from grading.models import SessionGrade, SessionVersion
from grading.schemes.after_step import schemes_catch_up
from members import pagecache
from members.models import Member
from members.pagewarm import member_pages_warm
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import UserFactory
from tests.members.test_pagecache import CARD, SESSIONS, main_of

pytest_plugins = ["tests.members.test_pagecache"]


def cold(client, url: str) -> str:
    """The page as rendered with nothing kept."""
    cache.clear()
    pagecache.local_clear()
    return main_of(client.get(url))


def test_a_graded_members_pages_are_kept_before_they_open_them(
    me, client, upload, django_assert_max_num_queries
):
    upload(csv_bytes(mp_session_rows(date="2026-11-09", event_id="TUE")))
    # The session and the user only: the card and the history were rendered by the worker.
    with django_assert_max_num_queries(2):
        card = main_of(client.get(CARD))
    with django_assert_max_num_queries(2):
        history = main_of(client.get(SESSIONS))
    assert 'data-testid="history-row"' in history
    assert cold(client, CARD) == card
    assert cold(client, SESSIONS) == history


def test_pages_are_rendered_ahead_only_once_the_schemes_fold_has_renewed_them(
    me,
    client,
    upload,
    monkeypatch,
    django_assert_max_num_queries,
    django_capture_on_commit_callbacks,
):
    """With workers the schemes' fold and the warming are separate tasks: a warming queued with
    the fold would render pages that the fold then makes stale (its PPI and Brambledown)."""
    held = []
    publish = queue.task_publish

    def hold_the_fold_and_warming(name, *args, priority=None):
        if name in ("grading.schemes_catch_up", "grading.warm_member_pages"):
            held.append(name)
        else:
            publish(name, *args, priority=priority)

    monkeypatch.setattr(queue, "task_publish", hold_the_fold_and_warming)
    upload(csv_bytes(mp_session_rows(date="2026-11-09", event_id="TUE")))
    assert held == ["grading.schemes_catch_up"]
    monkeypatch.setattr(queue, "task_publish", publish)
    with django_capture_on_commit_callbacks(execute=True) as queued:
        assert schemes_catch_up() > 0  # the fold, then the warming it queues
    assert len(queued) == 1
    with django_assert_max_num_queries(2):
        card = main_of(client.get(CARD))
    with django_assert_max_num_queries(2):
        history = main_of(client.get(SESSIONS))
    assert cold(client, CARD) == card
    assert cold(client, SESSIONS) == history


def test_a_version_withdrawn_before_its_warming_warms_no_one(me, upload):
    upload(csv_bytes(mp_session_rows(date="2026-11-09", event_id="TUE")))
    version = SessionVersion.objects.get(session__date="2026-11-09")
    assert member_pages_warm(version_id=version.pk) == 1
    SessionVersion.objects.filter(pk=version.pk).update(state=SessionVersion.State.WITHDRAWN)
    assert member_pages_warm(version_id=version.pk) == 0


def test_only_players_with_a_login_are_warmed_and_at_most_the_limit(me, upload):
    upload(csv_bytes(mp_session_rows(date="2026-11-09", event_id="TUE")))
    version = SessionVersion.objects.get(session__date="2026-11-09")
    for number in ("1002", "1003"):
        member = Member.objects.get(national_number=number)
        member.user = UserFactory()
        member.save(update_fields=["user"])
    players = SessionGrade.objects.filter(version=version).count()
    assert players > 3
    assert member_pages_warm(version_id=version.pk) == 3
    assert member_pages_warm(version_id=version.pk, limit=2) == 2


def test_a_failing_warm_neither_undoes_nor_holds_up_the_grading(me, upload, monkeypatch):
    def broken(**kwargs):
        raise RuntimeError("the page could not be rendered")

    monkeypatch.setattr(members.pagewarm, "member_pages_warm", broken)
    monkeypatch.setattr("grading.tasks.member_pages_warm", broken)
    upload(csv_bytes(mp_session_rows(date="2026-11-09", event_id="TUE")))
    version = SessionVersion.objects.get(session__date="2026-11-09")
    assert version.state == SessionVersion.State.GRADED
    assert SessionGrade.objects.filter(version=version, member=me).exists()
