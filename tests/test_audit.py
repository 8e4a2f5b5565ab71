"""The audit log (issue 10): who did what, append-only, visible to staff."""

import datetime as dt

import pytest
from django.db import DatabaseError, transaction
from django.urls import reverse
from django.utils import timezone

from clubs.services import exemption_decide, exemption_request_create, planned_session_create
from grading.ledger.replay.check import ledger_refold
from grading.models import AuditEvent, SessionVersion
from grading.uploads.services import session_withdraw, upload_create
from members.services import member_get_or_create, member_privacy_set
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import ClubFactory, ClubRoleFactory, UserFactory


@pytest.fixture
def club(db):
    return ClubFactory(slug="riverside", national_number="")


def actions() -> list[tuple[str, str, str]]:
    return [(e.action, e.actor, e.club) for e in AuditEvent.objects.order_by("pk")]


def test_uploads_corrections_and_withdrawals_are_recorded(club, django_capture_on_commit_callbacks):
    admin = UserFactory(username="scorer")
    with django_capture_on_commit_callbacks(execute=True):
        upload_create(club=club, user=admin, filename="a.csv", data=csv_bytes(mp_session_rows()))
        upload_create(
            club=club,
            user=admin,
            filename="b.csv",
            data=csv_bytes(mp_session_rows(scores=[50] * 8)),
        )
        upload_create(club=club, user=admin, filename="bad.csv", data=b"event_id,x\n1,2\n")
    session_withdraw(version=SessionVersion.objects.get(state="graded"), user=admin)
    assert actions() == [
        ("upload", "scorer", "riverside"),
        ("upload", "scorer", "riverside"),
        ("correction", "scorer", "riverside"),
        ("upload", "scorer", "riverside"),
        ("withdrawal", "scorer", "riverside"),
    ]
    refused = AuditEvent.objects.filter(action="upload").order_by("pk").last()
    assert refused.details["status"] == "refused" and refused.subject == "bad.csv"


def test_exemption_decisions_privacy_and_refolds_are_recorded(club):
    host, _ = member_get_or_create(number="1001", name="Host")
    partner, _ = member_get_or_create(number="1002", name="Partner")
    ClubRoleFactory(club=club, member=host)
    planned = planned_session_create(
        club=club,
        event_name="Mon",
        date=timezone.localdate() + dt.timedelta(days=3),
        start=dt.time(19, 30),
    )
    request = exemption_request_create(
        member=host, partner=partner, planned_session=planned, now=timezone.now()
    )
    admin = UserFactory(username="organiser")
    exemption_decide(request=request, approve=True, user=admin, now=timezone.now())
    host.user = UserFactory(username="host-login")
    member_privacy_set(member=host, private=True)
    member_privacy_set(member=host, private=True)  # no change: nothing recorded
    ledger_refold()
    assert actions() == [
        ("exemption", "organiser", "riverside"),
        ("privacy", "host-login", ""),
        ("refold", "", ""),
    ]


@pytest.mark.django_db
def test_audit_events_cannot_be_changed_or_deleted(postgres):
    event = AuditEvent.objects.create(action="upload", subject="a.csv")
    for change in (
        lambda: AuditEvent.objects.filter(pk=event.pk).update(subject="forged"),
        lambda: AuditEvent.objects.filter(pk=event.pk).delete(),
    ):
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            change()
    assert AuditEvent.objects.get(pk=event.pk).subject == "a.csv"


@pytest.mark.django_db
def test_staff_read_the_log_others_cannot(client, django_user_model):
    AuditEvent.objects.create(action="upload", subject="a.csv", actor="scorer")
    changelist = reverse("admin:grading_auditevent_changelist")
    client.force_login(UserFactory(username="member-only"))
    assert client.get(changelist).status_code == 302
    staff = django_user_model.objects.create_user("staffer", is_staff=True, is_superuser=True)
    client.force_login(staff)
    response = client.get(changelist)
    assert response.status_code == 200 and "a.csv" in response.content.decode()
    event = AuditEvent.objects.get()
    assert (
        client.post(reverse("admin:grading_auditevent_delete", args=[event.pk])).status_code == 403
    )
