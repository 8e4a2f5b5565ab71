"""The results pipeline on the database (issue 5; S5.2-S5.4, S12, S14.9)."""

import datetime as dt

import pytest

from grading.ledger.replay.check import ledger_check, ledger_refold
from grading.models import (
    CurrentGrade,
    Event,
    LedgerEntry,
    PartnershipGrade,
    SessionGrade,
    SessionVersion,
    Upload,
)
from grading.uploads.services import session_withdraw, upload_create
from members.models import Member
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import ClubFactory


@pytest.fixture
def club(db):
    return ClubFactory(slug="riverside", national_number="1101")


@pytest.fixture
def upload(club, django_capture_on_commit_callbacks):
    """Upload bytes as a club admin would; grading runs when the transaction commits."""

    def send(data: bytes, name: str = "results.csv", target=None) -> Upload:
        with django_capture_on_commit_callbacks(execute=True):
            result = upload_create(club=target or club, filename=name, data=data)
        result.refresh_from_db()
        return result

    return send


def test_a_session_is_stored_and_graded(upload):
    result = upload(csv_bytes(mp_session_rows()))

    assert result.status == Upload.Status.GRADED
    assert result.summary["sessions"][0]["outcome"] == "new"
    version = SessionVersion.objects.get()
    assert version.state == SessionVersion.State.GRADED
    assert LedgerEntry.objects.get().operation == "process"
    assert SessionGrade.objects.filter(session_grade__isnull=False).count() == 16
    # Everyone new starts at 42 (S5.1): SoF 42, par 50%, so pair 1's 62.5% is +12.5 excess.
    top = SessionGrade.objects.get(member__national_number="1001")
    assert top.grade_before == 42 and top.sopp == pytest.approx(42)
    assert top.excess == pytest.approx(12.5)
    assert top.session_grade == pytest.approx(42 + 2 * 12.5)
    assert CurrentGrade.objects.count() == 16
    assert CurrentGrade.objects.get(member__national_number="1001").status == "P"
    assert PartnershipGrade.objects.count() == 8
    assert ledger_check() == []


def test_players_become_club_members_once_and_admins_stay_admins(club, upload):
    """docs/decisions.md: playing in a club's session lists the player among its members."""
    from clubs.models import ClubRole
    from members.services import member_get_or_create

    admin, _ = member_get_or_create(number="1001", name="Player 1001")
    ClubRole.objects.create(club=club, member=admin, role=ClubRole.Role.ADMIN)
    upload(csv_bytes(mp_session_rows()))
    upload(csv_bytes(mp_session_rows(event_id="TUE", date="2026-11-17")))
    assert ClubRole.objects.filter(club=club).count() == 16
    assert ClubRole.objects.get(club=club, member=admin).role == ClubRole.Role.ADMIN


def test_no_drift_in_a_one_winner_session(upload):
    """S3.4 / issue 4: with only known players, session grades minus grades sum to zero."""
    upload(csv_bytes(mp_session_rows(scores=[60, 58, 51, 50, 49, 47, 45, 40])))
    total = sum(g.session_grade - g.grade_before for g in SessionGrade.objects.all())
    assert total == pytest.approx(0, abs=1e-9)


def test_duplicate_file_is_recognised_and_not_graded_twice(upload):
    data = csv_bytes(mp_session_rows())
    first = upload(data)
    second = upload(data)
    assert second.status == Upload.Status.DUPLICATE
    assert second.duplicate_of == first
    assert LedgerEntry.objects.count() == 1
    assert SessionVersion.objects.count() == 1


def test_resending_the_same_content_in_a_new_file_is_unchanged(upload):
    """S14.9: content equal to the live version changes nothing."""
    upload(csv_bytes(mp_session_rows()))
    again = upload(csv_bytes(mp_session_rows()) + b"\n")
    assert again.summary["sessions"][0]["outcome"] == "unchanged"
    assert SessionVersion.objects.count() == 1
    assert LedgerEntry.objects.count() == 1


def test_a_correction_withdraws_the_old_version_and_grades_the_new(upload):
    """S5.3: same club, event, session number and date makes a new version."""
    upload(csv_bytes(mp_session_rows()))
    corrected = upload(csv_bytes(mp_session_rows(scores=[45, 55, 52.5, 50, 47.5, 45, 44, 61])))

    assert corrected.summary["sessions"][0]["outcome"] == "correction"
    old, new = SessionVersion.objects.order_by("number")
    assert (old.state, new.state) == ("withdrawn", "graded")
    assert [e.operation for e in LedgerEntry.objects.all()] == ["process", "withdraw", "process"]
    assert not SessionGrade.objects.filter(version=old, live=True).exists()
    assert SessionGrade.objects.filter(version=new, live=True).count() == 16
    assert new.session.live_version == new
    top = CurrentGrade.objects.get(member__national_number="1001")
    # Only the corrected session counts: 45% is 5 below par.
    assert SessionGrade.objects.get(version=new, member__national_number="1001").excess == (
        pytest.approx(-5)
    )
    assert top.grade < 42
    assert ledger_check() == []


