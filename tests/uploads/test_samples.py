"""Every real sample file through the whole pipeline (issue 5, S12): graded, stored not
graded with its reason, or refused with a located problem, and nothing stored when refused."""

from pathlib import Path

import pytest

from grading.ledger.replay.check import ledger_check
from grading.models import Event, SessionGrade, SessionVersion, Upload
from grading.uploads.services import upload_create
from tests.factories import ClubFactory

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

GRADED = [
    "usebio/cobalt/butler_howell.xml",
    "usebio/cobalt/butler_mitchell.xml",
    "usebio/cobalt/cross_imp_howell.xml",
    "usebio/cobalt/mp_pairs_howell.xml",
    "usebio/cobalt/mp_pairs_mitchell.xml",
    "usebio/cobalt/mp_pairs_mitchell_02.xml",
    "usebio/cobalt/mp_pairs_mitchell_03.xml",
    "usebio/cobalt/mp_pairs_mitchell_04.xml",
    "usebio/cobalt/mp_pairs_mitchell_adjusted_02.xml",
    "usebio/scorebridge/scorebridge_mp_pairs_EXCERPT.xml",
    "usebio/ukbridge-club/cross-imp-pairs.usebio.xml",
    "usebio/ukbridge-club/mp-pairs.usebio.xml",
    "usebio/ukbridge-club/multi-section.usebio.xml",
    "usebio/ukbridge-club/multiple-teams.usebio.xml",
    "usebio/ukbridge-club/public_multi-section-pairs.xml",
    "usebio/ukbridge-club/realbridge.usebio.xml",
    "usebio/ukbridge-club/usebio-and-pbn.usebio.xml",
    "pbn/ruter_norway/pairs.pbn",
    "pbn/ruter_norway/teams-sub.pbn",
]
NOT_GRADED = {
    "usebio/ukbridge-club/individual.usebio.xml": "individual",
    "usebio/ukbridge-club/point-a-board.usebio.xml": "point-a-board",
}
REFUSED = {
    "usebio/cobalt/notsupported.xml": "NOTSUP",
    "pbn/bridgewebs/bridgewebs_hands_2025-04-09.pbn": "",
    "pbn/pbntools_poland/wb120802_one_record_per_result.pbn": "",
    "malformed/billion-laughs.xml": "",
    "malformed/external-entity.xml": "",
    "malformed/truncated.usebio.xml": "",
    "malformed/not-well-formed.xml": "",
}


@pytest.fixture
def upload(db, django_capture_on_commit_callbacks):
    def send(relative: str, **club_fields) -> Upload:
        club = ClubFactory(**{"national_number": "", **club_fields})  # no number: any file
        path = FIXTURES / relative
        with django_capture_on_commit_callbacks(execute=True):
            result = upload_create(club=club, filename=path.name, data=path.read_bytes())
        result.refresh_from_db()
        return result

    return send


@pytest.mark.parametrize("relative", GRADED)
def test_sample_is_graded(upload, relative):
    result = upload(relative)
    assert result.status == Upload.Status.GRADED, result.problems
    version = SessionVersion.objects.get()
    assert version.state == SessionVersion.State.GRADED, version.not_graded_reason
    assert SessionGrade.objects.filter(version=version, session_grade__isnull=False).exists()
    assert ledger_check() == []


@pytest.mark.parametrize("relative, reason", NOT_GRADED.items())
def test_sample_is_stored_not_graded(upload, relative, reason):
    result = upload(relative)
    version = SessionVersion.objects.get()
    assert version.state == SessionVersion.State.NOT_GRADED
    assert reason in version.not_graded_reason.lower()
    assert result.status == Upload.Status.GRADED  # processed: nothing left to do


@pytest.mark.parametrize("relative, words", REFUSED.items())
def test_sample_is_refused_and_nothing_stored(upload, relative, words):
    result = upload(relative)
    assert result.status == Upload.Status.REFUSED
    assert result.problems and all(p["location"] and p["message"] for p in result.problems)
    assert words in " ".join(p["message"] for p in result.problems)
    assert not Event.objects.exists()


def test_a_file_for_another_club_is_refused(upload):
    """S12: the file's club number (647702) is not this club's."""
    result = upload("usebio/cobalt/butler_howell.xml", national_number="1101", name="Riverside")
    assert result.status == Upload.Status.REFUSED
    assert "club number 647702" in result.problems[0]["message"]
    assert not Event.objects.exists()
