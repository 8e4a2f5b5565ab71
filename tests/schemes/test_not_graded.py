"""PPI and Brambledown rate every match-pointed pairs session that is stored, whether or not the
NGS grades it (SPEC S14.17, issue 20 item 6): the NGS's 2/3 rule (S3.8) is its own; PPI skips
the tables with an unknown player (S10), Brambledown counts unknown players at the field
average (S11). Sessions not graded for a reason that applies to them too (individuals) are not
rated."""

import pytest

from grading.engine.brambledown import brambledown_replay
from grading.engine.ngs.session import Reason
from grading.engine.ppi import PPIState, ppi_apply, ppi_replay
from grading.models import BrambledownRating, PPIRating, SessionVersion
from grading.models.schemes import SchemeEntry
from grading.schemes.ppi import ppi_check
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import ClubFactory
from tests.schemes.conftest import (
    FIXTURES,
    live_sessions_in_processing_order,
    ppi_rebuilt,
    session_of,
)

# 8 pairs, 3 with an unknown player: 5 of 8 known is not more than 2/3 (S3.8, S14.3).
TOO_FEW_KNOWN = [
    ("1001", "1002"),
    ("1003", "1004"),
    ("1005", "1006"),
    ("1007", "1008"),
    ("1009", "1010"),
    ("1011", ""),
    ("", "1014"),
    ("", ""),
]


def ppi_stored() -> dict[str, tuple[float, int]]:
    return {
        r.member.national_number: (r.ppi, r.boards)
        for r in PPIRating.objects.select_related("member")
    }


def test_a_session_failing_only_the_two_thirds_rule_is_rated_by_both(club, upload):
    upload(csv_bytes(mp_session_rows(date="2026-07-06", numbers=TOO_FEW_KNOWN)))
    version = SessionVersion.objects.get()
    assert version.state == SessionVersion.State.NOT_GRADED
    assert version.not_graded_reason == Reason.TOO_FEW_KNOWN
    session = session_of(version)

    # PPI: the five known pairs, against their known opponents only (S10).
    step = ppi_apply(PPIState(), session)
    assert ppi_stored() == {n: (p.ppi, p.boards) for n, p in step.state.players.items()}
    assert set(ppi_stored()) == {f"10{i:02d}" for i in range(1, 11)}
    assert all(boards == 14 for _, boards in ppi_stored().values())  # 24 x 4 of 7 opponents
    assert ppi_check() == []

    # Brambledown: every pair has a PPR, the unknown players count at the field average, and
    # the members of the known pairs get an IPR (S11).
    (ratings,) = brambledown_replay([session], "2026Q2").open_sessions
    stored = {
        r.member.national_number: r.ipr
        for r in BrambledownRating.objects.filter(club=club).select_related("member")
    }
    assert stored == {p.number: p.ipr for p in ratings.players}
    assert len(stored) == 10 and len(ratings.pairs) == 8


def test_a_later_correction_replaces_a_version_the_ngs_did_not_grade(club, upload):
    """The not-graded version leaves the schemes (a withdrawal in their log, though the NGS's
    ledger never saw it) when a corrected file replaces it."""
    upload(csv_bytes(mp_session_rows(date="2026-07-06", numbers=TOO_FEW_KNOWN)))
    upload(csv_bytes(mp_session_rows(event_id="TUE", date="2026-07-07")))
    upload(csv_bytes(mp_session_rows(date="2026-07-06", scores=[50] * 8)))
    first, _, corrected = SessionVersion.objects.order_by("pk")
    assert corrected.state == SessionVersion.State.GRADED
    operations = [(e.operation, e.version_id) for e in SchemeEntry.objects.order_by("seq")]
    assert operations == [
        ("process", first.pk),
        ("process", first.pk + 1),
        ("withdraw", first.pk),
        ("process", corrected.pk),
    ]
    assert ppi_stored() == {
        n: (p.ppi, p.boards)
        for n, p in ppi_replay(live_sessions_in_processing_order()).players.items()
    }
    assert ppi_check() == []
    assert not BrambledownRating.objects.filter(version=first).exists()
    assert BrambledownRating.objects.filter(version=corrected).count() == 16


def test_a_rebuild_rates_the_sessions_the_ngs_did_not_grade(upload):
    upload(csv_bytes(mp_session_rows(date="2026-07-06", numbers=TOO_FEW_KNOWN)))
    before = ppi_stored()
    assert ppi_rebuilt() == 10 and ppi_stored() == before and ppi_check() == []


def test_an_individual_is_not_rated(upload):
    club = ClubFactory(national_number="126110", keeps_brambledown=True)
    path = FIXTURES / "usebio/ukbridge-club/individual.usebio.xml"
    upload(path.read_bytes(), name=path.name, target=club)
    version = SessionVersion.objects.get()
    assert version.state == SessionVersion.State.NOT_GRADED
    assert version.not_graded_reason.lower().startswith("individual")
    assert SchemeEntry.objects.filter(version=version, operation="process").exists()  # seen
    assert not PPIRating.objects.exists()  # ... and not rated
    assert not BrambledownRating.objects.exists()
    assert ppi_check() == []


@pytest.mark.parametrize("scoring", ["BUTLER", "CROSS_IMP"])
def test_a_session_not_match_pointed_and_not_graded_is_not_rated(club, upload, scoring):
    rows = mp_session_rows(date="2026-07-06", numbers=TOO_FEW_KNOWN, scores=[1, -1] * 4)
    for row in rows:
        row["scoring"] = scoring
    upload(csv_bytes(rows))
    assert SessionVersion.objects.get().state == SessionVersion.State.NOT_GRADED
    assert not PPIRating.objects.exists() and not BrambledownRating.objects.exists()
