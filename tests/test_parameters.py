"""Changing the NGS parameter set and replaying the ledger (S9, S9.1, S13: staff only; issue 10:
parameter changes in the audit log)."""

import dataclasses

import pytest
from django.contrib.messages import get_messages
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from grading.engine.ngs import PARAMETER_SETS
from grading.engine.ngs.params import NGSParams
from grading.ledger.replay.check import ledger_check
from grading.ledger.subjects import tables_marked
from grading.models import AuditEvent, LedgerHead, SessionGrade, SessionVersion
from grading.staff.selectors import FIELD_LABELS, SET_DESCRIPTIONS
from grading.staff.services import ledger_refold_request, parameters_change
from grading.tasks import refold_ledger
from grading.uploads.services import upload_create
from tests.csvfiles import butler_session_rows, csv_bytes, mp_session_rows
from tests.factories import ClubFactory, UserFactory

PAGE = "/staff/parameters/"
REPLAY = "/staff/parameters/replay/"


@pytest.fixture
def club(db):
    return ClubFactory(slug="riverside", national_number="")


@pytest.fixture
def staff(db):
    return UserFactory(username="grader", is_staff=True)


@pytest.fixture
def upload(club, django_capture_on_commit_callbacks):
    def send(data: bytes) -> SessionVersion:
        with django_capture_on_commit_callbacks(execute=True):
            upload_create(club=club, filename="results.csv", data=data)
        return SessionVersion.objects.order_by("pk").last()

    return send


def butler(**kwargs) -> bytes:
    """A Butler-IMP session: its score term is F_butler x IMPs / boards (S3.3), so it grades
    differently under fr18-factors (5.10) than under ngs-15a (5.4)."""
    return csv_bytes(butler_session_rows(**kwargs))


def grades(version: SessionVersion) -> dict[str, float]:
    rows = SessionGrade.objects.filter(version=version).select_related("member")
    return {row.member.national_number: row.session_grade for row in rows}


def all_grades() -> list[tuple]:
    return sorted(
        SessionGrade.objects.values_list(
            "version_id", "member_id", "grade_before", "session_grade", "grade_after"
        )
    )


def head() -> LedgerHead:
    return LedgerHead.objects.get()


# ---- the service ------------------------------------------------------------------------------


def test_a_change_is_audited_and_every_grade_refolded_with_the_new_set(
    upload, staff, django_capture_on_commit_callbacks
):
    first = upload(butler())
    second = upload(csv_bytes(mp_session_rows(event_id="TUE", date="2026-11-17")))
    before_first, before_second = grades(first), grades(second)
    assert head().params_name == "ngs-15a"
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        parameters_change(params_name="fr18-factors", user=staff, reason="FR 18's estimates")
    assert len(callbacks) == 1
    assert head().params_name == "fr18-factors"
    change, refold = AuditEvent.objects.order_by("pk").filter(action__in=["parameters", "refold"])
    assert (change.action, change.actor, change.details) == (
        "parameters",
        "grader",
        {"from": "ngs-15a", "to": "fr18-factors", "reason": "FR 18's estimates"},
    )
    assert (refold.action, refold.details["params"]) == ("refold", "fr18-factors")
    after_first = grades(first)
    # Butler: 5.10 instead of 5.4 per IMP per board: every session grade but the pair on 0
    # IMPs (players 1007 and 1008) moves toward the field.
    assert after_first.keys() == before_first.keys()
    moved = {n for n in before_first if after_first[n] != pytest.approx(before_first[n])}
    assert moved == set(before_first) - {"1007", "1008"}
    top = "1001"  # +30 IMPs in 24 boards, starting at 42 like everyone
    assert after_first[top] == pytest.approx(42 + 2 * (5.10 * 30 / 24 + 42 - 42))
    assert before_first[top] == pytest.approx(42 + 2 * (5.4 * 30 / 24))
    # The match-pointed session's score terms are the same, but its players started from
    # different grades, so its grades were recomputed too.
    assert grades(second) != pytest.approx(before_second)
    assert ledger_check() == []


def test_after_a_change_every_worker_grades_with_the_new_set(
    upload, staff, django_capture_on_commit_callbacks
):
    """The subject tables a grading step reads are the fold of the ledger with one set
    (``LedgerTables``). Even while the refold has not run, the next operation
    grades with the head's set: it first refills the tables by folding the ledger with it
    (grading/ledger/subjects.py), so its figures are the ones a fold of the whole ledger with
    the new set gives; after a change back, the same, with the old set."""

    def tables():
        seq, params = tables_marked()
        return params, seq

    upload(butler())
    assert tables() == ("ngs-15a", 1)
    with django_capture_on_commit_callbacks(execute=False) as queued:
        parameters_change(params_name="fr18-factors", user=staff, reason="try FR 18")
    assert len(queued) == 1  # the refold, not run: the old grades are still stored
    assert tables() == ("ngs-15a", 1)
    during = upload(butler(event_id="TUE", date="2026-11-17"))
    assert tables() == ("fr18-factors", 2)
    problems = ledger_check()
    assert problems and not any(f"version {during.pk} " in p for p in problems)  # graded by fr18
    with django_capture_on_commit_callbacks(execute=False):
        parameters_change(params_name="ngs-15a", user=staff, reason="back")
    back = upload(butler(event_id="WED", date="2026-11-18"))
    assert tables() == ("ngs-15a", 3)
    # Graded from tables refilled with 15a, the fr18-era entry folded with 15a: the same
    # figures a fold of the whole ledger with 15a gives, while the fr18-era session (graded
    # with fr18) is the only one ledger_check finds different.
    problems = ledger_check()
    assert not any(f"version {back.pk} " in p for p in problems)
    assert any(f"version {during.pk} " in p for p in problems)
    refold_ledger()
    assert ledger_check() == []
    assert tables() == ("ngs-15a", 3)


