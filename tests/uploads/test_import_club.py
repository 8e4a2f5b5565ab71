"""Operators' imports without --club (issue 20 items 4 and 5): a refused file leaves nothing but
its refusal record and audit entry; a later file finds its club by national club number, else
by name; a file naming no club is refused asking for --club."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from clubs.models import Club, ClubRole
from grading.models import AuditEvent, SessionVersion, Upload
from members.models import Member
from tests.csvfiles import csv_bytes, mp_session_rows

SAMPLE = (
    Path(__file__).resolve().parent.parent / "fixtures/usebio/ukbridge-club/mp-pairs.usebio.xml"
)


def variant(tmp_path, name: str, *replacements: tuple[str, str]) -> Path:
    text = SAMPLE.read_text(encoding="utf-8")
    for old, new in replacements:
        assert old in text
        text = text.replace(old, new, 1)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def run(*args) -> str:
    out = StringIO()
    call_command("import_results", *map(str, args), stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_a_refused_file_creates_no_club_member_or_role(tmp_path):
    """Before: four refused files left four clubs named "Imported from ..."."""
    bad = variant(
        tmp_path, "bad.xml", ("<PERCENTAGE>49.09</PERCENTAGE>", "<PERCENTAGE>abc</PERCENTAGE>")
    )
    out = StringIO()
    with pytest.raises(CommandError, match="1 file"):
        call_command("import_results", str(bad), stdout=out)
    assert "Refused (no club)" in out.getvalue() and "problem:" in out.getvalue()
    assert not Club.objects.exists()
    assert not Member.objects.exists() and not ClubRole.objects.exists()
    upload = Upload.objects.get()
    assert upload.status == Upload.Status.REFUSED and upload.club is None and upload.problems
    assert AuditEvent.objects.filter(action="upload", details__upload=upload.pk).count() == 1
    assert AuditEvent.objects.count() == 1


@pytest.mark.django_db
def test_a_later_file_finds_its_club_by_number_then_by_name(tmp_path):
    run("--sync", SAMPLE)
    club = Club.objects.get()
    assert club.national_number == "458128" and club.name == "Sample Bridge Club 5"
    # A correction whose club name was retyped: found by its number.
    renamed = variant(
        tmp_path,
        "renamed.xml",
        ("<CLUB_NAME>Sample Bridge Club 5</CLUB_NAME>", "<CLUB_NAME>Sample BC</CLUB_NAME>"),
        ("<PERCENTAGE>49.09</PERCENTAGE>", "<PERCENTAGE>49.10</PERCENTAGE>"),
    )
    assert "correction" in run("--sync", renamed)
    # A file without the number: found by its name.
    unnumbered = variant(
        tmp_path,
        "unnumbered.xml",
        ("<CLUB_ID_NUMBER>00458128</CLUB_ID_NUMBER>", ""),
        ("<PERCENTAGE>49.09</PERCENTAGE>", "<PERCENTAGE>49.11</PERCENTAGE>"),
    )
    assert "correction" in run("--sync", unnumbered)
    assert Club.objects.count() == 1
    assert set(Upload.objects.values_list("club", flat=True)) == {club.pk}
    assert SessionVersion.objects.filter(state="graded").count() == 1


@pytest.mark.django_db
def test_a_file_naming_no_club_is_refused_asking_for_club(tmp_path):
    path = tmp_path / "mon.csv"  # the product's CSV names no club
    path.write_bytes(csv_bytes(mp_session_rows()))
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("import_results", str(path), stdout=out)
    assert "--club" in out.getvalue()
    assert not Club.objects.exists() and not SessionVersion.objects.exists()
    assert Upload.objects.get().status == Upload.Status.REFUSED
