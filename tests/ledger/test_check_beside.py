"""``replay --check`` compares the subject tables on a second connection while it folds
(``grading.ledger.replay.beside``, issue 31), in the check's own snapshot (S5.4): what it finds
is what the comparison after the fold found, and a change committed after the check began is
seen by neither side."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction

from grading.ledger.replay import compare
from grading.ledger.replay.beside import SubjectsCheckBeside, snapshot_export
from grading.ledger.replay.check import ledger_check
from grading.ledger.replay.tablecheck import subjects_check
from grading.models import LedgerHistory


def _history(key: str):
    return LedgerHistory.objects.filter(subject__key=key)


@pytest.fixture
def on_postgres():
    if connection.vendor != "postgresql":
        pytest.skip("a snapshot shared by two connections is PostgreSQL's")


@pytest.mark.django_db(transaction=True)
def test_the_check_compares_the_tables_beside_the_fold(
    on_postgres, ledger, ckernel_built, monkeypatch
):
    started = []

    class Spy(SubjectsCheckBeside):
        def __init__(self, snapshot, tol):
            started.append(snapshot)
            super().__init__(snapshot, tol)

    monkeypatch.setattr(compare, "SubjectsCheckBeside", Spy)
    assert ledger_check() == []
    _history("1001").update(grade=1.0)
    _history("1005").update(factor=0.5)
    problems = ledger_check()
    assert len(started) == 2
    assert problems == subjects_check()  # the same list as the comparison after the fold
    assert {p.split(" seq")[0] for p in problems} == {"player 1001", "player 1005"}


@pytest.mark.django_db(transaction=True)
def test_the_second_connection_reads_the_checks_snapshot(on_postgres, ledger):
    def damage() -> None:  # committed by another connection once the snapshot exists
        try:
            _history("1001").update(grade=1.0)
        finally:
            connection.close()

    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            snapshot = snapshot_export(cursor)
        writer = threading.Thread(target=damage)
        writer.start()
        writer.join()
        assert SubjectsCheckBeside(snapshot, 1e-9).result() == []  # as of the snapshot
    assert any(p.startswith("player 1001 seq") for p in subjects_check())  # but it happened


def test_a_snapshot_id_is_checked_before_it_goes_into_sql():
    with pytest.raises(ValueError, match="not a snapshot id"):
        SubjectsCheckBeside("1'; DROP TABLE x; --", 1e-9)