def test_refolding_twice_gives_the_same_grades(upload, staff):
    upload(butler())
    upload(csv_bytes(mp_session_rows(event_id="TUE", date="2026-11-17")))
    LedgerHead.objects.update(params_name="ngs-2018")
    assert refold_ledger() == 2
    once = all_grades()
    assert refold_ledger() == 2
    assert all_grades() == once
    assert ledger_check() == []


@pytest.mark.parametrize(
    ("name", "reason", "message"),
    [
        ("ngs-1999", "why not", "not a named NGS parameter set"),
        ("", "why not", "not a named NGS parameter set"),
        ("ngs-2018", "", "Give a reason"),
        ("ngs-2018", "   ", "Give a reason"),
        ("ngs-2018", "x" * 501, "under 500 characters"),
        ("ngs-15a", "again", "already the active parameter set"),
    ],
)
def test_a_bad_change_is_refused_and_changes_nothing(
    upload, staff, django_capture_on_commit_callbacks, name, reason, message
):
    upload(butler())
    stored = all_grades()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(ValueError, match=message):
            parameters_change(params_name=name, user=staff, reason=reason)
    assert callbacks == []
    assert head().params_name == "ngs-15a"
    assert not AuditEvent.objects.filter(action__in=["parameters", "refold"]).exists()
    assert all_grades() == stored


def test_only_staff_may_change_or_replay(db, member_user, club_admin):
    for user in (member_user[0], club_admin[0]):
        with pytest.raises(PermissionDenied):
            parameters_change(params_name="ngs-2018", user=user, reason="mine")
        with pytest.raises(PermissionDenied):
            ledger_refold_request(user=user)
    assert not AuditEvent.objects.filter(action="parameters").exists()


def test_a_set_that_would_not_grade_a_processed_session_is_refused(
    upload, staff, django_capture_on_commit_callbacks
):
    """13 known players of 16 (S9.1, ngs-2018) but 5 known pairs of 8 (S3.8): graded under
    ngs-2018 only. Folding the ledger with ngs-15a would leave it out, and a later correction
    would withdraw a version the fold never made live."""
    with django_capture_on_commit_callbacks(execute=True):
        parameters_change(params_name="ngs-2018", user=staff, reason="2018 rules")
    numbers = [(str(3001 + 2 * i), str(3002 + 2 * i)) for i in range(5)]
    numbers += [("3101", "0"), ("3102", "0"), ("3103", "0")]
    version = upload(csv_bytes(mp_session_rows(numbers=numbers)))
    assert version.state == SessionVersion.State.GRADED
    for name in ("ngs-15a", "fr18-factors"):
        with pytest.raises(ValueError, match=f"would not grade 1 session version.*{version.pk}"):
            parameters_change(params_name=name, user=staff, reason="back")
    assert head().params_name == "ngs-2018"
    assert ledger_check() == []


def test_a_replay_request_refolds_with_the_active_set(
    upload, staff, django_capture_on_commit_callbacks
):
    upload(butler())
    SessionGrade.objects.filter(entry__isnull=False).update(session_grade=1.0)  # damage
    assert ledger_check() != []
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        ledger_refold_request(user=staff)
    assert len(callbacks) == 1
    assert ledger_check() == []
    [refold] = AuditEvent.objects.filter(action="refold")
    assert refold.actor == staff.get_username()  # who asked, not "the system"
    assert head().params_name == "ngs-15a"


# ---- the page ---------------------------------------------------------------------------------


