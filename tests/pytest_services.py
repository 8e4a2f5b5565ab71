"""Chooses the real services for the suite before Django reads its settings.

Loaded with ``-p tests.pytest_services`` (pyproject), so it runs before pytest-django imports
the settings. PostgreSQL at ``DATABASE_URL`` (default: the local server) when reachable, else
SQLite with a visible warning; ``REQUIRE_SERVICES=1`` turns every fallback into a failure.
"""

import os
import socket
from pathlib import Path
from urllib.parse import urlparse

import pytest

# One database per run (pytest-django prefixes it with test_), so concurrent runs never meet.
LOCAL_POSTGRES = f"postgres://postgres@127.0.0.1:5432/grading_{os.getpid()}"
LOCAL_REDIS = "redis://127.0.0.1:6379/15"
CHROMIUM = "/usr/bin/chromium"
REQUIRE_SERVICES = os.environ.get("REQUIRE_SERVICES", "") == "1"

missing: list[str] = []


def reachable(url: str, default_port: int) -> bool:
    parsed = urlparse(url)
    try:
        with socket.create_connection(
            (parsed.hostname or "127.0.0.1", parsed.port or default_port), 1
        ):
            return True
    except OSError:
        return False


def choose_database() -> None:
    url = os.environ.get("DATABASE_URL") or LOCAL_POSTGRES
    if reachable(url, 5432):
        os.environ["DATABASE_URL"] = url
    else:
        os.environ.pop("DATABASE_URL", None)
        missing.append(f"PostgreSQL is not reachable at {url}: the suite runs on SQLite")


def choose_redis() -> None:
    url = os.environ.get("TEST_REDIS_URL") or LOCAL_REDIS
    if reachable(url, 6379):
        os.environ["TEST_REDIS_URL"] = url
    else:
        os.environ.pop("TEST_REDIS_URL", None)
        missing.append(f"Redis is not reachable at {url}: Celery round trips are skipped")


def choose_browser() -> None:
    if not Path(CHROMIUM).exists():
        missing.append(
            f"{CHROMIUM} is missing (apt-get install chromium): browser tests are skipped"
        )


# Tests run eagerly unless a test starts a real worker itself.
os.environ.pop("REDIS_URL", None)
os.environ.setdefault("DJANGO_DEBUG", "1")
# Playwright's sync API runs an event loop in the test thread; the ORM calls made around it
# are still synchronous and safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
choose_database()
choose_redis()
choose_browser()


def pytest_configure(config):
    if missing and REQUIRE_SERVICES:
        raise pytest.UsageError("REQUIRE_SERVICES=1 but: " + "; ".join(missing))


def pytest_report_header(config):
    if not missing:
        return ["services: PostgreSQL, Redis and Chromium in use"]
    return [f"WARNING: {reason}" for reason in missing]


def pytest_terminal_summary(terminalreporter):
    for reason in missing:
        terminalreporter.write_line(f"WARNING: {reason}", yellow=True, bold=True)
