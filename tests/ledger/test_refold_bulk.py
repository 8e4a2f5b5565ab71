"""The bulk refold (issue 18; S5.4, S14.6, S14.11): on PostgreSQL, after a refold of a ledger
with uploads, corrections, withdrawals, Swiss and teams sessions and not-graded versions, every
stored row is what the step-by-step refold wrote (current and partnership grades as of the
ledger's reference date, as the nightly refresh stores them), ``replay --check`` passes, an
interrupted refold leaves the database as it was, and the refold is bulk: a fixed number of
queries, not one per session."""

import math

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from grading.engine.ngs import get_params
from grading.lab.simulate import SimConfig, simulate
from grading.ledger import refresh
from grading.ledger.lock import ledger_head_lock
from grading.ledger.replay import check
from grading.ledger.replay import run as replay_run
from grading.ledger.step import versions_grade_pending
from grading.ledger.subjects import tables_marked
from grading.models import (
    AuditEvent,
    CurrentGrade,
    LedgerEntry,
    LedgerHead,
    LedgerHistory,
    LedgerLive,
    LedgerSubject,
    PairResult,
    PartnershipGrade,
    SessionGrade,
    SessionVersion,
    Upload,
)
from grading.uploads.services import session_withdraw, upload_create
from tests.csvfiles import csv_bytes, mp_session_rows

TOL = 1e-9


@pytest.fixture
def world(postgres):
    return world_build()


def world_build():
    """Three months of two clubs' uploads, a session of mostly unknown players (not graded)
    and a withdrawal."""
    from clubs.services import club_get_or_create

    sim = simulate(SimConfig(players=60, clubs=2, months=3, seed=5, county=True))
    clubs = {
        c.slug: club_get_or_create(name=c.name, slug=c.slug, national_number=c.national_number)
        for c in sim.clubs()
    }
    for upload in sim.uploads[:24]:
        result = upload_create(club=clubs[upload.club], filename=upload.filename, data=upload.data)
        assert result.status != Upload.Status.REFUSED, result.problems
        versions_grade_pending()
    club = next(iter(clubs.values()))
    # a session of mostly unknown players: not graded (S3.8, S14.9), no ledger entry
    unknown = [("0", "0")] * 5 + [("1001", "1002"), ("1003", "1004")]
    upload_create(
        club=club,
        filename="unknown.csv",
        data=csv_bytes(mp_session_rows(numbers=unknown, scores=[50.0] * 7, date="2025-02-03")),
    )
    versions_grade_pending()
    # a withdrawal (S5.3)
    graded = SessionVersion.objects.filter(state=SessionVersion.State.GRADED).order_by("pk")
    session_withdraw(version=graded[3])
    versions_grade_pending()
    return sim


