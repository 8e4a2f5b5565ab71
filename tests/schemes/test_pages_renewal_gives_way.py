"""The renewal of members' pages after the schemes' fold gives way to a grading step holding
the same rows (``grading.common.stale._renew``, docs/decisions.md): a step holds its clubs'
rows and then wants its players'; a renewal holding some of those players and wanting one of
those clubs deadlocked with it, and the server's check rolled the step back after a second.
These tests need a second connection that sees committed rows: a transactional database."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest
from django.db import connection

from clubs.models import Club
from grading.common import stale
from members.models import Member
from tests.factories import ClubFactory, ClubRoleFactory, MemberFactory
from tests.otherconn import other_connection

pytestmark = pytest.mark.django_db(transaction=True)

STEP_VALUE = 1  # the pages_version the "grading step" writes


def _step_bumps(step: psycopg.Connection, table: str, row_id: int) -> None:
    step.execute(f"UPDATE {table} SET pages_version = %s WHERE id = %s", [STEP_VALUE, row_id])


def _renewal_in_thread(member_id: int, failures: list[BaseException]) -> threading.Thread:
    def run() -> None:
        try:
            stale._renew(numbers=set(), member_ids={member_id})
        except BaseException as exc:  # noqa: BLE001 - reported to the test
            failures.append(exc)
        finally:
            connection.close()  # this thread's connection

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def _wait_for_waiting_on(table: str, seconds: float = 10.0) -> None:
    """Until some backend waits for a row lock while updating ``table`` (looked at from a
    connection of its own: a transaction sees one picture of the server's activity)."""
    deadline = time.monotonic() + seconds
    with other_connection(autocommit=True) as watcher:
        while time.monotonic() < deadline:
            row = watcher.execute(
                "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock' AND query LIKE %s",
                [f'UPDATE "{table}"%'],
            ).fetchone()
            if row:
                return
            time.sleep(0.002)
    raise AssertionError(f"no renewal waited for a row of {table}")


def test_a_renewal_gives_way_to_a_grading_step_holding_its_club(postgres):
    """The step holds the club's row, the renewal holds the member's and waits for the club;
    the step then updates the member: it gets the row at once (well within its own 500 ms
    limit, half the server's deadlock check), commits, and the renewal ends after it."""
    club = ClubFactory()
    member = MemberFactory()
    ClubRoleFactory(club=club, member=member)
    failures: list[BaseException] = []
    with other_connection() as step:  # a grading step's transaction
        _step_bumps(step, "clubs_club", club.pk)
        renewal = _renewal_in_thread(member.pk, failures)
        try:
            _wait_for_waiting_on("clubs_club")  # the renewal holds the member now
            step.execute("SET LOCAL lock_timeout = '500ms'")
            _step_bumps(step, "members_member", member.pk)
            step.commit()
        finally:
            renewal.join(30)
    assert not renewal.is_alive() and failures == []
    # the renewal ended after the step's commit: its values, not the step's
    assert Member.objects.get(pk=member.pk).pages_version != STEP_VALUE
    assert Club.objects.get(pk=club.pk).pages_version != STEP_VALUE


def test_a_renewal_waits_as_long_as_it_must_on_its_last_try(postgres, monkeypatch):
    """A transaction holding the member's row longer than the bounded tries last: the renewal
    does not give up, and renews once the row is free."""
    monkeypatch.setattr(stale, "RENEW_TRIES", 3)  # about 0.2 s of bounded tries
    member = MemberFactory()
    failures: list[BaseException] = []
    with other_connection() as step:  # a grading step's transaction
        _step_bumps(step, "members_member", member.pk)
        renewal = _renewal_in_thread(member.pk, failures)
        try:
            time.sleep(1.0)
            assert renewal.is_alive()  # still waiting for the row
            step.commit()
        finally:
            renewal.join(30)
    assert not renewal.is_alive() and failures == []
    assert Member.objects.get(pk=member.pk).pages_version != STEP_VALUE


def test_a_renewal_puts_the_transactions_lock_wait_back(postgres):
    """Inside an enclosing transaction (a test's, a caller's), the renewal's bounded wait does
    not outlive it."""
    from django.db import transaction

    member = MemberFactory()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL lock_timeout = '7s'")
        stale._renew(numbers=set(), member_ids={member.pk})
        cursor.execute("SHOW lock_timeout")
        assert cursor.fetchone()[0] == "7s"
