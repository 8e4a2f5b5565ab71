"""The bulk refold's rows taken in on a second connection, beside the fold and the merges
(``grading.ledger.replay.side``, issue 31; S5.4): a refold in a transaction of its own stages
them there and writes what the step-by-step refold wrote; interrupted, or failing in the
second connection, it leaves the database as it was and no staging table behind. (The other
refold tests run inside the test's transaction, where the staging is done on the refold's own
connection: ``side.stage_copier``.)"""

import pytest
from django.db import connection

from grading.ledger.replay import check, side, subjectsmerge
from grading.ledger.replay import run as replay_run
from grading.ledger.replay import write as refold
from grading.models import (
    CurrentGrade,
    LedgerEntry,
    LedgerHead,
    LedgerHistory,
    LedgerLive,
    LedgerSubject,
    PairResult,
    PartnershipGrade,
    SessionGrade,
)
from tests.ledger.test_refold_bulk import (
    _differences,
    _snapshot,
    _stepwise_oracle,
    world_build,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def world(postgres):
    return world_build()


@pytest.fixture
def sides(monkeypatch) -> list[side.SideCopy]:
    """Every ``SideCopy`` the refolds of the test started."""
    started: list[side.SideCopy] = []

    class Spy(side.SideCopy):
        def __init__(self):
            super().__init__()
            started.append(self)

    monkeypatch.setattr(side, "SideCopy", Spy)
    return started


def _staging_tables() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT relname FROM pg_class WHERE relname LIKE 'refold\\_stage\\_%%'")
        return [name for (name,) in cursor.fetchall()]


def test_a_refold_beside_writes_what_the_stepwise_refold_wrote(world, ckernel_built, sides):
    oracle = _stepwise_oracle()
    SessionGrade.objects.filter(entry__isnull=False).update(session_grade=1.0)
    PairResult.objects.filter(version__ledger_entries__isnull=False).update(sopp=2.0)
    LedgerHistory.objects.update(grade=5.0)
    assert check.ledger_refold() == LedgerEntry.objects.count()
    assert len(sides) == 1
    assert set(sides[0].names) == {
        *("grades", "pairs", "pair_ids", "grades_diff"),
        *("subjects", "history", "live", "subject_ids", "history_diff"),
    }
    written = replay_run.last_refold["stats"].written
    assert written["session_grades_updated"] == SessionGrade.objects.exclude(entry=None).count()
    assert written["history_updated"] == LedgerHistory.objects.count() > 0
    # the same set: the history is compared on the refold's own connection
    assert "history_diff_here" in replay_run.last_refold["stats"].seconds
    assert _differences(oracle, _snapshot()) == []
    assert _staging_tables() == []
    assert check.ledger_check() == []


def test_an_interrupted_refold_beside_leaves_the_database_and_no_staging_table(world, sides):
    check.ledger_refold()
    before = _snapshot()
    own = LedgerHead.objects.get().params_name

    def boom(*args, **kwargs):
        raise KeyboardInterrupt

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(refold, "subjects_place", boom)
        LedgerHead.objects.update(params_name="fr18-factors")  # a change of set, interrupted
        with pytest.raises(KeyboardInterrupt):
            check.ledger_refold()
    LedgerHead.objects.update(params_name=own)
    assert len(sides) == 2
    assert _differences(before, _snapshot()) == []
    assert _staging_tables() == []


def test_a_failure_on_the_second_connection_is_the_refolds(world, sides, monkeypatch):
    before = _snapshot()

    def broken(cursor, names, batches, numbers, *, freeze):
        cursor.execute("SELECT 1/0")

    monkeypatch.setattr(subjectsmerge, "_subjects_copy", broken)
    with pytest.raises(Exception, match="division by zero"):
        check.ledger_refold()
    assert len(sides) == 1
    assert _differences(before, _snapshot()) == []
    assert _staging_tables() == []


def test_subjects_new_to_the_tables_are_inserted_with_ids_drawn_beside(world, sides):
    """Subjects the tables lack (deleted here, committed) get their ids from the table's
    sequence on the second connection; the refold inserts them and their history."""
    check.ledger_refold()
    oracle = _snapshot()
    gone = list(LedgerSubject.objects.order_by("-id").values_list("key", flat=True)[:7])
    LedgerHistory.objects.filter(subject__key__in=gone).delete()
    LedgerSubject.objects.filter(key__in=gone).delete()
    check.ledger_refold()
    written = replay_run.last_refold["stats"].written
    assert written["subjects_inserted"] == 7
    assert written["history_inserted"] > 0
    assert set(LedgerSubject.objects.filter(key__in=gone).values_list("key", flat=True)) == set(
        gone
    )
    assert _differences(oracle, _snapshot()) == []
    assert check.ledger_check() == []


def test_rows_the_refolds_transaction_wrote_first_are_compared_on_its_own_connection(
    world, sides, monkeypatch
):
    """The second connection sees only what is committed: where the refold's transaction
    has written the session grades or the history before the refold, the diffs are made on
    the refold's own connection, and what it wrote is put right too."""
    oracle = _stepwise_oracle()
    refold_locked = check.refold_ledger_locked

    def written_first(head, progress):
        SessionGrade.objects.filter(entry__isnull=False).update(session_grade=1.0)
        LedgerHistory.objects.update(grade=5.0)
        return refold_locked(head, progress)

    monkeypatch.setattr(check, "refold_ledger_locked", written_first)
    check.ledger_refold()
    assert len(sides) == 1
    assert "grades_diff" in sides[0].names and "history_diff" in sides[0].names
    written = replay_run.last_refold["stats"].written
    assert written["session_grades_updated"] == SessionGrade.objects.exclude(entry=None).count()
    assert written["history_updated"] == LedgerHistory.objects.count()
    assert _differences(oracle, _snapshot()) == []
    assert _staging_tables() == []


def test_a_first_fill_beside_inserts_what_the_stepwise_refold_wrote(world, sides):
    """Empty tables (the national builder's refold) take the fold's rows with one INSERT
    each, read from the second connection's staging tables; no diff is made."""
    oracle = _stepwise_oracle()
    SessionGrade.objects.filter(entry__isnull=False).delete()
    for model in (LedgerHistory, LedgerLive, LedgerSubject, CurrentGrade, PartnershipGrade):
        model.objects.all().delete()
    check.ledger_refold()
    assert len(sides) == 1
    assert not {"grades_diff", "history_diff"} & set(sides[0].names)
    written = replay_run.last_refold["stats"].written
    assert written["session_grades_inserted"] == SessionGrade.objects.exclude(entry=None).count()
    assert written["history_inserted"] == LedgerHistory.objects.count() > 0
    assert written["subjects_inserted"] == LedgerSubject.objects.count() > 0
    assert _differences(oracle, _snapshot()) == []
    assert _staging_tables() == []
    assert check.ledger_check() == []


def test_a_change_of_set_beside_writes_what_the_stepwise_refold_wrote(world, sides):
    """A change of set (every row rewritten): both comparisons are made on the second
    connection while the refold's connection writes."""
    own = LedgerHead.objects.get().params_name
    LedgerHead.objects.update(params_name="fr18-factors")
    oracle = _stepwise_oracle()
    LedgerHead.objects.update(params_name=own)
    check.ledger_refold()
    LedgerHead.objects.update(params_name="fr18-factors")
    check.ledger_refold()
    assert LedgerHead.objects.get().tables_params == "fr18-factors"
    written = replay_run.last_refold["stats"].written
    assert written["session_grades_updated"] > 0 and written["history_updated"] > 0
    assert "history_diff_here" not in replay_run.last_refold["stats"].seconds
    assert _differences(oracle, _snapshot()) == []
    assert _staging_tables() == []
    assert check.ledger_check() == []
