"""``replay --check`` reads one view of the database (S5.4): an upload graded while the check
runs is neither half seen (its grades without its ledger entry) nor reported as a difference.
Found on the national database: a check that overlapped an upload listed the new session's
players as differences."""

import pytest
from django.db import connection

from grading.ledger.replay import check


@pytest.mark.django_db(transaction=True)
def test_the_check_runs_in_one_repeatable_read_transaction(monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("the isolation level is PostgreSQL's")
    seen = []

    def capture(*args, **kwargs):
        with connection.cursor() as cursor:
            cursor.execute("SHOW transaction_isolation")
            seen.append((connection.in_atomic_block, cursor.fetchone()[0]))
        return []

    monkeypatch.setattr(check, "check_compiled", capture)
    monkeypatch.setattr(check, "_check_python", capture)
    assert check.ledger_check() == []
    assert seen == [(True, "repeatable read")]
    assert not connection.in_atomic_block  # and the transaction is over


@pytest.mark.django_db(transaction=True)
def test_the_check_has_its_join_memory_from_its_first_query(monkeypatch, settings):
    """``LEDGER_CHECK_WORK_MEM`` holds for every query of the check (its first comparison
    hashed in 256 batches when only the last queries had it, docs/benchmarks.md), and only
    for the check's transaction."""
    if connection.vendor != "postgresql":
        pytest.skip("work_mem is PostgreSQL's")
    settings.LEDGER_CHECK_WORK_MEM = "77MB"  # not the server's, nor the refold's
    seen = []

    def capture(*args, **kwargs):
        with connection.cursor() as cursor:
            cursor.execute("SHOW work_mem")
            seen.append(cursor.fetchone()[0])
        return []

    monkeypatch.setattr(check, "check_compiled", capture)
    monkeypatch.setattr(check, "_check_python", capture)
    assert check.ledger_check() == []
    with connection.cursor() as cursor:
        cursor.execute("SHOW work_mem")
        after = cursor.fetchone()[0]
    assert seen == ["77MB"] and after != "77MB"


@pytest.mark.django_db
def test_inside_a_callers_transaction_the_check_uses_its_view(monkeypatch):
    calls = []
    monkeypatch.setattr(check, "check_compiled", lambda *a, **k: calls.append("c") or [])
    monkeypatch.setattr(check, "_check_python", lambda *a, **k: calls.append("p") or [])
    assert check.ledger_check() == [] and len(calls) == 1
