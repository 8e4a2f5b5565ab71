"""docs/operations.md: a PostgreSQL dump restored into a new database passes replay --check."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from grading.models import LedgerEntry, SessionGrade
from grading.uploads.services import upload_create
from tests.conftest import skip_or_fail
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import ClubFactory

ROOT = Path(__file__).resolve().parent.parent


def pg(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=120, check=True, **kwargs)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_restored_dump_passes_replay_check(tmp_path, postgres):
    if not shutil.which("pg_dump"):
        skip_or_fail("pg_dump is not installed")
    club = ClubFactory(slug="riverside")
    upload_create(club=club, filename="a.csv", data=csv_bytes(mp_session_rows()))
    upload_create(
        club=club,
        filename="b.csv",
        data=csv_bytes(
            mp_session_rows(
                event_id="TUE", date="2026-11-17", scores=[40, 45, 50, 55, 60, 52, 48, 50]
            )
        ),
    )
    upload_create(
        club=club, filename="c.csv", data=csv_bytes(mp_session_rows(scores=[50] * 8))
    )  # a correction
    # process, process, withdraw, process: there is something to reproduce
    assert LedgerEntry.objects.count() == 4
    assert SessionGrade.objects.filter(live=True).count() == 32

    settings = connection.settings_dict
    base = f"postgres://{settings['USER']}@{settings['HOST'] or '127.0.0.1'}:{settings['PORT'] or 5432}"
    restored = f"{settings['NAME']}_restored"
    dump = tmp_path / "grading.dump"
    pg("pg_dump", "--format=custom", f"--file={dump}", f"{base}/{settings['NAME']}")
    pg("dropdb", "--if-exists", f"--maintenance-db={base}/postgres", restored)
    pg("createdb", f"--maintenance-db={base}/postgres", restored)
    try:
        pg("pg_restore", "--no-owner", f"--dbname={base}/{restored}", str(dump))
        env = {**os.environ, "DATABASE_URL": f"{base}/{restored}"}
        check = subprocess.run(
            [sys.executable, "manage.py", "replay", "--check"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert check.returncode == 0, check.stdout + check.stderr
        assert "every stored grade is reproduced" in check.stdout
    finally:
        pg("dropdb", "--if-exists", f"--maintenance-db={base}/postgres", restored)
