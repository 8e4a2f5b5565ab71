"""Brambledown (S11) after an upload that only adds a session to the club's latest quarter: the
session recorded from the rows of its own players and pairs (``grading.schemes.brambledown.state``), so
that an upload's cost does not grow with the club's history or membership.

The club's full update (``brambledown_club_update``) records the open quarter's sessions in
order from the state after the last regrade. The club's log is folded in order, one session's
run of entries at a time, by the task after the steps (``schemes_catch_up``), or marks the
club's rows stale when the club does not keep Brambledown then (``BrambledownClubState.seq``
0), so the entries of the group being folded are the club's only new ones before them (a full
update may have folded later ones already: ``seq`` then passes them). When they are one new
live version of the open quarter that sorts after
every session recorded (``BrambledownClubState.last_key``), and no live session lies after the
open quarter (``latest``), recording it last is exactly what the full update would do: the
engine reads and changes only the session's players and pairs (``brambledown_apply``). A
session of a later quarter first closes the open quarter from the rows of those who played in
it (``grading.schemes.brambledown.close_quarter``), as the full update's replay would. Anything else (a
correction or withdrawal, a session of a closed quarter, one that sorts before a recorded one,
rows not kept) returns None and the full update runs. tests/schemes/test_brambledown_from_rows.py holds the
two equal on random uploads.
"""

from __future__ import annotations

from collections.abc import Sequence

from clubs.models import Club
from grading.common.bulk import rows_upsert
from grading.common.stale import member_pages_invalidate
from grading.engine import codec
from grading.engine.brambledown import (
    BrambledownState,
    Quarter,
    brambledown_apply,
    pair_key,
)
from grading.engine.brambledown import why_not_rated as brambledown_why_not
from grading.engine.brambledown.replay import session_order
from grading.engine.types import Scoring, SessionResult
from grading.ledger.subjects import session_subjects
from grading.models import (
    BrambledownClubState,
    BrambledownGrade,
    BrambledownListEntry,
    BrambledownPoint,
    BrambledownRating,
    SessionVersion,
)
from grading.models.schemes import SchemeEntry
from grading.schemes.brambledown.close_quarter import open_quarter_close
from grading.schemes.brambledown.state import rows_load, rows_write
from grading.schemes.brambledown.tables import (
    GRADE_FIELDS,
    BrambledownUpdate,
    grade_row,
    key_json,
    key_of_json,
    listed_kinds,
    point_rows,
    rating_rows,
)
from grading.schemes.log import PROCESS, members_by_number

LIST_A, LIST_B = BrambledownListEntry.Kind.A, BrambledownListEntry.Kind.B


def club_session_add(
    *, club: Club, row: BrambledownClubState, entries: Sequence[SchemeEntry] | None
) -> BrambledownUpdate | None:
    """Fold the club's new entries of the log (``entries``: the group ``schemes_catch_up`` is
    folding; None outside it: none) from the rows of their players, or None when the club needs
    its full update (see the module's text). ``row``: the club's state, locked."""
    if not row.seq or not row.open_quarter:
        return None  # not kept (a club's first update, after a migration, or entries passed)
    new = [entry for entry in entries or () if entry.seq > row.seq]
    unchanged = BrambledownUpdate((), row.open_quarter, row.recorded, False, fast=True)
    if not new:
        return unchanged
    if len(new) > 1 or new[0].operation != PROCESS:
        return None
    entry = new[0]
    version = (
        SessionVersion.objects.select_related("session")
        .only("scoring", "payload", "session__date")
        .get(pk=entry.version_id)
    )
    if version.scoring != Scoring.MP.value:  # not among the sessions Brambledown reads
        row.seq = entry.seq
        row.save(update_fields=["seq", "updated"])
        return unchanged
    day = version.session.date  # (the closing of quarters goes by it, as the full update)
    session = codec.load(SessionResult, version.payload)
    open_q, quarter = Quarter.parse(row.open_quarter), Quarter.of(day)
    if quarter < open_q or Quarter.of(session.date) != quarter or row.latest is None:
        return None  # (no other live session: the full update's own rule, issue 21)
    if Quarter.of(row.latest) > open_q:
        return None  # a live session after the open quarter: the full update closes it
    rated_here = not brambledown_why_not(session)  # (if not, its date alone counts)
    key, last = session_order(session), key_of_json(row.last_key)
    if rated_here and quarter == open_q and last is not None and key <= last:
        return None  # before a session recorded: the ones after it are recorded again
    closed: tuple[str, ...] = ()
    saved = ["seq", "latest", "last_key", "recorded", "sessions", "updated"]
    if quarter > open_q:  # the first session of a later quarter: the open one is over
        closed = open_quarter_close(club=club, row=row, through=quarter.previous())
        saved += ["regraded", "open_quarter"]
        open_q = quarter
    row.seq, row.latest = entry.seq, max(row.latest, day)
    if not rated_here:
        row.save(update_fields=saved)
        return BrambledownUpdate(closed, row.open_quarter, row.recorded, False, fast=True)
    rated = _record(club, row, open_q, entry.version_id, session, entry.host_pair or None)
    row.last_key = key_json(key)
    row.recorded += 1
    row.sessions += 1 if rated else 0
    row.save(update_fields=saved)
    return BrambledownUpdate(closed, row.open_quarter, row.recorded, False, fast=True)


