"""Realistic graded results for the club pages, entered the only way results enter: as S12.1
CSV files through ``grading.uploads.services.upload_create``."""

from __future__ import annotations

import datetime as dt
import random

from tests.csvfiles import csv_bytes

REGULARS = [str(1001 + i) for i in range(16)]  # play every week: 14 x 24 boards > 300
NEWCOMERS = ("1017", "1018")  # one session only: provisional
FIRST_MONDAY = dt.date(2026, 8, 3)
WEEKS = 13


def _row(
    event_id, name, date, pair, a, b, score, *, direction="", movement="ONE_WINNER", start="19:30"
):
    return {
        "event_id": event_id,
        "event_name": name,
        "session": 1,
        "date": date.isoformat(),
        "start": start,
        "scoring": "MP",
        "movement": movement,
        "weighting": 1,
        "pair": pair,
        "direction": direction,
        "player1_number": a,
        "player1_name": f"Player {a}" if a else "Visitor A",
        "player2_number": b,
        "player2_name": f"Player {b}" if b else "Visitor B",
        "score": score,
        "direction_mean": "",
        "boards": 24,
        "rateable": "",
    }


def _scores(rng: random.Random, n: int) -> list[float]:
    raw = [rng.gauss(50, 7) for _ in range(n)]
    shift = 50 - sum(raw) / n
    return [round(x + shift, 2) for x in raw]


def weekly_sessions(weeks: int = WEEKS, seed: int = 7) -> list[list[dict]]:
    """Monday evening pairs (one winner), 8 pairs of changing partnerships each week."""
    rng = random.Random(seed)
    sessions = []
    for week in range(weeks):
        date = FIRST_MONDAY + dt.timedelta(weeks=week)
        players = REGULARS[:]
        rng.shuffle(players)
        scores = _scores(rng, 8)
        sessions.append(
            [
                _row(
                    "MON",
                    f"Monday Pairs {date:%Y-%m-%d}",
                    date,
                    i + 1,
                    players[2 * i],
                    players[2 * i + 1],
                    scores[i],
                )
                for i in range(8)
            ]
        )
    return sessions


def two_winner_session(date: dt.date, seed: int = 11) -> list[dict]:
    """Thursday Mitchell: 5 NS and 4 EW pairs, the newcomers the last EW pair (pair 9)."""
    rng = random.Random(seed)
    players = REGULARS[:]
    rng.shuffle(players)
    players += list(NEWCOMERS)
    rows = []
    for direction, offset, count in (("NS", 0, 5), ("EW", 5, 4)):
        scores = _scores(rng, count)
        for i in range(count):
            k = offset + i
            rows.append(
                _row(
                    "THU",
                    "Thursday Mitchell",
                    date,
                    k + 1,
                    players[2 * k],
                    players[2 * k + 1],
                    scores[i],
                    direction=direction,
                    movement="TWO_WINNER",
                    start="14:00",
                )
            )
    return rows


def unknown_heavy_session(date: dt.date) -> list[dict]:
    """6 pairs, 2 of them visitors without numbers: 4/6 known is not more than 2/3 (S3.8)."""
    scores = [58.0, 54.0, 51.0, 48.0, 46.0, 43.0]
    rows = []
    for i, score in enumerate(scores):
        a, b = (REGULARS[2 * i], REGULARS[2 * i + 1]) if i < 4 else ("", "")
        rows.append(_row("FRI", "Friday Social", date, i + 1, a, b, score, start="10:00"))
    return rows


def renumbered(rows: list[dict], offset: int) -> list[dict]:
    """The same session played by other members: every membership number plus ``offset``."""
    out = []
    for row in rows:
        row = dict(row)
        for key in ("player1_number", "player2_number"):
            if row[key]:
                row[key] = str(int(row[key]) + offset)
        out.append(row)
    return out


def upload_all(club, capture, offset: int = 0) -> None:
    from grading.uploads.services import upload_create

    sessions = [renumbered(rows, offset) for rows in weekly_sessions()]
    last = FIRST_MONDAY + dt.timedelta(weeks=WEEKS - 1)
    files = [
        ("monday-a.csv", csv_bytes(*sessions[:7])),
        ("monday-b.csv", csv_bytes(*sessions[7:])),
        (
            "thursday.csv",
            csv_bytes(renumbered(two_winner_session(last + dt.timedelta(days=3)), offset)),
        ),
        (
            "friday.csv",
            csv_bytes(renumbered(unknown_heavy_session(last + dt.timedelta(days=4)), offset)),
        ),
    ]
    for name, data in files:
        with capture(execute=True):
            upload = upload_create(club=club, filename=name, data=data, check_club=False)
        upload.refresh_from_db()
        assert upload.status == "graded", (name, upload.problems)
