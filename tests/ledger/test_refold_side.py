"""The bulk refold's rows taken in on a second connection, and the subject tables written there
in a transaction of their own (``grading.ledger.replay.side``, ``subjectsmerge``; issue 31;
S5.4): a refold in a transaction of its own writes what the step-by-step refold wrote;
interrupted, or failing in the second connection, it leaves the grades as they were, the
subject tables as they were or the fold of the committed ledger marked as such (docs/decisions.md),
and no staging table behind. (The other refold tests run inside the test's transaction, where
everything is done on the refold's own connection: ``side.stage_copier``.)"""

import time

import pytest
from django.db import connection

from grading.ledger.replay import check, side, subjectsmerge
from grading.ledger.replay import run as replay_run
from grading.ledger.replay import write as refold
from grading.ledger.subjects import subjects_current, tables_marked
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


STAGED = {"grades", "pairs", "subjects", "history", "live"}
SUBJECT_TABLES = ("subjects", "history", "live")


def _grades(snapshot: dict) -> dict:
    """A snapshot without the subject tables and what they hold."""
    out = {k: v for k, v in snapshot.items() if k not in SUBJECT_TABLES + ("head",)}
    out["head"] = {"head": snapshot["head"]["head"][2:]}  # the ledger's head, not the mark
    return out


def test_a_refold_beside_writes_what_the_stepwise_refold_wrote(world, ckernel_built, sides):
    oracle = _stepwise_oracle()
    SessionGrade.objects.filter(entry__isnull=False).update(session_grade=1.0)
    PairResult.objects.filter(version__ledger_entries__isnull=False).update(sopp=2.0)
    LedgerHistory.objects.update(grade=5.0)
    assert check.ledger_refold() == LedgerEntry.objects.count()
    assert len(sides) == 1
    assert set(sides[0].names) == STAGED
    stats = replay_run.last_refold["stats"]
    assert (
        stats.written["session_grades_updated"] == SessionGrade.objects.exclude(entry=None).count()
    )
    assert stats.written["history_updated"] == LedgerHistory.objects.count() > 0
    assert "subjects_beside" in stats.seconds  # the subject tables written on the second connection
    assert _differences(oracle, _snapshot()) == []
    assert _staging_tables() == []
    assert check.ledger_check() == []


def test_a_failure_before_the_subject_tables_commit_leaves_the_database(world, sides, monkeypatch):
    check.ledger_refold()
    before = _snapshot()
    own = LedgerHead.objects.get().params_name

    def broken(cursor, *args, freeze):
        subjectsmerge.subjects_write(cursor, args[0], rewrites=args[1], mark=args[2])
        raise RuntimeError("the second connection failed before its commit")

    monkeypatch.setattr(refold, "subjects_job", broken)
    LedgerHead.objects.update(params_name="fr18-factors")  # a change of set
    with pytest.raises(RuntimeError, match="before its commit"):
        check.ledger_refold()
    LedgerHead.objects.update(params_name=own)
    assert len(sides) == 2
    assert _differences(before, _snapshot()) == []
    assert _staging_tables() == []


def test_a_refold_interrupted_after_the_subject_tables_committed_keeps_the_old_grades(
    world, sides, monkeypatch
):
    """The subject tables commit before the refold's transaction: interrupted after that, the
    grades are the old set's still, and the subject tables the new set's fold of the ledger,
    marked as such, so a grading step reads them as they are (and, should the set be put back
    before the next refold, refills them)."""
    own = LedgerHead.objects.get().params_name
    LedgerHead.objects.update(params_name="fr18-factors")
    oracle = _stepwise_oracle()
    LedgerHead.objects.update(params_name=own)
    check.ledger_refold()
    before = _snapshot()

    def interrupted(self, cursor):
        raise KeyboardInterrupt

    monkeypatch.setattr(side.SideCopy, "drop", interrupted)  # after the subject tables' commit
    LedgerHead.objects.update(params_name="fr18-factors")
    with pytest.raises(KeyboardInterrupt):
        check.ledger_refold()
    monkeypatch.undo()
    after = _snapshot()
    assert _differences(_grades(before), _grades(after)) == []
    subject_tables = {k: oracle[k] for k in SUBJECT_TABLES}
    assert _differences(subject_tables, {k: after[k] for k in SUBJECT_TABLES}) == []
    head = LedgerHead.objects.get()
    assert tables_marked() == (head.last_seq, "fr18-factors") and subjects_current(head)
    assert _staging_tables() == []
    LedgerHead.objects.update(params_name=own)  # put back: the tables are not its fold
    assert not subjects_current(LedgerHead.objects.get())
    LedgerHead.objects.update(params_name="fr18-factors")
    check.ledger_refold()
    assert _differences(oracle, _snapshot()) == []


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


def test_subjects_new_to_the_tables_are_inserted_beside_with_ids_from_the_sequence(world, sides):
    """Subjects the tables lack (deleted here, committed) get their ids from the table's
    sequence on the second connection, which inserts them and their history."""
    check.ledger_refold()
    oracle = _snapshot()
    gone = list(LedgerSubject.objects.order_by("-id").values_list("key", flat=True)[:7])
    LedgerHistory.objects.filter(subject__key__in=gone).delete()
    LedgerSubject.objects.filter(key__in=gone).delete()
    top = LedgerSubject.objects.order_by("-id").values_list("id", flat=True)[0]
    check.ledger_refold()
    stats = replay_run.last_refold["stats"]
    assert stats.written["subjects_inserted"] == 7 and stats.written["history_inserted"] > 0
    assert "subjects_beside" in stats.seconds
    made = LedgerSubject.objects.filter(key__in=gone)
    assert set(made.values_list("key", flat=True)) == set(gone)
    assert min(made.values_list("id", flat=True)) > top
    assert _differences(oracle, _snapshot()) == []
    assert check.ledger_check() == []


