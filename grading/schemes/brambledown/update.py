"""Brambledown (S11) on the database: per club that keeps it (``Club.keeps_brambledown``), a
fold of the club's part of the schemes' log (``grading.schemes.log``).

The club's live match-pointed sessions of the open quarter (whether or not the NGS grades them,
S14.17; unknown players count at the field average) are recorded after each step (PPR and IPR
per member, new players' first performances) from the engine state right after the last
regrade, kept as JSON on ``BrambledownClubState``. A quarter is closed by
:func:`brambledown_regrade_club` (the quarterly Celery task, the ``regrade_brambledown``
command), or when a session of a later quarter arrives (it proves the quarter is over). A
session of a quarter already closed (late, corrected or withdrawn) replays the club's sessions
from the start (``brambledown_replay``), which depends on the set of sessions only; quarters
without sessions are passed over, so a date far in the past costs one quarter (issue 21).

The engine state now is kept in rows besides (``grading.schemes.brambledown.state``): an upload that
adds a session to the open quarter after every one recorded, the usual case, is recorded from
its own players' rows (``grading.schemes.brambledown.add_session``), at a cost that does not grow with the club.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db import transaction
from django.db.models import F, Max

from clubs.models import Club
from grading.common.stale import pages_renewed_after
from grading.engine.brambledown import (
    BrambledownState,
    Quarter,
    SessionRatings,
    brambledown_apply,
)
from grading.engine.brambledown import why_not_rated as brambledown_why_not
from grading.engine.brambledown.bulk import brambledown_replay_bulk
from grading.engine.brambledown.replay import session_identity, session_order
from grading.engine.types import SessionResult
from grading.models import BrambledownClubState, BrambledownListEntry, BrambledownQuarter
from grading.models.schemes import SchemeEntry
from grading.schemes.brambledown.add_session import club_quarter_close, club_session_add
from grading.schemes.brambledown.state import (
    quarter_of_text,
    rows_store,
    state_dump,
    state_load,
)
from grading.schemes.brambledown.tables import (
    BrambledownUpdate,
    grades_store,
    key_json,
    quarter_store,
    ratings_store,
    sessions_rated,
)
from grading.schemes.log import live_entries, scheme_head_lock, sessions_of

__all__ = [
    "BrambledownUpdate",
    "ClubSession",
    "brambledown_club_passed",
    "brambledown_club_update",
    "brambledown_regrade_club",
    "brambledown_regrade_due",
    "club_entries",
    "club_sessions",
]

# --------------------------------------------------------------------------------------------
# The club's sessions, recorded and regraded


@dataclass(frozen=True)
class ClubSession:
    version_id: int
    session: SessionResult
    host_pair: str | None


def club_session_order(item: ClubSession) -> tuple:
    """The engine's order of a club's sessions (``session_order``)."""
    return session_order(item.session)


def club_entries(*, club: Club) -> list[tuple[SchemeEntry, dt.date]]:
    """The club's live match-pointed versions (their process entries in the schemes' log,
    graded by the NGS or not, S14.17) with dates of play. Reads the club's part of the log
    only: an upload's cost does not grow with the nation's."""
    entries = SchemeEntry.objects.filter(
        version__session__event__club=club, version__scoring="MP"
    ).annotate(day=F("version__session__date"))
    return [(e, e.day) for e in live_entries(entries)]


def club_sessions(
    *,
    club: Club,
    since: dt.date | None = None,
    entries: list[tuple[SchemeEntry, dt.date]] | None = None,
) -> list[ClubSession]:
    """The club's live versions that Brambledown rates (match-pointed pairs), played on
    or after ``since``, in the engine's order (date of play; ties by event id and session).
    ``entries``: ``club_entries(club=club)`` if the caller has it already."""
    entries = club_entries(club=club) if entries is None else entries
    chosen = [e for e, day in entries if since is None or day >= since]
    sessions = sessions_of(chosen)
    items = [
        ClubSession(e.version_id, sessions[e.version_id], e.host_pair or None)
        for e in chosen
        if not brambledown_why_not(sessions[e.version_id])
    ]
    return sorted(items, key=club_session_order)


def club_host_pairs(items: Iterable[ClubSession]) -> dict:
    """The approved host pairs of the sessions, as the engine looks them up (S3.9)."""
    return {session_identity(i.session): i.host_pair for i in items if i.host_pair}


def brambledown_club_update(
    *,
    club: Club,
    touched: dt.date | None = None,
    through: Quarter | None = None,
    replay: bool = False,
    entries: Sequence[SchemeEntry] | None = None,
) -> BrambledownUpdate:
    """Record the club's sessions of the open quarter from the state after its last regrade.

    Quarters up to ``through`` (and every quarter before the latest session's) are closed
    first. A ``touched`` date in a closed quarter (a late session, a correction, a withdrawal)
    or ``replay`` replays the club's sessions from the start. An upload that only adds a
    session to the latest quarter, after every one recorded, is recorded from its players'
    rows (``club_session_add``; ``entries``: the group of the log being folded), and the
    quarterly regrade closes the open quarter from the rows of those who played in it
    (``club_quarter_close``): the tables are those this full update stores
    (tests/schemes/test_brambledown_from_rows.py).
    """
    # (The snapshot, megabytes at a large club, is read only by the full update.)
    row, _ = (
        BrambledownClubState.objects.select_for_update().defer("snapshot").get_or_create(club=club)
    )
    regraded = quarter_of_text(row.regraded)
    done = None
    if not replay and (through is None or (regraded is not None and through <= regraded)):
        done = club_session_add(club=club, row=row, entries=entries)
    elif not replay and entries is None:  # the quarterly regrade (every entry folded)
        done = club_quarter_close(club=club, row=row, through=through)
    if done is not None:
        return done
    entries = club_entries(club=club)
    dates = [day for _, day in entries]
    club_log = SchemeEntry.objects.filter(version__session__event__club=club)
    row.seq = club_log.aggregate(last=Max("seq"))["last"] or 0
    row.latest = max(dates) if dates else None
    target = regraded
    if dates and Quarter.of(max(dates)) > Quarter.of(min(dates)):  # a quarter is over
        before_latest = Quarter.of(max(dates)).previous()
        target = before_latest if target is None or before_latest > target else target
    if through is not None and (target is None or through > target):
        target = through
    closing = target is not None and (regraded is None or target > regraded)
    in_closed = touched is not None and regraded is not None and Quarter.of(touched) <= regraded
    if closing or in_closed or replay or (regraded is not None and not row.snapshot):
        return _bd_replay(club, row, club_sessions(club=club, entries=entries), target)
    state = state_load(row.snapshot)
    since = state.quarter.start if state.quarter else None
    items = club_sessions(club=club, since=since, entries=entries)
    return _bd_open_quarter(club, row, state, items)


def _bd_open_quarter(
    club: Club, row: BrambledownClubState, state: BrambledownState, items
) -> BrambledownUpdate:
    """Record ``items`` of the open quarter from ``state``, the club's snapshot (decoded
    once: megabytes at a large club)."""
    open_q = state.quarter or (Quarter.of(items[0].session.date) if items else None)
    if state.quarter is None and open_q is not None:
        state = BrambledownState(state.players, state.pairs, open_q, state.regraded)
    ratings = []
    for item in items:
        if open_q is None or item.session.date not in open_q:
            continue  # in a closed quarter: already in the snapshot
        step = brambledown_apply(state, item.session, host_pair=item.host_pair)
        state = step.state
        ratings.append((item, step.ratings))
    since = open_q.start if open_q else None
    ratings_store(club, ratings, since=since)
    grades_store(club, state, quarter_of_text(row.regraded))
    _club_state_store(club, row, state, [item for item, _ in ratings])
    row.open_quarter = str(open_q) if open_q else ""
    row.sessions = sessions_rated(club)
    row.save()
    return BrambledownUpdate((), row.open_quarter, len(ratings), False)


def _club_state_store(club: Club, row, state: BrambledownState, recorded: list) -> None:
    """The state now in rows, and on the club's state what the open quarter holds (its
    sessions recorded, in order) for the next upload's ``club_session_add``."""
    rows_store(club=club, state=state)
    row.recorded = len(recorded)
    row.last_key = key_json(session_order(recorded[-1].session) if recorded else None)


