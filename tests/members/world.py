"""A realistic graded history built through the upload pipeline (S12.1 CSV -> upload_create).

Two clubs. At the first, 8 regular pairs play a weekly Monday pairs for 14 weeks; the member
under test ("me") partners their regular partner except in weeks 12-13, when they play with a
member who keeps their grade private. At the second club, 3 Thursday sessions: the member
partners a public member, one session as the host pair, plus two newcomers (provisional). Then
a session that is not graded (too few known pairs), a correction of week 3, and a late upload
of a session dated before all the others.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from tests.csvfiles import csv_bytes, mp_session_rows

SCORES = [62.5, 57.0, 54.0, 51.0, 49.0, 46.5, 42.0, 38.0]
FIRST_MONDAY = dt.date(2026, 6, 1)
FIRST_THURSDAY = dt.date(2026, 9, 3)


@dataclass
class People:
    me: str
    partner: str  # the regular partner
    private: str  # partners me in weeks 12-13; keeps their grade private
    public: str  # partners me at the second club
    newcomers: tuple[str, str]  # provisional after the second club's sessions
    others: list[str]

    @classmethod
    def numbered(cls, first: int) -> People:
        n = [str(first + i) for i in range(24)]
        return cls(
            me=n[0],
            partner=n[1],
            private=n[2],
            public=n[4],
            newcomers=(n[16], n[17]),
            others=n[3:4] + n[5:16] + n[18:24],
        )


def _pairs_at_first_club(p: People, week: int) -> list[tuple[str, str]]:
    pool = [p.me, p.partner, p.private, p.others[0], p.public] + p.others[1:12]
    pairs = [(pool[2 * i], pool[2 * i + 1]) for i in range(8)]
    if week in (11, 12):  # me with the private member; the regular partner with their partner
        pairs[0], pairs[1] = (p.me, p.private), (p.partner, p.others[0])
    return pairs


def first_club_sessions(p: People, event_id: str = "MON", weeks: int = 14):
    out = []
    for week in range(weeks):
        date = FIRST_MONDAY + dt.timedelta(weeks=week)
        scores = [SCORES[(j + week) % 8] for j in range(8)]
        out.append(
            mp_session_rows(
                event_id=event_id,
                date=date.isoformat(),
                scores=scores,
                numbers=_pairs_at_first_club(p, week),
            )
        )
    return out


def second_club_sessions(p: People, event_id: str = "THU"):
    pairs = [
        (p.me, p.public),
        p.newcomers,
        (p.others[12], p.others[13]),
        (p.others[14], p.others[15]),
        (p.others[16], p.others[17]),
        (p.others[1], p.others[2]),
    ]
    out = []
    for week in range(3):
        date = FIRST_THURSDAY + dt.timedelta(weeks=week)
        scores = [SCORES[(j + 2 * week) % 6] for j in range(6)]
        rateable = {1: "N"} if week == 1 else None  # me and partner host in week 2
        out.append(
            mp_session_rows(
                event_id=event_id,
                date=date.isoformat(),
                scores=scores,
                numbers=pairs,
                rateable=rateable,
            )
        )
    return out


def not_graded_session(p: People, event_id: str = "THU"):
    """6 pairs, 2 with an unknown player: 4 of 6 known is not more than 2/3 (S3.8)."""
    pairs = [
        (p.me, p.public),
        (p.others[12], ""),
        (p.others[13], ""),
        (p.others[14], p.others[15]),
        (p.others[16], p.others[17]),
        (p.others[1], p.others[2]),
    ]
    date = FIRST_THURSDAY + dt.timedelta(weeks=3)
    return mp_session_rows(
        event_id=event_id,
        date=date.isoformat(),
        numbers=pairs,
        scores=[55.0, 52.0, 50.0, 49.0, 48.0, 46.0],
    )


def build(upload, first_club, second_club, p: People, prefix: str = "") -> None:
    """Upload everything; ``upload(club, data, name)`` must let grading run."""
    mon, thu = f"{prefix}MON", f"{prefix}THU"
    sessions = first_club_sessions(p, mon)
    upload(first_club, csv_bytes(*sessions), "monday.csv")
    upload(second_club, csv_bytes(*second_club_sessions(p, thu)), "thursday.csv")
    upload(second_club, csv_bytes(not_graded_session(p, thu)), "thursday-short.csv")
    corrected = [dict(row) for row in sessions[2]]
    corrected[0]["score"], corrected[7]["score"] = 60.5, 40.0  # week 3 re-scored
    upload(first_club, csv_bytes(corrected), "monday-week3-corrected.csv")
    late = mp_session_rows(
        event_id=mon,
        date=(FIRST_MONDAY - dt.timedelta(weeks=1)).isoformat(),
        scores=[52.0, 50.5, 50.0, 49.5, 49.0, 48.5, 48.0, 52.5],
        numbers=_pairs_at_first_club(p, 0),
    )
    upload(first_club, csv_bytes(late), "monday-late.csv")
