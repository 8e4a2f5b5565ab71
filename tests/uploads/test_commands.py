"""The operator's commands of issue 5: import_results, replay [--check], grades."""

import datetime as dt
import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from clubs.models import Club
from grading.ledger.refresh import grades_refresh
from grading.ledger.replay.check import ledger_check
from grading.models import CurrentGrade, SessionGrade, SessionVersion, Upload
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import ClubFactory

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.fixture
def csv_path(tmp_path):
    def write(name="mon.csv", **kwargs) -> Path:
        path = tmp_path / name
        path.write_bytes(csv_bytes(mp_session_rows(**kwargs)))
        return path

    return write


@pytest.mark.django_db
def test_import_with_club_and_sync(csv_path):
    ClubFactory(slug="riverside", national_number="1101")
    out = run("import_results", "--club", "riverside", "--sync", str(csv_path()))
    assert "MON Pairs 2026-11-16: new, 8 pairs" in out
    assert SessionVersion.objects.get().state == "graded"


@pytest.mark.django_db
def test_refused_file_exits_non_zero_and_prints_problems(csv_path, tmp_path):
    ClubFactory(slug="riverside")
    bad = tmp_path / "bad.csv"
    bad.write_text("event_id,session\nx,1\n")
    out = StringIO()
    with pytest.raises(CommandError, match="1 file"):
        call_command("import_results", "--club", "riverside", str(bad), stdout=out)
    assert "problem:" in out.getvalue()
    assert not SessionVersion.objects.exists()


@pytest.mark.django_db
def test_bulk_import_finds_or_creates_the_club_from_the_file():
    path = FIXTURES / "usebio" / "ukbridge-club" / "mp-pairs.usebio.xml"
    run("import_results", "--sync", str(path))
    upload = Upload.objects.get()
    assert upload.status == Upload.Status.GRADED
    assert Club.objects.count() == 1
    run("import_results", "--sync", str(path))  # the same file again: the same club, duplicate
    assert Club.objects.count() == 1
    assert Upload.objects.filter(status=Upload.Status.DUPLICATE).count() == 1


@pytest.mark.django_db
def test_replay_check_passes_then_catches_a_difference(csv_path):
    ClubFactory(slug="riverside")
    run("import_results", "--club", "riverside", "--sync", str(csv_path()))
    run(
        "import_results",
        "--club",
        "riverside",
        "--sync",
        str(csv_path("tue.csv", event_id="TUE", date="2026-11-17")),
    )
    assert "every stored grade is reproduced" in run("replay", "--check")
    SessionGrade.objects.filter(member__national_number="1004").update(excess=1.0)
    with pytest.raises(CommandError, match="difference"):
        run("replay", "--check")
    run("replay")  # refold: stored grades recomputed from the ledger
    assert "every stored grade is reproduced" in run("replay", "--check")


@pytest.mark.django_db
def test_grades_command_formats_and_filters(csv_path):
    ClubFactory(slug="riverside")
    run("import_results", "--club", "riverside", "--sync", str(csv_path()))
    rows = json.loads(run("grades", "--format", "json"))
    assert len(rows) == 16
    top = next(r for r in rows if r["number"] == "1001")
    assert top == {
        "number": "1001",
        "name": "Player 1001",
        "grade": pytest.approx(
            CurrentGrade.objects.get(member__national_number="1001").grade, abs=0.005
        ),
        "status": "P",
        "band": top["band"],
        "boards_in_window": 24,
    }
    csv_text = run("grades", "--member", "001001")
    assert csv_text.splitlines()[0] == "number,name,grade,status,band,boards_in_window"
    assert csv_text.splitlines()[1].startswith("1001,Player 1001,")
    later = json.loads(run("grades", "--format", "json", "--as-of", "2030-01-01"))
    assert next(r for r in later if r["number"] == "1001")["grade"] == 50.0  # S14.7 restart


@pytest.mark.django_db
def test_nightly_refresh_moves_grades_with_the_calendar(csv_path):
    """S4, S14.7: with no session in the last 3 years a member shows 50, Provisional here."""
    ClubFactory(slug="riverside")
    run("import_results", "--club", "riverside", "--sync", str(csv_path(date="2022-01-10")))
    assert CurrentGrade.objects.get(member__national_number="1001").grade != 50.0
    grades_refresh(today=dt.date(2026, 11, 22))
    refreshed = CurrentGrade.objects.get(member__national_number="1001")
    assert (refreshed.grade, refreshed.status, refreshed.boards_in_window) == (50.0, "P", 0)
    assert ledger_check() == []
