"""The nightly refresh of current and partnership grades, and grades as of a date, read from the
subject tables a batch of subjects at a time (``subjects_grades``): no fold of the ledger, memory
bounded by one batch of histories whatever the size of the ledger (issue 17; S4, S6, S14.6).

The refresh writes in bulk: each batch's figures go into a temporary table (COPY on PostgreSQL),
and one ``UPDATE ... FROM`` per table writes them all at the end, joined on the members'
numbers in the database. It holds the ledger lock, as a grading step does, so no step's grades
are overwritten by figures read before it.
"""

from __future__ import annotations

import datetime as dt

from django.db import connection, transaction

from grading.common.pgcopy import table_copy
from grading.common.stale import member_pages_invalidate
from grading.engine.ngs import CurrentGrade as EngineGrade
from grading.engine.ngs import get_params
from grading.ledger.lock import ledger_head_lock
from grading.ledger.step import subjects_catch_up
from grading.ledger.subjects import subjects_grades
from grading.models import CurrentGrade, PartnershipGrade
from members.models import Member

__all__ = ["REFRESH_BATCH", "grades_as_of", "grades_refresh"]

REFRESH_BATCH = 500  # subjects read (and figures written) at a time: about 140,000 history
# rows (120 MB) at national size, where a player has about 280 live sessions (docs/ngs.md)

_PLAYERS = "ledger_refresh_players"
_PAIRS = "ledger_refresh_partnerships"
_PLAYER_COLUMNS = ("number", "grade", "status", "band", "boards", "sessions")
_PAIR_COLUMNS = ("a", "b", "grade", "boards", "shown")


def grades_refresh(*, today: dt.date, batch: int = REFRESH_BATCH) -> int:
    """Every stored current and partnership grade recomputed as of ``today`` (or the latest
    date of play, if later): the 3-year window and the statuses move with the calendar (S4,
    S6). Returns the number of grades refreshed. Reads ``batch`` subjects at a time."""
    with transaction.atomic():
        head = ledger_head_lock()
        subjects_catch_up(head)  # a no-op unless the tables predate the head (docs/ngs.md)
        params = get_params(head.params_name)
        as_of = max(today, head.reference_date) if head.reference_date else today
        with connection.cursor() as cursor:
            _temporary_tables(cursor)
            players: list[tuple] = []
            pairs: list[tuple] = []
            for subject, grade, _ in subjects_grades(params, as_of, batch):
                if "+" in subject:
                    a, b = subject.split("+", 1)
                    shown = grade.status.value != CurrentGrade.Status.PROVISIONAL
                    pairs.append((a, b, grade.grade, grade.boards_in_window, shown))
                else:
                    players.append(_player_row(subject, grade))
                if len(players) + len(pairs) >= batch:
                    _flush(cursor, players, pairs)
            _flush(cursor, players, pairs)
            refreshed = _update(cursor, as_of)
        member_pages_invalidate()
    return refreshed


def grades_as_of(*, as_of: dt.date) -> dict[str, EngineGrade]:
    """Each graded member's engine CurrentGrade as of a date (the ``grades --as-of`` command):
    every member with a live graded session, read from the subject tables."""
    with transaction.atomic():
        head = ledger_head_lock()
        subjects_catch_up(head)
        params = get_params(head.params_name)
        return {
            number: grade
            for number, grade, _ in subjects_grades(params, as_of, REFRESH_BATCH, players_only=True)
        }


def _player_row(number: str, grade: EngineGrade) -> tuple:
    return (
        number,
        grade.grade,
        grade.status.value,
        grade.band,
        grade.boards_in_window,
        grade.sessions_in_window,
    )


def _temporary_tables(cursor) -> None:
    drop = " ON COMMIT DROP" if connection.vendor == "postgresql" else ""
    for table in (_PLAYERS, _PAIRS):
        cursor.execute(f"DROP TABLE IF EXISTS {table}")
    cursor.execute(
        f"CREATE TEMPORARY TABLE {_PLAYERS} (number varchar(20), grade double precision, "
        f"status varchar(1), band varchar(20), boards integer, sessions integer){drop}"
    )
    cursor.execute(
        f"CREATE TEMPORARY TABLE {_PAIRS} (a varchar(20), b varchar(20), "
        f"grade double precision, boards integer, shown boolean){drop}"
    )


def _flush(cursor, players: list[tuple], pairs: list[tuple]) -> None:
    """One batch's figures into the temporary tables (COPY on PostgreSQL); the lists emptied."""
    if players:
        table_copy(cursor, _PLAYERS, _PLAYER_COLUMNS, players)
    if pairs:
        table_copy(cursor, _PAIRS, _PAIR_COLUMNS, pairs)
    players.clear()
    pairs.clear()


def _update(cursor, as_of: dt.date) -> int:
    """The stored grades from the temporary tables, one statement each. Returns the rows
    written (a stored grade whose subject has no live session is left as it is, as before)."""
    member = Member._meta.db_table
    current = CurrentGrade._meta.db_table
    pships = PartnershipGrade._meta.db_table
    cursor.execute(
        f"UPDATE {current} SET grade = t.grade, status = t.status, band = t.band, "
        f"boards_in_window = t.boards, sessions_in_window = t.sessions, as_of = %s "
        f"FROM {_PLAYERS} t JOIN {member} m ON m.national_number = t.number "
        f"WHERE {current}.member_id = m.id",
        [as_of],
    )
    written = cursor.rowcount
    cursor.execute(
        f"UPDATE {pships} SET grade = t.grade, boards_in_window = t.boards, as_of = %s, "
        f"shown = t.shown "
        f"FROM {_PAIRS} t JOIN {member} ma ON ma.national_number = t.a "
        f"JOIN {member} mb ON mb.national_number = t.b "
        f"WHERE {pships}.member_a_id = ma.id AND {pships}.member_b_id = mb.id",
        [as_of],
    )
    written += cursor.rowcount
    for table in (_PLAYERS, _PAIRS):
        cursor.execute(f"DROP TABLE {table}")
    return written
