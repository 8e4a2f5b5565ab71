"""The pair figures and the versions' states written during the fold, by a thread on the
refold's own connection (``grading.ledger.replay.ownwrite``; issue 31; S5.4): what the
step-by-step refold wrote, in the refold's transaction (a failure there, or after it, leaves
the database as it was), a chunk at a time."""

import threading

import pytest

from grading.ledger.replay import check
from grading.ledger.replay import write as refold
from grading.models import LedgerEntry, LedgerHead, PairResult, SessionVersion
from tests.ledger.test_refold_bulk import _differences, _snapshot, _stepwise_oracle, world_build
from tests.ledger.test_refold_side import _staging_tables

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def world(postgres):
    return world_build()


def test_the_pair_figures_are_written_by_the_refolds_thread_in_chunks(
    world, ckernel_built, monkeypatch
):
    oracle = _stepwise_oracle()
    PairResult.objects.filter(version__ledger_entries__isnull=False).update(sopp=2.0, par=None)
    SessionVersion.objects.filter(ledger_entries__isnull=False).update(known_pairs=0)
    monkeypatch.setattr(refold, "CHUNK_ROWS", 40)  # many chunks
    threads = []
    real = refold.RefoldWriter._pair_figures

    def recorded(self, cursor, columns, params):
        threads.append(threading.current_thread().name)
        real(self, cursor, columns, params)

    monkeypatch.setattr(refold.RefoldWriter, "_pair_figures", recorded)
    assert check.ledger_refold() == LedgerEntry.objects.count()
    assert len(threads) > 3 and set(threads) == {"refold-own"}
    assert _differences(oracle, _snapshot()) == []
    assert check.ledger_check() == []


def test_a_failure_writing_the_pair_figures_leaves_the_database(world, monkeypatch):
    check.ledger_refold()
    before = _snapshot()
    own = LedgerHead.objects.get().params_name
    monkeypatch.setattr(refold, "CHUNK_ROWS", 40)
    calls = []
    real = refold.RefoldWriter._pair_figures

    def broken_third(self, cursor, columns, params):
        calls.append(1)
        if len(calls) == 3:
            cursor.execute("SELECT 1/0")
        real(self, cursor, columns, params)

    monkeypatch.setattr(refold.RefoldWriter, "_pair_figures", broken_third)
    LedgerHead.objects.update(params_name="fr18-factors")  # a change of set
    with pytest.raises(Exception, match="division by zero"):
        check.ledger_refold()
    LedgerHead.objects.update(params_name=own)
    assert _differences(before, _snapshot()) == []
    assert _staging_tables() == []
    assert not [t for t in threading.enumerate() if t.name == "refold-own"]