def test_a_refold_whose_transaction_wrote_first_writes_the_subject_tables_itself(
    world, sides, monkeypatch
):
    """The second connection sees only what is committed: where the refold's transaction
    has written anything before the refold, the subject tables are written on the refold's
    own connection, and what it wrote is put right too."""
    oracle = _stepwise_oracle()
    refold_locked = check.refold_ledger_locked

    def written_first(head, progress, **kwargs):
        SessionGrade.objects.filter(entry__isnull=False).update(session_grade=1.0)
        LedgerHistory.objects.update(grade=5.0)
        return refold_locked(head, progress, **kwargs)

    monkeypatch.setattr(check, "refold_ledger_locked", written_first)
    check.ledger_refold()
    assert len(sides) == 1
    stats = replay_run.last_refold["stats"]
    assert "subjects_beside" not in stats.seconds
    assert (
        stats.written["session_grades_updated"] == SessionGrade.objects.exclude(entry=None).count()
    )
    assert stats.written["history_updated"] == LedgerHistory.objects.count()
    assert _differences(oracle, _snapshot()) == []
    assert _staging_tables() == []


def test_the_lock_on_the_ledger_head_is_not_a_write(world):
    """``rows_written`` before and after the refold's lock (SELECT ... FOR UPDATE): the lock
    alone is not a write, so it leaves the subject tables to the second connection; a row
    written is one."""
    from django.db import transaction

    from grading.ledger.lock import ledger_head_lock

    SessionGrade.objects.filter(entry__isnull=False).update(session_grade=1.0)  # just before
    with transaction.atomic():
        begun = side.rows_written()
        ledger_head_lock()
        assert side.rows_written() == begun
        LedgerHead.objects.update(reference_date=None)
        assert side.rows_written() > begun
        transaction.set_rollback(True)


def test_a_first_fill_inserts_what_the_stepwise_refold_wrote(world, sides):
    """Empty tables (the national builder's refold) take the fold's rows with one INSERT
    each, on the refold's own connection; no diff is made."""
    oracle = _stepwise_oracle()
    SessionGrade.objects.filter(entry__isnull=False).delete()
    for model in (LedgerHistory, LedgerLive, LedgerSubject, CurrentGrade, PartnershipGrade):
        model.objects.all().delete()
    check.ledger_refold()
    assert len(sides) == 1
    stats = replay_run.last_refold["stats"]
    assert "subjects_beside" not in stats.seconds
    assert (
        stats.written["session_grades_inserted"] == SessionGrade.objects.exclude(entry=None).count()
    )
    assert stats.written["history_inserted"] == LedgerHistory.objects.count() > 0
    assert stats.written["subjects_inserted"] == LedgerSubject.objects.count() > 0
    assert _differences(oracle, _snapshot()) == []
    assert _staging_tables() == []
    assert check.ledger_check() == []


def test_a_change_of_set_rewrites_every_row_as_the_stepwise_refold_wrote_it(world, sides):
    """A change of set: the session grades and the history rows are rewritten, found by their
    keys (``merge.rewrite``), rows the tables lack inserted and rows the fold does not give
    deleted; the subject tables on the second connection."""
    own = LedgerHead.objects.get().params_name
    LedgerHead.objects.update(params_name="fr18-factors")
    oracle = _stepwise_oracle()
    LedgerHead.objects.update(params_name=own)
    check.ledger_refold()
    lost = list(SessionGrade.objects.exclude(entry=None).order_by("id")[:3])
    SessionGrade.objects.filter(pk__in=[g.pk for g in lost]).delete()
    extra = LedgerHistory.objects.order_by("id").first()
    extra.pk, extra.seq = None, 10**9  # a row the fold does not give
    extra.save()
    LedgerHead.objects.update(params_name="fr18-factors")
    check.ledger_refold()
    assert tables_marked()[1] == "fr18-factors"
    stats = replay_run.last_refold["stats"]
    assert stats.written["session_grades_inserted"] == 3
    assert stats.written["history_deleted"] == 1
    assert (
        stats.written["session_grades_updated"]
        == SessionGrade.objects.exclude(entry=None).count() - 3
    )
    assert stats.written["history_updated"] == LedgerHistory.objects.count()
    assert "subjects_beside" in stats.seconds
    assert _differences(oracle, _snapshot()) == []
    assert _staging_tables() == []
    assert check.ledger_check() == []


def test_the_subject_tables_commit_after_the_grades_are_written(world, sides, monkeypatch):
    """The second connection's transaction commits once the refold's own writes are done,
    just before the refold's commit: a snapshot taken between the two commits (``replay
    --check`` takes one without the ledger lock) would see the new subject tables beside the
    old grades."""
    events: list[str] = []
    grades_write = refold.RefoldWriter._grades_write
    side_commit = side._commit

    def grades_written(self, cursor, rewrites):
        out = grades_write(self, cursor, rewrites)
        time.sleep(1.0)  # the second connection has long finished writing the subject tables
        events.append("grades written")
        return out

    def committed(cursor, *, freeze):
        side_commit(cursor, freeze=freeze)
        events.append("side committed")

    monkeypatch.setattr(refold.RefoldWriter, "_grades_write", grades_written)
    monkeypatch.setattr(side, "_commit", committed)
    check.ledger_refold()
    assert "subjects_beside" in replay_run.last_refold["stats"].seconds
    assert events[-2:] == ["grades written", "side committed"]