def test_late_upload_takes_its_place_by_date_and_replay_reproduces_everything(upload):
    upload(csv_bytes(mp_session_rows(event_id="MON", date="2026-11-16")))
    upload(
        csv_bytes(
            mp_session_rows(
                event_id="WED", date="2026-11-18", scores=[40, 45, 50, 55, 60, 52, 48, 50]
            )
        )
    )
    late = upload(csv_bytes(mp_session_rows(event_id="TUE", date="2026-11-10")))
    version = SessionVersion.objects.get(session__event__event_id="TUE")
    assert version.late
    assert late.status == Upload.Status.GRADED
    upload(csv_bytes(mp_session_rows(event_id="MON", date="2026-11-16", scores=[50] * 8)))
    assert ledger_check() == []
    before = {g.member_id: g.grade for g in CurrentGrade.objects.all()}
    assert ledger_refold() == LedgerEntry.objects.count()
    after = {g.member_id: g.grade for g in CurrentGrade.objects.all()}
    assert after == pytest.approx(before, abs=1e-9)
    assert ledger_check() == []


def test_ledger_check_finds_a_tampered_grade(upload):
    upload(csv_bytes(mp_session_rows()))
    SessionGrade.objects.filter(member__national_number="1003").update(session_grade=99.0)
    CurrentGrade.objects.filter(member__national_number="1005").update(grade=12.0)
    problems = ledger_check()
    assert any("member 1003: session_grade stored 99.0" in p for p in problems)
    assert any(p.startswith("member 1005: stored 12.0") for p in problems)


def test_ledger_check_finds_a_tampered_and_an_invented_partnership_grade(upload):
    """S5.4: every stored partnership grade is the fold's (compared a chunk at a time)."""
    upload(csv_bytes(mp_session_rows()))
    tampered = PartnershipGrade.objects.order_by("pk").first()
    assert tampered is not None
    PartnershipGrade.objects.filter(pk=tampered.pk).update(grade=77.0)
    pairs = set(PartnershipGrade.objects.values_list("member_a_id", "member_b_id"))
    a, b = next(
        (x, y)
        for x in Member.objects.order_by("pk").values_list("pk", flat=True)
        for y in Member.objects.order_by("pk").values_list("pk", flat=True)
        if x < y and (x, y) not in pairs and (y, x) not in pairs
    )
    PartnershipGrade.objects.create(
        member_a_id=a, member_b_id=b, grade=50.0, first_value=50.0, as_of=tampered.as_of
    )
    problems = ledger_check()
    key_a, key_b = (tampered.member_a.national_number, tampered.member_b.national_number)
    assert any(
        p.startswith("partnership ") and key_a in p and key_b in p and "stored 77.0" in p
        for p in problems
    )
    assert sum("stored but never graded" in p for p in problems) == 1
    assert len(problems) == 2


def test_invalid_file_is_refused_and_nothing_is_stored(upload):
    rows = mp_session_rows()
    rows[3]["score"] = "lots"
    rows[5]["date"] = "16/11/2026x"
    result = upload(csv_bytes(rows))
    assert result.status == Upload.Status.REFUSED
    assert len(result.problems) >= 2
    assert all(p["location"] and p["message"] for p in result.problems)
    assert not Member.objects.exists()
    assert not Event.objects.exists()
    assert not LedgerEntry.objects.exists()


def test_file_over_the_limit_is_refused_unread(upload, settings):
    settings.UPLOAD_MAX_BYTES = 1000
    result = upload(b"x" * 1001)
    assert result.status == Upload.Status.REFUSED
    assert "limited to" in result.problems[0]["message"]
    assert not Event.objects.exists()


def test_not_enough_known_pairs_is_stored_not_graded(upload):
    """S3.8 / S14.3: 6 known pairs of 9 is not more than 2/3."""
    numbers = [(str(2001 + 2 * i), str(2002 + 2 * i)) for i in range(6)] + [("", "")] * 3
    scores = [55, 54, 53, 52, 51, 50, 45, 40, 50]
    result = upload(csv_bytes(mp_session_rows(scores=scores, numbers=numbers)))
    version = SessionVersion.objects.get()
    assert version.state == SessionVersion.State.NOT_GRADED
    assert "2/3" in version.not_graded_reason
    assert not LedgerEntry.objects.exists()
    assert SessionGrade.objects.filter(reason__contains="2/3").count() == 12
    assert result.status == Upload.Status.GRADED