def test_staff_see_every_set_side_by_side(client, staff, upload):
    upload(butler())
    client.force_login(staff)
    response = client.get(PAGE)
    assert response.status_code == 200
    body = response.content.decode()
    assert 'data-testid="active-name">ngs-15a<' in body
    for name, description in SET_DESCRIPTIONS.items():
        assert name in PARAMETER_SETS and description in body.replace("&#x27;", "'")
    fields = [f.name for f in dataclasses.fields(NGSParams) if f.name != "name"]
    assert set(FIELD_LABELS) == set(fields)
    rows = {row["field"]: row for row in response.context["rows"]}
    assert list(rows) == fields
    for field in fields:
        assert f'data-field="{field}"' in body
    # fr18-factors differs from the active ngs-15a in its three IMP factors, ngs-2018 in its
    # two S9.1 rules; the active column never differs from itself.
    differs = {
        name: {f for f, row in rows.items() if row["cells"][i]["differs"]}
        for i, name in enumerate(PARAMETER_SETS)
    }
    assert differs == {
        "ngs-15a": set(),
        "ngs-2018": {"known_by_players", "new_partner_min_boards"},
        "fr18-factors": {"f_butler", "f_cross", "f_swiss_imp"},
    }
    assert body.count('class="set-col differs"') == 5
    assert 'class="nav-links"' in body and f'href="{PAGE}"' in body  # the staff navigation


def test_staff_change_the_set_from_the_page(
    client, staff, upload, django_capture_on_commit_callbacks
):
    upload(butler())
    client.force_login(staff)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(PAGE, {"params": "fr18-factors", "reason": "FR 18 factors"})
    assert response.status_code == 302 and response.url == PAGE
    assert head().params_name == "fr18-factors"
    assert ledger_check() == []
    page = client.get(PAGE)
    messages = [str(m) for m in get_messages(page.wsgi_request)] or page.content.decode()
    assert "being recomputed" in "".join(messages)
    body = page.content.decode()
    assert 'data-testid="active-name">fr18-factors<' in body
    history = page.context["history"]
    assert [(e["kind"], e["who"], e["from"], e["to"]) for e in history] == [
        ("refold", "grader", "", "fr18-factors"),  # the refold the change asked for: by them
        ("change", "grader", "ngs-15a", "fr18-factors"),
    ]
    assert "FR 18 factors" in body and not page.context["refold_pending"]


def test_the_page_shows_a_refold_not_yet_run(
    client, staff, upload, django_capture_on_commit_callbacks
):
    upload(butler())
    client.force_login(staff)
    with django_capture_on_commit_callbacks(execute=False):
        client.post(PAGE, {"params": "ngs-2018", "reason": "S9.1"})
    response = client.get(PAGE)
    assert response.context["refold_pending"]
    assert 'data-testid="refold-pending"' in response.content.decode()


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ({"params": "ngs-1999", "reason": "x"}, "Select a valid choice"),
        ({"params": "ngs-2018", "reason": ""}, "This field is required"),
        ({"params": "ngs-15a", "reason": "again"}, "already the active parameter set"),
    ],
)
def test_a_bad_form_is_shown_again_and_changes_nothing(
    client, staff, upload, django_capture_on_commit_callbacks, data, error
):
    upload(butler())
    client.force_login(staff)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client.post(PAGE, data)
    assert response.status_code == 200 and error in response.content.decode()
    assert callbacks == [] and head().params_name == "ngs-15a"
    assert not AuditEvent.objects.filter(action="parameters").exists()


def test_staff_replay_the_ledger_from_the_page(
    client, staff, upload, django_capture_on_commit_callbacks
):
    upload(butler())
    client.force_login(staff)
    assert client.get(REPLAY).status_code == 405
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(REPLAY)
    assert response.status_code == 302 and response.url == PAGE
    assert AuditEvent.objects.filter(action="refold").count() == 1
    page = client.get(PAGE)
    assert [e["kind"] for e in page.context["history"]] == ["refold"]
    assert "being replayed" in page.content.decode()


@pytest.mark.parametrize("who", ["anonymous", "member", "club_admin"])
def test_others_cannot_see_or_post(
    client, who, member_user, club_admin, upload, django_capture_on_commit_callbacks
):
    upload(butler())
    if who != "anonymous":
        client.force_login({"member": member_user, "club_admin": club_admin}[who][0])
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        responses = [
            client.get(PAGE),
            client.post(PAGE, {"params": "ngs-2018", "reason": "mine now"}),
            client.post(REPLAY),
        ]
    for response in responses:  # the product's login page, or its "not allowed" page (S15)
        assert response.status_code == (302 if who == "anonymous" else 403)
        if response.status_code == 302:
            assert response.url.startswith(reverse("login"))
    assert callbacks == [] and head().params_name == "ngs-15a"
    assert not AuditEvent.objects.filter(action__in=["parameters", "refold"]).exists()
    assert f'href="{PAGE}"' not in client.get("/").content.decode()


def test_the_page_makes_a_fixed_number_of_queries(
    client, staff, upload, django_capture_on_commit_callbacks, django_assert_max_num_queries
):
    upload(butler())
    for name in ("ngs-2018", "fr18-factors", "ngs-15a"):
        with django_capture_on_commit_callbacks(execute=True):
            parameters_change(params_name=name, user=staff, reason=f"to {name}")
    client.force_login(staff)
    client.get(PAGE)
    # session, user, the navigation (member, clubs administered), ledger head, audit log
    with django_assert_max_num_queries(6):
        response = client.get(PAGE)
    assert len(response.context["history"]) == 6