def _bd_replay(club: Club, row, items, through: Quarter | None) -> BrambledownUpdate:
    old = quarter_of_text(row.regraded)
    if through is None:  # nothing to close: record the first quarter from empty
        row.snapshot, row.regraded = {}, ""
        return _bd_open_quarter(club, row, BrambledownState(), items)
    host_pairs = club_host_pairs(items)
    # The bulk replay: brambledown_replay's results (tests/engine/test_brambledown_bulk.py),
    # of whose closed quarters' states only the last one's is kept, the one used here.
    result = brambledown_replay_bulk([i.session for i in items], through, host_pairs=host_pairs)
    by_quarter: dict[Quarter, list[ClubSession]] = {}
    for item in items:
        by_quarter.setdefault(Quarter.of(item.session.date), []).append(item)
    ratings: list[tuple[ClubSession, SessionRatings]] = []
    BrambledownQuarter.objects.filter(club=club).delete()
    BrambledownListEntry.objects.filter(club=club).delete()
    for closed in result.quarters:
        ratings += list(zip(by_quarter.get(closed.quarter, []), closed.sessions, strict=True))
        quarter_store(club, closed)
    open_q = through.next()
    ratings += list(zip(by_quarter.get(open_q, []), result.open_sessions, strict=True))
    snapshot = (
        result.quarters[-1].state
        if result.quarters
        else BrambledownState(quarter=open_q, regraded=through)
    )
    ratings_store(club, ratings, since=None)
    row.regraded, row.open_quarter = str(through), str(open_q)
    row.snapshot = state_dump(snapshot)
    row.sessions = sessions_rated(club)  # as after an open quarter's update
    _club_state_store(club, row, result.state, by_quarter.get(open_q, []))
    row.save()
    grades_store(club, result.state, through)
    closed_now = tuple(str(q.quarter) for q in result.quarters if old is None or q.quarter > old)
    return BrambledownUpdate(closed_now, str(open_q), len(ratings), True)


