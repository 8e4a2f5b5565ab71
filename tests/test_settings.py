import os
import subprocess
import sys
from pathlib import Path

import pytest

from grading.settings import database_from_url

ROOT = Path(__file__).resolve().parent.parent


def test_database_url_postgres_is_parsed():
    db = database_from_url("postgres://alice:s%40cret@db.example:6543/grades?sslmode=require")
    assert db["ENGINE"] == "django.db.backends.postgresql"
    assert (db["NAME"], db["USER"], db["PASSWORD"]) == ("grades", "alice", "s@cret")
    assert (db["HOST"], db["PORT"]) == ("db.example", "6543")
    assert db["OPTIONS"] == {"sslmode": "require", "prepare_threshold": 2**62}


def test_prepared_statements_can_be_turned_off_for_a_pooler(monkeypatch):
    monkeypatch.setenv("DB_PREPARED_STATEMENTS", "0")
    db = database_from_url("postgres://alice@db.example/grades?sslmode=require")
    assert db["OPTIONS"] == {"sslmode": "require"}  # psycopg's default as Django sets it: none


def test_unknown_database_scheme_is_refused():
    from django.core.exceptions import ImproperlyConfigured

    with pytest.raises(ImproperlyConfigured):
        database_from_url("mysql://root@localhost/x")


def run_manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL"))}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_settings_pass_check_deploy():
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY="x" * 20 + "a-long-random-production-secret-key-0123456789",
        DJANGO_ALLOWED_HOSTS="grades.example.org",
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_production_without_secret_key_refuses_to_start():
    result = run_manage("check", DJANGO_DEBUG="0", DJANGO_ALLOWED_HOSTS="grades.example.org")
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY" in result.stderr


def test_an_unknown_engine_path_refuses_to_start():
    """GRADING_ENGINE_PATH is the one switch of the engine path (docs/ngs.md): a typing slip
    must not grade on a path nobody asked for."""
    result = run_manage("check", GRADING_ENGINE_PATH="fastest")
    assert result.returncode != 0
    assert "GRADING_ENGINE_PATH" in result.stderr


def test_the_size_limit_and_the_earliest_date_default_to_the_ingests():
    """One value each (S12): the settings' defaults are the ingest's constants, which
    parse_file uses when no caller passes the settings."""
    from django.conf import settings

    from grading.ingest import limits

    if "UPLOAD_MAX_BYTES" not in os.environ:
        assert settings.UPLOAD_MAX_BYTES == limits.MAX_UPLOAD_BYTES == 10 * 1024 * 1024
    if "EARLIEST_PLAY_DATE" not in os.environ:
        assert settings.EARLIEST_PLAY_DATE == limits.EARLIEST_PLAY_DATE
