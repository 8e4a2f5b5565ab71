"""PPI's history points written by the schemes' rebuild (``ppi_points_write``; S10): a chunk of
the fold's points becomes ``PPIPoint`` rows in the fold's order, each with its event's version
and date and an empty mode; a number with no member is left out. On PostgreSQL (the suite's
database) they go by binary COPY from columns, the empty text field included."""

from __future__ import annotations

import datetime as dt

from grading.models import PPIPoint, SessionVersion
from grading.schemes.rebuild.write import ppi_points_write
from members.models import Member
from tests.csvfiles import csv_bytes, mp_session_rows


def test_the_fold_s_points_are_stored_in_order_with_their_event_and_no_unknown_number(club, upload):
    upload(csv_bytes(mp_session_rows(event_id="P1", date="2026-05-04")), target=club)
    upload(csv_bytes(mp_session_rows(event_id="P2", date="2026-05-11")), target=club)
    first, second = SessionVersion.objects.order_by("pk")[:2]
    a, b = (Member.objects.get(national_number=n).pk for n in ("1001", "1002"))
    PPIPoint.objects.all().delete()
    events = {7: (first.pk, dt.date(2026, 5, 4)), 9: (second.pk, dt.date(2026, 5, 11))}
    points = [
        ("1002", 7, 51.25, 24, 24),
        ("no-such-member", 7, 40.0, 24, 24),
        ("1001", 7, 48.5, 24, 24),
        ("1001", 9, 49.125, 22, 46),
        ("1002", 9, 52.0, 22, 46),
    ]

    written = ppi_points_write(points, {"1001": a, "1002": b}, events)

    assert written == 4
    stored = list(
        PPIPoint.objects.order_by("pk").values_list(
            "member_id", "version_id", "seq", "date", "ppi", "boards", "total_boards", "mode"
        )
    )
    assert stored == [
        (b, first.pk, 7, dt.date(2026, 5, 4), 51.25, 24, 24, ""),
        (a, first.pk, 7, dt.date(2026, 5, 4), 48.5, 24, 24, ""),
        (a, second.pk, 9, dt.date(2026, 5, 11), 49.125, 22, 46, ""),
        (b, second.pk, 9, dt.date(2026, 5, 11), 52.0, 22, 46, ""),
    ]


def test_a_chunk_without_points_writes_nothing(db):
    assert ppi_points_write([], {}, {}) == 0