def brambledown_club_passed(*, club: Club) -> None:
    """A step appended entries of a club that does not keep Brambledown (now): its rows, if
    it has any, no longer hold its log, and its next update is a full one."""
    BrambledownClubState.objects.filter(club=club).exclude(seq=0).update(seq=0)


def brambledown_regrade_club(*, club: Club, quarter: Quarter | str) -> BrambledownUpdate:
    """Close ``quarter`` at ``club`` (and any quarter before it still open): new grades and
    the A, B and pairs lists (S11). A quarter already closed is left as it is."""
    quarter = Quarter.parse(quarter) if isinstance(quarter, str) else quarter
    # the members' pages renewed once the close has committed, as after a fold: a grading
    # step renewing some of theirs meanwhile neither waits for it nor deadlocks with it
    with pages_renewed_after(), transaction.atomic():
        # No other fold of the log meanwhile: the club's entries not folded yet are folded
        # after it (a session of the closed quarter then replays the club), or before it
        # when the caller first catches the schemes up (``schemes_catch_up``), as the
        # quarterly task does.
        scheme_head_lock()
        return brambledown_club_update(club=club, through=quarter)


def brambledown_regrade_due(*, today: dt.date) -> dict[str, BrambledownUpdate]:
    """The quarterly task: close the quarter before ``today``'s at every club that keeps
    Brambledown grades. Idempotent: a quarter already closed is not regraded again."""
    quarter = Quarter.of(today).previous()
    return {
        club.slug: brambledown_regrade_club(club=club, quarter=quarter)
        for club in Club.objects.filter(keeps_brambledown=True).order_by("slug")
    }
