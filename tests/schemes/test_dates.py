"""Dates at the calendar's edges (issue 21 item 1): a session already stored with a date of play
in year 1, 999 or 1900 does not stop Brambledown (S11) or PPI (S10). Quarters are named so that
they read back, the quarter before year 1's first exists, and a replay costs one quarter per
quarter with sessions, not one per quarter since the oldest date."""

import dataclasses
import datetime as dt

import pytest
from django.db import transaction

from grading.engine import codec
from grading.engine.brambledown import Quarter, brambledown_replay
from grading.ledger.lock import ledger_head_lock
from grading.models import (
    BrambledownClubState,
    BrambledownQuarter,
    BrambledownRating,
    Session,
    SessionVersion,
)
from grading.schemes.brambledown.update import brambledown_club_update, brambledown_regrade_club
from grading.schemes.ppi import ppi_check
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.schemes.conftest import live_sessions_in_processing_order, ppi_rebuilt, session_of
from tests.schemes.test_not_graded import TOO_FEW_KNOWN


@pytest.mark.parametrize(
    ("text", "quarter"),
    [("0001Q1", Quarter(1, 1)), ("999Q2", Quarter(999, 2)), ("1900Q1", Quarter(1900, 1))],
)
def test_quarters_of_any_year_read_back(text, quarter):
    assert Quarter.parse(text) == quarter
    assert Quarter.parse(str(quarter)) == quarter


def test_the_quarters_around_the_calendar_edges():
    first = Quarter.of(dt.date.min)
    assert str(first) == "0001Q1" and first.start == dt.date.min
    assert first.previous().end == dt.date.min  # exists; its days clamp to the calendar
    last = Quarter.of(dt.date.max)
    assert last.end == dt.date.max and last.next().start == dt.date.max
    with pytest.raises(ValueError):
        Quarter(-5, 1)


def store_with_date(version: SessionVersion, day: dt.date) -> None:
    """Rewrite a stored version's date of play, as if the file had said so."""
    result = session_of(version)
    result = dataclasses.replace(result, key=dataclasses.replace(result.key, date=day))
    SessionVersion.objects.filter(pk=version.pk).update(payload=codec.dump(result))
    Session.objects.filter(pk=version.session_id).update(date=day)


@pytest.mark.parametrize("day", [dt.date(1, 1, 1), dt.date(999, 6, 15), dt.date(1900, 3, 1)])
def test_a_stored_date_far_back_leaves_grading_working(club, upload, day):
    # The odd session is one the NGS does not grade (too few known pairs), so only the two
    # schemes hold it; the others are ordinary.
    upload(csv_bytes(mp_session_rows(event_id="OLD", date="2026-07-06", numbers=TOO_FEW_KNOWN)))
    store_with_date(SessionVersion.objects.get(), day)
    with transaction.atomic():
        ledger_head_lock()
        brambledown_club_update(club=club, replay=True)
    assert ppi_rebuilt() == 10

    upload(csv_bytes(mp_session_rows(event_id="MON", date="2026-07-13")))
    upload(csv_bytes(mp_session_rows(event_id="TUE", date="2026-10-06")))  # closes 2026Q3
    assert SessionVersion.objects.filter(state="graded").count() == 2
    state = BrambledownClubState.objects.get(club=club)
    assert (state.regraded, state.open_quarter) == ("2026Q3", "2026Q4")
    # One quarter row per quarter with sessions, however far back the first one lies.
    assert list(BrambledownQuarter.objects.values_list("quarter", flat=True)) == [
        str(Quarter.of(day)),
        "2026Q3",
    ]
    engine = brambledown_replay(live_sessions_in_processing_order(), "2026Q3")
    stored = {
        (r.version_id, r.member.national_number): r.ipr
        for r in BrambledownRating.objects.select_related("member")
    }
    assert len(stored) == 10 + 16 + 16
    assert sum(len(q.sessions) for q in engine.quarters) + len(engine.open_sessions) == 3
    assert ppi_check() == []

    update = brambledown_regrade_club(club=club, quarter="2026Q4")  # the command's service
    assert update.closed == ("2026Q4",)
    assert BrambledownQuarter.objects.count() == 3
