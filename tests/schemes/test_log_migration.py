"""Migration 0006 builds the schemes' log of an existing database (S14.17): the ledger copied
with the same numbers (every stored PPI figure still points at its event), then the live
versions stored not graded; PPI catches up with a replay at the next step."""

import importlib

from django.apps import apps

from grading.models import PPIRating, SchemeHead, SessionVersion
from grading.models.schemes import SchemeEntry
from grading.schemes.ppi import ppi_check
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.schemes.test_not_graded import TOO_FEW_KNOWN

migration = importlib.import_module("grading.migrations.0006_schemes_log")


def log() -> list[tuple]:
    return list(SchemeEntry.objects.order_by("seq").values_list("seq", "operation", "version_id"))


def test_the_log_of_an_existing_database(upload):
    upload(csv_bytes(mp_session_rows(event_id="MON", date="2026-11-02")))
    upload(csv_bytes(mp_session_rows(event_id="MON", date="2026-11-02", scores=[50] * 8)))
    upload(csv_bytes(mp_session_rows(event_id="TUE", date="2026-11-03", numbers=TOO_FEW_KNOWN)))
    online = log()
    graded = [row for row in online if row[2] != SessionVersion.objects.get(state="not_graded").pk]

    # As before the log existed: the ledger only, and PPI folded from it.
    SchemeEntry.objects.all().delete()
    migration.log_from_ledger(apps, None)
    copied = log()
    assert copied[:-1] == graded  # the ledger, number for number
    not_graded = SessionVersion.objects.get(state="not_graded")
    assert copied[-1] == (graded[-1][0] + 1, "process", not_graded.pk)

    # The next step finds PPI behind the log and replays it: the session the NGS did not
    # grade is rated, and every stored figure is the fold of the log.
    SchemeHead.objects.update(ppi_seq=graded[-1][0])
    upload(csv_bytes(mp_session_rows(event_id="WED", date="2026-11-04")))
    assert ppi_check() == []
    assert PPIRating.objects.get(member__national_number="1001").boards == 24 + 14 + 24
