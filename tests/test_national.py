"""The national database builder (issue 17, grading/lab/national.py) at a small size: what it
writes is the fold of its ledger (replay --check), the subject tables included, and the next
upload is graded from them."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from clubs.models import Club
from grading.lab.national import national_build
from grading.ledger.check import ledger_check
from grading.models import (
    CurrentGrade,
    LedgerEntry,
    LedgerHead,
    PartnershipGrade,
    SessionGrade,
    SessionVersion,
    Upload,
)
from grading.uploads.services import upload_create
from members.models import Member
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.test_worker_warm import tables_problems


@pytest.fixture
def built(db):
    return national_build(players=240, sessions=150, clubs=4, seed=3, log=lambda _: None)


def test_the_built_database_is_the_fold_of_its_ledger(built):
    assert Club.objects.count() == 4
    assert Member.objects.count() == built["members"] > 100
    assert SessionGrade.objects.count() == built["grades"] > 1000
    assert LedgerEntry.objects.count() == built["entries"] == LedgerHead.objects.get().last_seq
    assert SessionVersion.objects.filter(state=SessionVersion.State.WITHDRAWN).exists()
    assert CurrentGrade.objects.exists() and PartnershipGrade.objects.exists()
    assert ledger_check() == []
    assert tables_problems() == []
    call_command("replay", "--check")


def test_the_next_upload_is_graded_from_the_built_tables(built, django_capture_on_commit_callbacks):
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


def test_a_database_with_members_is_refused(built):
    with pytest.raises(RuntimeError, match="empty database"):
        national_build(players=10, sessions=5, clubs=1, log=lambda _: None)
