"""Uploads through the real pipeline (upload_create, graded when the transaction commits)."""

from pathlib import Path

import pytest
from django.db import transaction

from grading.engine import codec
from grading.engine.types import SessionResult
from grading.models import SessionVersion, Upload
from grading.schemes.after_step import schemes_catch_up
from grading.schemes.log import live_entries
from grading.schemes.ppi import ppi_rebuild
from grading.uploads.services import session_withdraw, upload_create
from tests.factories import ClubFactory

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.fixture
def club(db):
    return ClubFactory(slug="riverside", national_number="1101", keeps_brambledown=True)


@pytest.fixture
def upload(club, django_capture_on_commit_callbacks):
    def send(data: bytes, name: str = "results.csv", target=None) -> Upload:
        with django_capture_on_commit_callbacks(execute=True):
            result = upload_create(club=target or club, filename=name, data=data)
        result.refresh_from_db()
        assert result.status == Upload.Status.GRADED, result.problems
        return result

    return send


def session_of(version: SessionVersion) -> SessionResult:
    return codec.load(SessionResult, version.payload)


def live_sessions_in_processing_order() -> list[SessionResult]:
    return [session_of(e.version) for e in live_entries()]


def ppi_rebuilt() -> int:
    """PPI recomputed from the live versions, as the product does on a gap in the schemes' log
    (``ppi_rebuild``, under the schemes' lock, in one transaction). Returns the members rated."""
    with transaction.atomic():
        return ppi_rebuild()


def withdraw(version: SessionVersion) -> SessionVersion:
    """A withdrawal as the product runs it: the ledger's step, then the schemes' fold that its
    commit queues (run here at once: a test's transaction never commits)."""
    withdrawn = session_withdraw(version=version)
    schemes_catch_up()
    return withdrawn
