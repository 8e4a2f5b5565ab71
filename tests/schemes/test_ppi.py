"""PPI on the database (S10, issue 8): fed by the NGS ledger, board by board with travellers,
session level without, rebuilt by replay on corrections and withdrawals."""

import pytest

from grading.engine.ppi import PPIReason, PPIState, ppi_apply, ppi_replay
from grading.models import PPIPoint, PPIRating, SchemeHead, SessionVersion
from grading.schemes.ppi import ppi_check
from tests.csvfiles import butler_session_rows, csv_bytes, mp_session_rows
from tests.factories import ClubFactory
from tests.schemes.conftest import (
    FIXTURES,
    live_sessions_in_processing_order,
    ppi_rebuilt,
    session_of,
    withdraw,
)


def stored() -> dict[str, tuple[float, int]]:
    return {
        r.member.national_number: (r.ppi, r.boards)
        for r in PPIRating.objects.select_related("member")
    }


def expected(state: PPIState) -> dict[str, tuple[float, int]]:
    return {n: (p.ppi, p.boards) for n, p in state.players.items()}


def test_usebio_with_travellers_updates_board_by_board(upload):
    club = ClubFactory(national_number="458128")
    path = FIXTURES / "usebio/ukbridge-club/mp-pairs.usebio.xml"
    upload(path.read_bytes(), name=path.name, target=club)

    version = SessionVersion.objects.get()
    session = session_of(version)
    assert session.travellers
    step = ppi_apply(PPIState(), session)
    assert {c.mode for c in step.result.changes} == {PPIReason.BOARD_BY_BOARD}
    assert stored() == expected(step.state)
    assert len(stored()) == len(step.result.changes) > 30
    # Board by board differs from applying the session percentage to every board.
    assert any(c.after != c.before for c in step.result.changes)
    rating = PPIRating.objects.select_related("member").order_by("-ppi").first()
    point = PPIPoint.objects.get(member=rating.member)
    assert (point.version, point.ppi, point.total_boards) == (version, rating.ppi, rating.boards)
    assert point.seq == version.ledger_entries.get().seq
    assert not rating.shown  # fewer than 50 boards
    assert ppi_check() == []


def test_csv_without_travellers_updates_at_session_level(upload):
    upload(csv_bytes(mp_session_rows()))
    session = session_of(SessionVersion.objects.get())
    step = ppi_apply(PPIState(), session)
    assert {c.mode for c in step.result.changes} == {PPIReason.SESSION_LEVEL}
    assert stored() == expected(step.state)
    top = PPIRating.objects.get(member__national_number="1001")
    assert top.boards == 24 and top.ppi > 50  # 62.5 % against a 50 field
    assert top.suit in "SHDC" and top.months == [[2026 * 12 + 10, 24]]


def test_sessions_fold_in_processing_order_and_shown_after_50_boards(upload):
    upload(csv_bytes(mp_session_rows(event_id="MON", date="2026-11-16")))
    upload(
        csv_bytes(
            mp_session_rows(
                event_id="TUE", date="2026-11-10", scores=[40, 45, 50, 55, 60, 52, 48, 50]
            )
        )
    )
    upload(csv_bytes(mp_session_rows(event_id="WED", date="2026-11-18", boards=26)))
    replay = ppi_replay(live_sessions_in_processing_order())
    assert stored() == expected(replay)
    assert PPIRating.objects.filter(shown=True).count() == 16  # 24 + 24 + 26 boards
    assert PPIPoint.objects.filter(member__national_number="1001").count() == 3
    assert ppi_check() == []


def test_a_correction_rebuilds_ppi_as_a_replay_of_live_versions(upload):
    upload(csv_bytes(mp_session_rows(event_id="MON", date="2026-11-16")))
    upload(csv_bytes(mp_session_rows(event_id="TUE", date="2026-11-17")))
    before = stored()
    upload(
        csv_bytes(
            mp_session_rows(
                event_id="MON", date="2026-11-16", scores=[45, 55, 52.5, 50, 47.5, 45, 44, 61]
            )
        )
    )
    live = live_sessions_in_processing_order()
    assert [s.key.event_id for s in live] == ["TUE", "MON"]  # the correction comes last
    replay = ppi_replay(live)
    assert stored() == expected(replay)
    assert stored() != before
    assert PPIPoint.objects.filter(member__national_number="1001").count() == 2
    assert SchemeHead.objects.get().ppi_seq == 4  # process, process, withdraw, process
    assert ppi_check() == []


def test_a_withdrawal_rebuilds_ppi_without_the_session(upload):
    upload(csv_bytes(mp_session_rows(event_id="MON", date="2026-11-16")))
    upload(csv_bytes(mp_session_rows(event_id="TUE", date="2026-11-17", scores=[50] * 8)))
    withdraw(SessionVersion.objects.get(session__event__event_id="MON"))
    replay = ppi_replay(live_sessions_in_processing_order())
    assert stored() == expected(replay)
    assert PPIRating.objects.get(member__national_number="1001").ppi == pytest.approx(50)
    assert ppi_check() == []
    assert ppi_rebuilt() == 16 and ppi_check() == []


def test_ppi_check_finds_a_tampered_figure(upload):
    upload(csv_bytes(mp_session_rows()))
    PPIRating.objects.filter(member__national_number="1001").update(ppi=99)
    assert any("1001" in problem for problem in ppi_check())


def test_a_step_after_a_gap_replays(upload):
    """A database whose PPI lags the ledger (e.g. before this feature) catches up by replay."""
    upload(csv_bytes(mp_session_rows(event_id="MON", date="2026-11-16")))
    PPIRating.objects.all().delete()
    PPIPoint.objects.all().delete()
    SchemeHead.objects.update(ppi_seq=0)
    upload(csv_bytes(mp_session_rows(event_id="TUE", date="2026-11-17")))
    assert stored() == expected(ppi_replay(live_sessions_in_processing_order()))
    assert ppi_check() == []


def test_not_match_pointed_gives_no_ppi(upload):
    upload(csv_bytes(butler_session_rows()))
    assert SessionVersion.objects.get().state == "graded"
    assert not PPIRating.objects.exists()
