"""``replay --check`` compares the subject tables on a second connection while it folds
(``grading.ledger.replay.beside``, issue 31), in the check's own snapshot (S5.4): what it finds
is what the comparison after the fold found, and a change committed after the check began is
seen by neither side."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction

from grading.ledger.replay import compare, tablecheck
from grading.ledger.replay.beside import SubjectsCheckBeside, snapshot_export
from grading.ledger.replay.check import ledger_check
from grading.ledger.replay.tablecheck import subjects_check
from grading.models import LedgerHistory, LedgerSubject


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
def test_the_checks_connection_takes_the_comparisons_left_over(
    on_postgres, ledger, ckernel_built, monkeypatch
):
    """Each comparison runs once, on one of the two connections; the problems are those of the
    comparisons run one after the other, in the same order."""
    _history("1001").update(grade=1.0)  # a player's row
    pship_row = LedgerHistory.objects.filter(subject__key__contains="+").earliest("pk")
    LedgerHistory.objects.filter(pk=pship_row.pk).update(boards=1)  # a partnership's row
    LedgerSubject.objects.filter(key="1005").update(initial=1.0)  # a player's initial grade
    expected = subjects_check()
    assert any(p.startswith("player 1001 seq") for p in expected)
    assert any(p.startswith("partnership ") for p in expected)
    assert any(p.startswith("player 1005: initial grade") for p in expected)
    ran: list[tuple[str, str]] = []
    beside_began, own_began = threading.Event(), threading.Event()

    def watched(name, compare):
        # each connection's first comparison waits until the other has taken one, so that
        # both take part whichever reaches the jobs first
        def run(cursor, tol):
            ran.append((name, threading.current_thread().name))
            mine, theirs = (
                (beside_began, own_began) if name == "partnerships" else (own_began, beside_began)
            )
            mine.set()
            theirs.wait(10)
            return compare(cursor, tol)

        return name, run

    monkeypatch.setattr(tablecheck, "CHECKS", tuple(watched(*job) for job in tablecheck.CHECKS))
    assert ledger_check() == expected
    assert sorted(name for name, _ in ran) == sorted(name for name, _ in tablecheck.CHECKS)
    threads = dict(ran)
    assert threads["partnerships"] == "subjects-check"
    assert threads["live"] == threading.main_thread().name


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
