"""Hostile files through the upload service (issue 10, S12): every mutated sample is either
stored whole or refused with located problems, and a refused file stores nothing but its own
refused Upload row (and the audit line saying so). The parser-level fuzz test is
tests/ingest/test_fuzz.py; this one adds the database and the all-or-nothing transaction."""

from django.apps import apps
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis.extra.django import TestCase

from grading.models import AuditEvent, SessionVersion, Upload
from grading.uploads.services import upload_create
from tests.factories import ClubFactory
from tests.ingest.test_fuzz import mutated

# Everything an upload may create; a refusal may create only its Upload and its audit line.
WATCHED = [
    m
    for m in apps.get_models()
    if m._meta.app_label in {"grading", "members", "clubs"} and m not in {Upload, AuditEvent}
]


def row_counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in WATCHED}


class UploadFuzz(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.club = ClubFactory(slug="fuzz")

    @settings(
        max_examples=60,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(mutated())
    def test_a_mutated_file_is_stored_whole_or_refused_leaving_nothing(self, data):
        with transaction.atomic():
            before = row_counts()
            upload = upload_create(club=self.club, filename="fuzz", data=data, check_club=False)
            if upload.status == Upload.Status.REFUSED:
                assert upload.problems, "a refusal says where and what"
                assert all(p["message"] for p in upload.problems)
                assert row_counts() == before, "a refused file stored something"
                assert upload.content in (b"", None)
            else:
                assert upload.status in (Upload.Status.STORED, Upload.Status.GRADED)
                sessions = upload.summary["sessions"]
                assert sessions, "a stored file has at least one session"
                assert SessionVersion.objects.filter(upload=upload).count() == sum(
                    1 for s in sessions if s.get("outcome") != "unchanged"
                )
            transaction.set_rollback(True)


def test_a_file_name_with_control_characters_is_stored_printable(db):
    club = ClubFactory(slug="names")
    upload = upload_create(club=club, filename="mon\x00day\r\n.csv", data=b"not results")
    assert upload.filename == "monday.csv"
    assert upload.status == Upload.Status.REFUSED