def test_a_host_pair_with_a_visitor_counts_as_known(upload):
    """S14.3: a host pair counts as known. Pairs 1-4 known, pair 5 the host (RATEABLE N) with a
    visitor, pair 6 visitors: 5 of 6 known, graded; the version records 5 known pairs."""
    numbers = [(str(2001 + 2 * i), str(2002 + 2 * i)) for i in range(4)] + [("2101", ""), ("", "")]
    upload(
        csv_bytes(
            mp_session_rows(scores=[55, 54, 53, 52, 51, 35], numbers=numbers, rateable={5: "N"})
        )
    )
    version = SessionVersion.objects.get()
    assert version.state == SessionVersion.State.GRADED, version.not_graded_reason
    assert (version.known_pairs, version.total_pairs) == (5, 6)
    host = SessionGrade.objects.get(member__national_number="2101")
    assert host.session_grade is None  # (its reason: the partner is unknown)


def test_name_mismatch_is_a_warning(upload):
    upload(csv_bytes(mp_session_rows()))
    rows = mp_session_rows(event_id="TUE", date="2026-11-17")
    rows[0]["player1_name"] = "Somebody Else"
    result = upload(csv_bytes(rows))
    (warning,) = [w for w in result.warnings if "Somebody Else" in w["message"]]
    assert warning["location"] == "TUE Pairs, 17 Nov 2026, pair 1"  # S12: says where
    assert Member.objects.get(national_number="1001").name == "Player 1001"


def test_a_refold_keeps_replaced_and_withdrawn_versions_so(upload):
    """S5.3/S5.4: a refold recomputes grades; it does not bring back a version that a
    correction replaced or a withdrawal took out (it did: they showed as graded, with a
    Withdraw button that failed, and the withdrawn session's re-upload was 'unchanged')."""
    upload(csv_bytes(mp_session_rows()))
    upload(csv_bytes(mp_session_rows(scores=[40, 55, 52.5, 50, 47.5, 45, 44, 66])))
    upload(csv_bytes(mp_session_rows(event_id="TUE", date="2026-11-17")))
    session_withdraw(version=SessionVersion.objects.get(session__event__event_id="TUE"))
    before = dict(SessionVersion.objects.values_list("pk", "state"))
    assert sorted(before.values()) == ["graded", "withdrawn", "withdrawn"]
    ledger_refold()
    assert dict(SessionVersion.objects.values_list("pk", "state")) == before
    assert ledger_check() == []


def test_a_version_whose_grading_fails_is_set_aside_and_holds_up_no_one(upload, monkeypatch):
    """Found by review: a version whose grading raised stayed stored, and grading keeps the
    stored order, so every later upload at every club waited behind it for ever. It is now
    not graded, its upload failed (said on the page), and the next upload is graded."""
    import grading.ledger.step

    real = grading.ledger.step.version_grade

    def broken_for_mon(*, head, version):
        if version.session.event.event_id == "MON":
            raise ValueError("a bug in the product")
        return real(head=head, version=version)

    monkeypatch.setattr(grading.ledger.step, "version_grade", broken_for_mon)
    failed = upload(csv_bytes(mp_session_rows()))
    assert failed.status == Upload.Status.FAILED
    from django.template.loader import render_to_string

    page = render_to_string(
        "grading/partials/upload_status.html", {"upload": failed, "club": failed.club}
    )
    assert "Grading failed</strong> for this file" in page and "hx-get" not in page
    version = SessionVersion.objects.get()
    assert version.state == SessionVersion.State.NOT_GRADED
    assert "error in the product" in version.not_graded_reason
    assert not LedgerEntry.objects.exists()
    other = upload(
        csv_bytes(mp_session_rows(event_id="TUE", date="2026-11-17")),
        target=ClubFactory(slug="hilltop"),
    )
    assert other.status == Upload.Status.GRADED
    monkeypatch.setattr(grading.ledger.step, "version_grade", real)
    again = upload(csv_bytes(mp_session_rows()), name="again.csv")  # not a duplicate
    assert again.status == Upload.Status.GRADED
    assert LedgerEntry.objects.count() == 2  # TUE, and MON at last
    assert ledger_check() == []