def _close(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= TOL * max(1.0, abs(a))
    return a == b


def _rows(model, key: tuple[str, ...], skip: tuple[str, ...] = ()) -> dict:
    fields = [
        f.attname
        for f in model._meta.concrete_fields
        if f.attname not in ("id", "created", "payload", *skip)
    ]
    return {
        tuple(row[k] for k in key): tuple(row[f] for f in fields)
        for row in model.objects.values(*{*fields, *key})
    }


def _snapshot() -> dict[str, dict]:
    subjects = dict(LedgerSubject.objects.values_list("id", "key"))
    history = {
        (subjects[r["subject_id"]], r["seq"]): tuple(v for k, v in r.items() if k != "subject_id")
        for r in LedgerHistory.objects.values(
            "subject_id", "version_id", "seq", "pos", "date", "boards", "grade", "factor",
            "partner", "pad",
        )
    }  # fmt: skip
    return {
        "session_grades": _rows(SessionGrade, ("version_id", "member_id")),
        "pairs": _rows(PairResult, ("version_id", "pair_id")),
        "versions": _rows(SessionVersion, ("id",)),
        "current": _rows(CurrentGrade, ("member_id",), skip=("seq",)),
        "partnerships": _rows(PartnershipGrade, ("member_a_id", "member_b_id"), skip=("seq",)),
        "subjects": dict(LedgerSubject.objects.values_list("key", "initial")),
        "history": history,
        "live": {v: (s, d) for v, s, d in LedgerLive.objects.values_list("version_id", "seq", "date")},
        "head": {"head": (
            *tables_marked(), *LedgerHead.objects.values_list("last_seq", "reference_date").get()
        )},
    }  # fmt: skip


def _differences(a: dict, b: dict) -> list[str]:
    out = []
    for table in a:
        if a[table].keys() != b[table].keys():
            out.append(f"{table}: keys differ {set(a[table]) ^ set(b[table])}"[:300])
            continue
        for key, row in a[table].items():
            other = b[table][key]
            row = row if isinstance(row, tuple) else (row,)
            other = other if isinstance(other, tuple) else (other,)
            if len(row) != len(other) or not all(map(_close, row, other)):
                out.append(f"{table} {key}: {row} != {other}")
    return out


def _stepwise_oracle() -> dict:
    """What the step-by-step refold writes, its current and partnership grades brought to the
    ledger's reference date (the nightly refresh)."""
    with transaction.atomic():
        head = ledger_head_lock()
        replay_run._refold_stepwise(head, get_params(head.params_name), lambda d, t: None)
    head = LedgerHead.objects.get()
    refresh.grades_refresh(today=head.reference_date)
    return _snapshot()


def _has_every_kind() -> None:
    states = set(SessionVersion.objects.values_list("state", flat=True))
    assert {"graded", "withdrawn", "not_graded"} <= states, states
    assert SessionVersion.objects.filter(matches__isnull=False).exists()  # Swiss or teams
    assert SessionGrade.objects.filter(entry__isnull=True).exists()  # not graded rows
    assert LedgerEntry.objects.filter(operation="withdraw").count() >= 2  # a correction too


@pytest.fixture(params=["compiled", "python"])
def producer(request, monkeypatch):
    """Each producer of the bulk refold: the compiled kernel's writing fold, the Python one."""
    if request.param == "compiled":
        request.getfixturevalue("ckernel_built")
    else:
        monkeypatch.setattr(replay_run, "ckernel_available", lambda: False)
    return request.param


def test_the_bulk_refold_writes_what_the_stepwise_refold_wrote(world, producer):
    _has_every_kind()
    oracle = _stepwise_oracle()
    # the stored figures scrambled: the refold must put every one back
    SessionGrade.objects.filter(entry__isnull=False).update(session_grade=1.0, live=True)
    PairResult.objects.filter(version__ledger_entries__isnull=False).update(sopp=2.0)
    SessionVersion.objects.exclude(state="not_graded").update(state="graded", sof=3.0)
    CurrentGrade.objects.update(grade=4.0)
    PartnershipGrade.objects.all().delete()
    LedgerHistory.objects.update(grade=5.0)
    LedgerHead.objects.update(last_seq=0, reference_date=None)  # a ledger written in bulk
    assert check.ledger_refold() == LedgerEntry.objects.count()
    assert replay_run.last_refold["engine"].startswith(
        "the compiled kernel" if producer == "compiled" else "the Python engine"
    )
    written = replay_run.last_refold["stats"].written
    assert written["session_grades_updated"] == SessionGrade.objects.exclude(entry=None).count()
    assert written["partnerships_inserted"] == PartnershipGrade.objects.count() > 0
    assert _differences(oracle, _snapshot()) == []
    head = LedgerHead.objects.get()
    assert set(CurrentGrade.objects.values_list("as_of", "seq")) == {
        (head.reference_date, head.last_seq)
    }
    assert check.ledger_check() == []
    # a second refold with the same set writes no row again
    check.ledger_refold()
    written = replay_run.last_refold["stats"].written
    assert set(written.values()) == {0}, written
    assert _differences(oracle, _snapshot()) == []


def test_a_first_fill_inserts_what_the_stepwise_refold_wrote(world):
    """Every table the refold fills empty (the national builder's refold): each takes the
    fold's rows with one INSERT, without the full join against the table (issue 31), and
    they are the step-by-step refold's."""
    oracle = _stepwise_oracle()
    SessionGrade.objects.filter(entry__isnull=False).delete()
    for model in (LedgerHistory, LedgerLive, LedgerSubject, CurrentGrade, PartnershipGrade):
        model.objects.all().delete()
    with CaptureQueriesContext(connection) as queries:
        check.ledger_refold()
    assert not [q["sql"] for q in queries if "refold_diff" in q["sql"]]
    written = replay_run.last_refold["stats"].written
    assert written["session_grades_inserted"] == SessionGrade.objects.exclude(entry=None).count()
    assert written["history_inserted"] == LedgerHistory.objects.count() > 0
    assert _differences(oracle, _snapshot()) == []
    assert check.ledger_check() == []


def test_an_interrupted_refold_leaves_the_database_as_it_was(world):
    before = _snapshot()
    grade_ids = sorted(SessionGrade.objects.values_list("pk", flat=True))
    events = AuditEvent.objects.count()
    seen = []

    def interrupt(done, total):
        seen.append(done)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        check.ledger_refold(progress=interrupt)
    assert seen
    assert _differences(before, _snapshot()) == []
    assert sorted(SessionGrade.objects.values_list("pk", flat=True)) == grade_ids
    assert AuditEvent.objects.count() == events
    assert check.refold_progress() is None
    assert check.ledger_check() == []


def test_an_interrupted_write_leaves_the_database_as_it_was(world, monkeypatch):
    """Interrupted after the session grades went in, before the subject tables."""
    from grading.ledger.replay import write as refold

    before = _snapshot()

    def boom(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(refold, "subjects_write", boom)
    with pytest.raises(KeyboardInterrupt):
        check.ledger_refold()
    assert _differences(before, _snapshot()) == []
    with connection.cursor() as cursor:  # the temporary tables went with the transaction
        cursor.execute("SELECT count(*) FROM pg_class WHERE relname LIKE 'refold_%%'")
        assert cursor.fetchone()[0] == 0


def _queries() -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        check.ledger_refold()
    return [q["sql"] for q in queries]


def test_the_refold_is_bulk_not_a_query_per_session(world):
    """Reading, COPYing and placing: a bounded number of statements, whatever the ledger's
    size (the COPYs go through psycopg and are not counted; their rows are)."""
    from clubs.services import club_get_or_create

    check.ledger_refold()  # what a process reads once (each table's float columns) read first
    small = _queries()
    entries = LedgerEntry.objects.count()
    clubs = {
        c.slug: club_get_or_create(name=c.name, slug=c.slug, national_number=c.national_number)
        for c in world.clubs()
    }
    for upload in world.uploads[24:44]:
        upload_create(club=clubs[upload.club], filename=upload.filename, data=upload.data)
        versions_grade_pending()
    assert LedgerEntry.objects.count() >= entries + 5
    larger = _queries()
    # (a table with nothing to change skips its writing statements; the comparisons and what
    # they need, made on the refold's connection here, are some 15 statements a table)
    assert len(small) < 100 and len(larger) < 100, larger
    assert len(larger) - len(small) < 20, larger
    assert replay_run.last_refold["stats"].records > 500


def test_replay_says_which_engine_and_shows_progress(world, capsys):
    call_command("replay")
    out = capsys.readouterr()
    assert "Refolding with the " in out.out and "written in bulk" in out.out
    assert "100%" in out.err
    call_command("replay", "--check")
    assert "every stored grade is reproduced" in capsys.readouterr().out


def test_a_refold_of_an_empty_ledger(postgres):
    assert check.ledger_refold() == 0
    assert not CurrentGrade.objects.exists()
    assert tables_marked()[0] == 0


def test_histories_in_batches_of_subjects_write_the_same_rows(world, ckernel_built, monkeypatch):
    """The compiled fold hands the histories a batch of subjects at a time (memory bounded by
    a batch nationally): the subject tables come out the same as from one batch."""
    from grading.engine.ngs.cwrite import WritingReplay

    check.ledger_refold()
    whole = _snapshot()
    batches = WritingReplay.history_batches
    seen = []

    def small(self, subjects=200_000, entries=2_000_000):
        for batch in batches(self, subjects=7, entries=40):
            seen.append(batch.first_subject)
            yield batch

    monkeypatch.setattr(WritingReplay, "history_batches", small)
    LedgerHistory.objects.update(grade=5.0)
    LedgerSubject.objects.update(initial=1.0)
    check.ledger_refold()
    assert len(seen) > 3
    assert _differences(whole, _snapshot()) == []
    assert check.ledger_check() == []
