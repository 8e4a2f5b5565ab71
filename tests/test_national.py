"""The national database builder (issue 17, grading/lab/national.py) at a small size: it copies
the inputs the upload pipeline stores, the product's refold grades them, and the result is the
fold of its ledger (replay --check), the subject tables included; the next upload is graded
from them. Also: the fast payload writer is the codec's canonical JSON (grading/lab/payload.py).
"""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import connection

from clubs.models import Club, ClubRole
from grading.engine import codec
from grading.engine.ngs import ProcessOp
from grading.lab import national
from grading.lab.bulkload import foreign_keys_check
from grading.lab.national import GRADED_TABLES, national_build
from grading.lab.payload import FAST, payload_json
from grading.lab.synthetic import synthetic_ledger
from grading.ledger.replay.check import ledger_check
from grading.models import (
    CurrentGrade,
    Event,
    LedgerEntry,
    LedgerHead,
    PairResult,
    PartnershipGrade,
    Session,
    SessionGrade,
    SessionVersion,
    Upload,
)
from grading.models.schemes import SchemeEntry
from grading.uploads.services import upload_create
from members.models import Member
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.test_worker_warm import tables_problems

try:
    from grading.schemes.rebuild.run import schemes_rebuild  # noqa: F401
except ImportError:
    SCHEMES = False
else:
    SCHEMES = True


@pytest.fixture
def built(db):
    return national_build(players=300, sessions=1500, clubs=4, seed=3, log=lambda _: None)


@pytest.fixture
def small(db):
    return national_build(players=240, sessions=150, clubs=4, seed=3, log=lambda _: None)


def test_the_built_database_is_the_fold_of_its_ledger(built):
    assert Club.objects.count() == 4 and Club.objects.filter(keeps_brambledown=True).exists()
    assert Member.objects.count() == built["members"] > 200
    assert ClubRole.objects.count() == built["members"]
    assert Event.objects.exists() and Session.objects.count() == built["sessions"] >= 1500
    assert PairResult.objects.count() == built["pairs"] > 10_000
    assert SessionVersion.objects.count() == built["versions"]
    assert SessionGrade.objects.count() == built["grades"] > 20_000
    assert LedgerEntry.objects.count() == built["entries"] == LedgerHead.objects.get().last_seq
    assert SchemeEntry.objects.count() == built["schemes"] >= built["entries"]
    assert built["subject_tables_current"]
    # every version graded by the refold, withdrawn or stored not graded (S14.9): none waits
    states = set(SessionVersion.objects.values_list("state", flat=True))
    assert SessionVersion.State.STORED not in states
    assert SessionVersion.objects.filter(state=SessionVersion.State.WITHDRAWN).exists()
    assert not PairResult.objects.filter(
        version__state=SessionVersion.State.GRADED, sopp__isnull=True, known=True
    ).exists()  # the refold gave every graded pair its figures
    assert CurrentGrade.objects.exists() and PartnershipGrade.objects.exists()
    # each session's live version is its last, unless withdrawn (S5.3)
    for session in Session.objects.prefetch_related("versions"):
        last = max(session.versions.all(), key=lambda v: v.number)
        live = None if last.state == SessionVersion.State.WITHDRAWN else last.pk
        assert session.live_version_id == live
    assert ledger_check() == []
    assert tables_problems() == []
    call_command("replay", "--check")
    if SCHEMES:
        assert built["schemes_rebuilt"]
        with connection.cursor() as cursor:
            for name, table in GRADED_TABLES.items():
                cursor.execute(f"SELECT count(*) FROM {table}")
                assert cursor.fetchone()[0] == built[name] > 0, name


def test_the_next_upload_is_graded_from_the_built_tables(small, django_capture_on_commit_callbacks):
    numbers = list(Member.objects.values_list("national_number", flat=True)[:16])
    pairs = [(numbers[2 * i], numbers[2 * i + 1]) for i in range(8)]
    with django_capture_on_commit_callbacks(execute=True):
        upload = upload_create(
            club=Club.objects.first(),
            filename="next.csv",
            data=csv_bytes(mp_session_rows(date="2025-06-02", numbers=pairs)),
        )
    upload.refresh_from_db()
    assert upload.status == Upload.Status.GRADED
    assert ledger_check() == [] and tables_problems() == []


def test_a_database_with_members_is_refused(small):
    with pytest.raises(RuntimeError, match="empty database"):
        national_build(players=10, sessions=5, clubs=1, log=lambda _: None)


def test_the_fast_payload_is_the_canonical_json():
    assert FAST
    sessions = [
        op.session for op in synthetic_ledger(300, 400, seed=7) if isinstance(op, ProcessOp)
    ]
    for session in sessions:
        assert payload_json(session) == codec.canonical_json(session)


def test_without_the_bulk_settings_the_triggers_check_the_keys(db, monkeypatch):
    """A server that refuses the bulk settings (not a superuser): the row-by-row triggers."""
    monkeypatch.setattr(national, "bulk_settings", lambda cursor: False)
    national_build(players=240, sessions=150, clubs=4, seed=3, log=lambda _: None)
    assert ledger_check() == []


def test_a_dangling_key_is_found_by_the_set_based_check(small):
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(
            "INSERT INTO grading_pairresult (version_id, pair_id, direction, section, team, "
            "player1_name, player2_name, host, known) VALUES (999999, 'x', '', '', '', '', '', "
            "false, false)"
        )
        cursor.execute("SET LOCAL session_replication_role = origin")
        with pytest.raises(RuntimeError, match="version_id: 1 rows refer to no"):
            foreign_keys_check(cursor, national.WRITTEN)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="VACUUM is PostgreSQL's")
def test_the_built_database_is_vacuumed_as_autovacuum_would_leave_it(transactional_db):
    """Outside a transaction the build ends with VACUUM (ANALYZE): the rows' visibility is
    marked (the visibility map: pg_class.relallvisible), so the first pages read after the
    build do not mark and write every page they touch (docs/benchmarks.md, session 17); then
    a checkpoint, whose redo point is past the VACUUM's last WAL record (the WAL is the whole
    server's: another database busy meanwhile writes some after it, which is not the build's)."""
    vacuumed: list[str] = []

    def wal_after_vacuum(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if sql.startswith("VACUUM"):
            with context["connection"].cursor() as cursor:
                cursor.execute("SELECT pg_current_wal_lsn()::text")
                vacuumed.append(cursor.fetchone()[0])
        return result

    with connection.execute_wrapper(wal_after_vacuum):
        national_build(players=240, sessions=150, clubs=4, seed=3, log=lambda _: None)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relpages, relallvisible FROM pg_class WHERE relname = %s",
            [SessionGrade._meta.db_table],
        )
        pages, visible = cursor.fetchone()
        assert len(vacuumed) == 1
        cursor.execute(
            "SELECT pg_wal_lsn_diff(redo_lsn, %s::pg_lsn) FROM pg_control_checkpoint()",
            vacuumed,
        )
        (checkpoint_after_vacuum,) = cursor.fetchone()
    assert pages > 0 and visible == pages
    assert checkpoint_after_vacuum >= 0, checkpoint_after_vacuum
