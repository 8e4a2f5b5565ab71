"""PPI and Brambledown renew their members' pages once their fold has committed, not inside it
(``grading.common.stale.pages_renewed_after``, docs/decisions.md): a grading step renewing the
same members' pages meanwhile neither waits for the fold (a quarter closed at a large club)
nor deadlocks with it. These tests need a second connection that sees committed rows, so they
use a transactional database."""

from __future__ import annotations

import psycopg
import pytest
from django.db import transaction

from grading.common.stale import member_pages_invalidate, pages_renewed_after
from grading.models import PPIRating
from grading.schemes import after_step
from grading.uploads.services import upload_create
from members.models import Member
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import ClubFactory, MemberFactory
from tests.otherconn import other_connection

pytestmark = pytest.mark.django_db(transaction=True)


def _other_connection_at_once(sql: str, member_id: int) -> bool:
    """Whether another connection (a grading step's) can run ``sql`` on the member's row at
    once, or would have to wait for a lock."""
    with other_connection(autocommit=True) as other:
        other.execute("SET lock_timeout = '300ms'")
        try:
            other.execute(sql, (member_id,))
        except psycopg.errors.LockNotAvailable:
            return False
    return True


def _other_connection_renews(member_id: int) -> bool:
    """A grading step renewing the member's pages."""
    sql = "UPDATE members_member SET pages_version = 1 WHERE id = %s"
    return _other_connection_at_once(sql, member_id)


def _other_connection_refers_to(member_id: int) -> bool:
    """A grading step's commit checking a foreign key to the member's row (FOR KEY SHARE)."""
    sql = "SELECT 1 FROM members_member WHERE id = %s FOR KEY SHARE"
    return _other_connection_at_once(sql, member_id)


def test_the_renewal_after_a_fold_leaves_foreign_key_checks_free(postgres, monkeypatch):
    """The renewal after the block locks its members' rows in id order, but not against the
    foreign-key check of a grading step committing rows that name them: that step may hold
    clubs the renewal is about to bump, and waiting for each other they deadlocked."""
    from grading.common import stale

    member = MemberFactory()
    seen = []
    invalidate = stale.member_pages_invalidate

    def checked(**kwargs):
        seen.append(_other_connection_refers_to(member.pk))
        return invalidate(**kwargs)

    with pages_renewed_after():
        member_pages_invalidate(member_ids=[member.pk])
        monkeypatch.setattr(stale, "member_pages_invalidate", checked)
    assert seen == [True]


def _pages_version(member_id: int) -> int:
    return Member.objects.values_list("pages_version", flat=True).get(pk=member_id)


def test_a_renewal_inside_a_transaction_holds_the_members_row_to_its_end(postgres):
    """What a fold did before: the member's row stays locked until the fold commits."""
    member = MemberFactory()
    with transaction.atomic():
        member_pages_invalidate(member_ids=[member.pk])
        assert not _other_connection_renews(member.pk)


def test_a_renewal_held_to_the_commit_leaves_the_row_free_and_renews_after(postgres):
    member = MemberFactory()
    before = _pages_version(member.pk)
    with pages_renewed_after(), transaction.atomic():
        member_pages_invalidate(member_ids=[member.pk])
        assert _other_connection_renews(member.pk)
        assert _pages_version(member.pk) == 1  # the other connection's: ours not made yet
    assert _pages_version(member.pk) not in (before, 1)  # renewed once the block committed


def test_the_schemes_fold_leaves_its_members_rows_free(
    postgres, monkeypatch, django_capture_on_commit_callbacks
):
    """During the fold after a grading step, a step renewing the pages of the members PPI and
    Brambledown are rating does not wait; after it, their pages are renewed."""
    club = ClubFactory(keeps_brambledown=True)
    seen: list[tuple[bool, int]] = []
    real = after_step._group_fold

    def fold_then_look(group, head):
        real(group, head)
        rated = PPIRating.objects.values_list("member_id", flat=True).first()
        seen.append((_other_connection_renews(rated), rated))

    monkeypatch.setattr(after_step, "_group_fold", fold_then_look)
    rows = mp_session_rows(event_id="MON", date="2026-10-05")
    with django_capture_on_commit_callbacks(execute=True):
        upload_create(club=club, filename="results.csv", data=csv_bytes(rows))
    assert seen and all(free for free, _ in seen)
    rated = seen[0][1]
    assert _pages_version(rated) != 1  # the other connection's value, renewed after the fold


def test_a_quarter_closed_by_the_quarterly_task_leaves_its_members_rows_free(
    postgres, monkeypatch, django_capture_on_commit_callbacks
):
    """The quarterly close at a club renews its members' pages once it has committed: a
    grading step renewing one of theirs meanwhile does not wait."""
    from grading.models import BrambledownGrade
    from grading.schemes.brambledown import update

    club = ClubFactory(keeps_brambledown=True)
    rows = mp_session_rows(event_id="MON", date="2026-10-05")
    with django_capture_on_commit_callbacks(execute=True):
        upload_create(club=club, filename="results.csv", data=csv_bytes(rows))
    seen: list[tuple[bool, int]] = []
    real = update.brambledown_club_update

    def close_then_look(*, club, through):
        closed = real(club=club, through=through)
        graded = BrambledownGrade.objects.filter(club=club).values_list("member_id", flat=True)
        seen.append((_other_connection_renews(graded.first()), graded.first()))
        return closed

    monkeypatch.setattr(update, "brambledown_club_update", close_then_look)
    update.brambledown_regrade_club(club=club, quarter="2026Q4")
    assert seen and all(free for free, _ in seen)
    assert _pages_version(seen[0][1]) != 1  # renewed after the close committed