def test_a_database_that_goes_away_leaves_the_version_stored_for_the_sweep(upload, monkeypatch):
    from django.db import OperationalError

    import grading.ledger.step

    def unreachable(*, head, version):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(grading.ledger.step, "version_grade", unreachable)
    result = upload(csv_bytes(mp_session_rows()))
    assert result.status == Upload.Status.STORED
    assert SessionVersion.objects.get().state == SessionVersion.State.STORED


def test_a_date_of_play_in_the_future_is_refused(upload):
    """Found by review: a session typed as 2036 was graded, started every player's window ten
    years on, and its withdrawal could not undo the grades as of it (S5.2)."""
    from django.utils import timezone

    next_week = timezone.localdate() + dt.timedelta(days=7)
    result = upload(csv_bytes(mp_session_rows(date=next_week.isoformat())))
    assert result.status == Upload.Status.REFUSED
    (problem,) = result.problems
    assert problem["location"] == f"MON Pairs, {next_week:%-d %b %Y}"
    assert "after today" in problem["message"]
    assert not SessionVersion.objects.exists()
    tomorrow = timezone.localdate() + dt.timedelta(days=1)  # a day's grace for time zones
    assert upload(csv_bytes(mp_session_rows(date=tomorrow.isoformat()))).status == "graded"


def test_a_correction_that_drops_a_player_leaves_them_no_grade(upload):
    """Found by review: a correction replacing player 1016 (their only session) left them a
    provisional 42.00 grade from 0 boards, and a partnership of 0 boards with 1015."""
    upload(csv_bytes(mp_session_rows()))
    numbers = [(str(1001 + 2 * i), str(1002 + 2 * i)) for i in range(7)] + [("1015", "3001")]
    upload(csv_bytes(mp_session_rows(numbers=numbers)))
    assert not CurrentGrade.objects.filter(member__national_number="1016").exists()
    assert CurrentGrade.objects.filter(member__national_number="3001").exists()
    assert not PartnershipGrade.objects.filter(member_b__national_number="1016").exists()
    assert not PartnershipGrade.objects.filter(member_a__national_number="1016").exists()
    assert ledger_check() == []


def test_an_upload_whose_session_is_not_graded_does_not_say_graded(upload, client):
    """Found by review: a correction with too few known pairs said "Graded." above "not
    graded"; S14.9: the old version is withdrawn and nothing replaces it."""
    from django.template.loader import render_to_string

    from grading.uploads.selectors import upload_progress

    upload(csv_bytes(mp_session_rows()))
    numbers = [(str(1001 + 2 * i), str(1002 + 2 * i)) for i in range(5)] + [("", "")] * 3
    corrected = upload(csv_bytes(mp_session_rows(numbers=numbers)))
    page = render_to_string(
        "grading/partials/upload_status.html",
        {
            "upload": corrected,
            "club": corrected.club,
            "progress": upload_progress(upload=corrected),
        },
    )
    assert "Stored, not graded" in page and "nothing replaces them" in page
    assert "<strong>Graded" not in page


def test_an_event_without_a_name_is_shown_by_its_identifier(upload):
    """Found by review: a ScoreBridge file without an event name showed a blank heading."""
    rows = mp_session_rows(event_id="WED-0730")
    for row in rows:
        row["event_name"] = ""
    upload(csv_bytes(rows))
    assert Event.objects.get().name == "WED-0730"


def test_a_withdrawn_sessions_identical_file_brings_it_back(upload):
    """S14.9 as amended (issue 19 item 4): an identical file is a duplicate while its session
    is in force; once every version was withdrawn, the same file restores the session."""
    data = csv_bytes(mp_session_rows())
    upload(data, name="a.csv")
    again = upload(data, name="b.csv")
    assert again.status == Upload.Status.DUPLICATE
    assert again.summary["message"].endswith("it is not graded again.")
    assert ".." not in again.summary["message"]
    session_withdraw(version=SessionVersion.objects.get())
    after = upload(data, name="c.csv")
    assert after.status == Upload.Status.GRADED
    (session,) = after.summary["sessions"]
    assert session["outcome"] == "restored" and session["version"] == 2
    assert SessionVersion.objects.get(number=2).state == SessionVersion.State.GRADED
    assert SessionGrade.objects.filter(version__number=2, live=True).count() == 16
    assert ledger_check() == []


def test_a_new_file_for_a_withdrawn_session_is_its_correction(upload):
    upload(csv_bytes(mp_session_rows()))
    session_withdraw(version=SessionVersion.objects.get())
    rows = mp_session_rows()
    rows[0]["score"], rows[1]["score"] = rows[1]["score"], rows[0]["score"]
    result = upload(csv_bytes(rows))
    assert result.summary["sessions"][0]["outcome"] == "correction"