def club_quarter_close(
    *, club: Club, row: BrambledownClubState, through: Quarter
) -> BrambledownUpdate | None:
    """The quarterly regrade (``brambledown_regrade_club``: quarters up to ``through``, after
    the last one closed) from the rows of those who played in the open quarter, as a session
    of a later quarter closes it (``open_quarter_close``); None when the club needs its full update (no
    rows kept, or a live session after the open quarter)."""
    if not row.seq or not row.open_quarter or row.latest is None:
        return None
    open_q = Quarter.parse(row.open_quarter)
    if through < open_q or Quarter.of(row.latest) > open_q:
        return None
    closed = open_quarter_close(club=club, row=row, through=through)
    row.save(update_fields=["regraded", "open_quarter", "last_key", "recorded", "updated"])
    return BrambledownUpdate(closed, row.open_quarter, row.sessions, False, fast=True)


def _record(
    club: Club,
    row: BrambledownClubState,
    open_q: Quarter,
    version_id: int,
    session: SessionResult,
    host_pair: str | None,
) -> bool:
    """Record the session from its players' and pairs' rows and store what it changes: their
    rows, its ratings, the grades and grade histories of those rated. Returns whether any
    member got a stored rating."""
    numbers, keys = session_subjects(session)  # the players and pairs it can change
    players, pairs = rows_load(club=club, numbers=numbers, pairs=keys)
    regraded = Quarter.parse(row.regraded) if row.regraded else None
    state = BrambledownState(players, pairs, open_q, regraded)
    step = brambledown_apply(state, session, host_pair=host_pair)
    changed = sorted({r.number for r in step.ratings.players})
    paired = sorted({pair_key(r.number, r.partner) for r in step.ratings.players})
    rows_write(
        club=club,
        players=[step.state.players[n] for n in changed],
        pairs=[step.state.pairs[k] for k in paired],
    )
    members = members_by_number(numbers)
    ratings = rating_rows(club, [(version_id, step.ratings)], members)
    BrambledownRating.objects.bulk_create([BrambledownRating(**r) for r in ratings])
    rated = {n: members[n] for n in changed if n in members}
    _store_grades(club, row, session.date, step.state, players, rated)
    return bool(ratings)


def _store_grades(club, row, day, state, before, members) -> None:
    """The grades of the members just rated (``grades_store``' rows for them) and the
    grade points their histories gained (a new member's grade at the third performance):
    appended, as they are dated on the session's day, after every point already stored."""
    ids = [member.pk for member in members.values()]
    stored = {
        g["member_id"]: g
        for g in BrambledownGrade.objects.filter(club=club, member_id__in=ids).values(
            "member_id", "last_date", "quarter", "on_a_list", "on_b_list"
        )
    }
    # The lists of the last quarter regraded, from the grade rows that name it (written with
    # it); a member without a row was in no state when it was drawn up: on no list.
    unsure = [pk for pk in ids if pk in stored and stored[pk]["quarter"] != row.regraded]
    listed = listed_kinds(club, row.regraded, unsure) if unsure else {}
    for pk, g in stored.items():
        if pk not in unsure and (g["on_a_list"] or g["on_b_list"]):
            listed[pk] = LIST_A if g["on_a_list"] else LIST_B
    grades, points = [], []
    for number, member in members.items():
        player = state.players[number]
        last = stored[member.pk]["last_date"] if member.pk in stored else None
        last = day if last is None or day > last else last
        grades.append(
            BrambledownGrade(
                **grade_row(club, member, player, row.regraded, listed.get(member.pk), last)
            )
        )
        old = before.get(number)
        points += point_rows(club, member, player.history[len(old.history) if old else 0 :])
    rows_upsert(
        BrambledownGrade, grades, unique_fields=["club", "member"], update_fields=GRADE_FIELDS
    )
    BrambledownPoint.objects.bulk_create([BrambledownPoint(**p) for p in points])
    member_pages_invalidate(member_ids=ids)
