"""S12.1 CSV files built in tests: one row per pair per session."""

import csv
import io

from grading.ingest.csvformat import CSV_COLUMNS

HEADER = list(CSV_COLUMNS)  # the product's S12.1 columns, defined once
# Butler IMPs that add to zero, as a session's do
BALANCED = (3, -1, 4, -2, 1, -5, 2, -2)


def mp_session_rows(
    *,
    event_id="MON",
    date="2026-11-16",
    scores=None,
    numbers=None,
    boards=24,
    start="19:30",
    session=1,
    rateable=None,
):
    """A one-winner match-pointed session of len(scores) pairs, players 1001, 1002, ..."""
    scores = scores or [62.5, 55.0, 52.5, 50.0, 47.5, 45.0, 44.0, 43.5]
    rows = []
    for i, score in enumerate(scores):
        a, b = numbers[i] if numbers else (str(1001 + 2 * i), str(1002 + 2 * i))
        rows.append(
            {
                "event_id": event_id,
                "event_name": f"{event_id} Pairs",
                "session": session,
                "date": date,
                "start": start,
                "scoring": "MP",
                "movement": "ONE_WINNER",
                "weighting": 1,
                "pair": i + 1,
                "direction": "",
                "player1_number": a,
                "player1_name": f"Player {a}",
                "player2_number": b,
                "player2_name": f"Player {b}",
                "score": score,
                "direction_mean": "",
                "boards": boards,
                "rateable": (rateable or {}).get(i + 1, ""),
            }
        )
    return rows


def butler_session_rows(*, scores=(30, 18, 6, 0, -4, -10, -16, -24), **kwargs):
    """``mp_session_rows`` scored in Butler IMPs, each pair's IMPs in ``scores``: its score term
    is F_butler x IMPs / boards (S3.3), so it grades differently under each parameter set's
    Butler factor."""
    rows = mp_session_rows(scores=list(scores), **kwargs)
    for row in rows:
        row["scoring"] = "BUTLER"
    return rows


def csv_bytes(*sessions) -> bytes:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=HEADER, lineterminator="\n")
    writer.writeheader()
    for rows in sessions:
        writer.writerows(rows)
    return out.getvalue().encode()
