"""The bulk refold's rows taken in on a second connection, beside the fold and the merges
(``grading.ledger.replay.side``, issue 31; S5.4): a refold in a transaction of its own stages
them there and writes what the step-by-step refold wrote; interrupted, or failing in the
second connection, it leaves the database as it was and no staging table behind. (The other
refold tests run inside the test's transaction, where the staging is done on the refold's own
connection: ``side.stage_copier``.)"""

import pytest
from django.db import connection

from grading.ledger.replay import check, merge, side
from grading.ledger.replay import run as replay_run
from grading.ledger.replay import write as refold
from grading.models import LedgerEntry, LedgerHead, LedgerHistory, PairResult, SessionGrade
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
    assert set(sides[0].names) == {"grades", "pairs", "subjects", "history", "live"}
    written = replay_run.last_refold["stats"].written
    assert written["session_grades_updated"] == SessionGrade.objects.exclude(entry=None).count()
    assert written["history_updated"] == LedgerHistory.objects.count() > 0
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

    monkeypatch.setattr(merge, "_subjects_copy", broken)
    with pytest.raises(Exception, match="division by zero"):
        check.ledger_refold()
    assert len(sides) == 1
    assert _differences(before, _snapshot()) == []
    assert _staging_tables() == []
