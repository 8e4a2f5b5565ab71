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
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction
from django.db.models import F, Max

from clubs.models import Club
from grading.common.bulk import rows_sync
from grading.engine.brambledown import (
    BrambledownPlayer,
    BrambledownState,
    GradePoint,
    PairRecord,
    Quarter,
    QuarterResult,
    SessionRatings,
    brambledown_apply,
    brambledown_replay,
)
from grading.engine.brambledown import why_not_rated as brambledown_why_not
from grading.engine.types import SessionResult
from grading.ledger.lock import ledger_head_lock
from grading.models import (
    BrambledownClubState,
    BrambledownGrade,
    BrambledownListEntry,
    BrambledownPoint,
    BrambledownQuarter,
    BrambledownRating,
)
from grading.models.schemes import SchemeEntry
from grading.schemes.log import live_entries, members_by_number, sessions_of
from members.services import member_pages_invalidate

# --------------------------------------------------------------------------------------------
# The engine state as JSON (the state right after a regrade)


def _quarter(text: str | None) -> Quarter | None:
    return Quarter.parse(text) if text else None


def bd_state_dump(state: BrambledownState) -> dict:
    def counts(items):
        return [[str(q), n] for q, n in items]

    return {
        "quarter": str(state.quarter) if state.quarter else "",
        "regraded": str(state.regraded) if state.regraded else "",
        "players": [
            {
                "number": p.number,
                "grade": p.grade,
                "first_iprs": list(p.first_iprs),
                "quarter_iprs": list(p.quarter_iprs),
                "tournaments": p.tournaments,
                "quarters": counts(p.quarters),
                "partners": [[str(q), list(names)] for q, names in p.partners],
                "history": [
                    [h.date.isoformat(), str(h.quarter), h.grade, h.reason] for h in p.history
                ],
            }
            for p in state.players.values()
        ],
        "pairs": [
            {
                "players": list(r.players),
                "tournaments": r.tournaments,
                "quarters": counts(r.quarters),
            }
            for r in state.pairs.values()
        ],
    }


def bd_state_load(data: dict) -> BrambledownState:
    if not data:
        return BrambledownState()

    def counts(items):
        return tuple((Quarter.parse(q), int(n)) for q, n in items)

    players = {}
    for p in data["players"]:
        players[p["number"]] = BrambledownPlayer(
            number=p["number"],
            grade=p["grade"],
            first_iprs=tuple(p["first_iprs"]),
            quarter_iprs=tuple(p["quarter_iprs"]),
            tournaments=p["tournaments"],
            quarters=counts(p["quarters"]),
            partners=tuple((Quarter.parse(q), tuple(names)) for q, names in p["partners"]),
            history=tuple(
                GradePoint(dt.date.fromisoformat(d), Quarter.parse(q), g, r)
                for d, q, g, r in p["history"]
            ),
        )
    pairs = {}
    for r in data["pairs"]:
        key = (r["players"][0], r["players"][1])
        pairs[key] = PairRecord(key, r["tournaments"], counts(r["quarters"]))
    return BrambledownState(
        players, pairs, _quarter(data.get("quarter")), _quarter(data.get("regraded"))
    )


# --------------------------------------------------------------------------------------------
# The club's sessions, recorded and regraded


@dataclass(frozen=True)
class ClubSession:
    version_id: int
    session: SessionResult
    host_pair: str | None


def _session_order(item: ClubSession) -> tuple:
    key = item.session.key
    return (key.date, key.club, key.event_id, key.session)


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
    return sorted(items, key=_session_order)


def _host_pairs(items: Iterable[ClubSession]) -> dict:
    return {
        (
            i.session.key.club,
            i.session.key.event_id,
            i.session.key.session,
            i.session.date,
        ): i.host_pair
        for i in items
        if i.host_pair
    }


@dataclass(frozen=True)
class BrambledownUpdate:
    """What an update did: quarters closed now, the open quarter, sessions rated."""

    closed: tuple[str, ...]
    open_quarter: str
    sessions: int
    replayed: bool


def brambledown_club_update(
    *,
    club: Club,
    touched: dt.date | None = None,
    through: Quarter | None = None,
    replay: bool = False,
) -> BrambledownUpdate:
    """Record the club's sessions of the open quarter from the state after its last regrade.

    Quarters up to ``through`` (and every quarter before the latest session's) are closed
    first. A ``touched`` date in a closed quarter (a late session, a correction, a withdrawal)
    or ``replay`` replays the club's sessions from the start.
    """
    row, _ = BrambledownClubState.objects.select_for_update().get_or_create(club=club)
    regraded = _quarter(row.regraded)
    entries = club_entries(club=club)
    dates = [day for _, day in entries]
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
    state = bd_state_load(row.snapshot)
    since = state.quarter.start if state.quarter else None
    return _bd_open_quarter(club, row, club_sessions(club=club, since=since, entries=entries))


def _bd_open_quarter(club: Club, row: BrambledownClubState, items) -> BrambledownUpdate:
    state = bd_state_load(row.snapshot)
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
    _bd_store_ratings(club, ratings, since=since)
    _bd_store_grades(club, state, _quarter(row.regraded))
    row.open_quarter = str(open_q) if open_q else ""
    row.sessions = _sessions_rated(club)
    row.save()
    return BrambledownUpdate((), row.open_quarter, len(ratings), False)


def _sessions_rated(club: Club) -> int:
    """The club's sessions with a stored rating (the club state's count)."""
    return BrambledownRating.objects.filter(club=club).values("version").distinct().count()


def _bd_replay(club: Club, row, items, through: Quarter | None) -> BrambledownUpdate:
    old = _quarter(row.regraded)
    if through is None:  # nothing to close: record the first quarter from empty
        row.snapshot, row.regraded = {}, ""
        return _bd_open_quarter(club, row, items)
    host_pairs = _host_pairs(items)
    result = brambledown_replay([i.session for i in items], through, host_pairs=host_pairs)
    by_quarter: dict[Quarter, list[ClubSession]] = {}
    for item in items:
        by_quarter.setdefault(Quarter.of(item.session.date), []).append(item)
    ratings: list[tuple[ClubSession, SessionRatings]] = []
    BrambledownQuarter.objects.filter(club=club).delete()
    BrambledownListEntry.objects.filter(club=club).delete()
    for closed in result.quarters:
        ratings += list(zip(by_quarter.get(closed.quarter, []), closed.sessions, strict=True))
        _bd_store_quarter(club, closed)
    open_q = through.next()
    ratings += list(zip(by_quarter.get(open_q, []), result.open_sessions, strict=True))
    snapshot = (
        result.quarters[-1].state
        if result.quarters
        else BrambledownState(quarter=open_q, regraded=through)
    )
    _bd_store_ratings(club, ratings, since=None)
    row.regraded, row.open_quarter = str(through), str(open_q)
    row.snapshot = bd_state_dump(snapshot)
    row.sessions = _sessions_rated(club)  # as after an open quarter's update
    row.save()
    _bd_store_grades(club, result.state, through)
    closed_now = tuple(str(q.quarter) for q in result.quarters if old is None or q.quarter > old)
    return BrambledownUpdate(closed_now, str(open_q), len(ratings), True)


def _bd_store_quarter(club: Club, closed: QuarterResult) -> None:
    quarter = str(closed.quarter)
    BrambledownQuarter.objects.create(
        club=club,
        quarter=quarter,
        sessions=len(closed.sessions),
        changes=[[c.number, c.old, c.new, len(c.iprs)] for c in closed.changes],
    )
    numbers = [e.number for e in closed.a_list + closed.b_list]
    numbers += [n for e in closed.pairs_list for n in e.players]
    members = members_by_number(numbers)
    rows = []
    for kind, entries in (
        (BrambledownListEntry.Kind.A, closed.a_list),
        (BrambledownListEntry.Kind.B, closed.b_list),
    ):
        rows += [
            BrambledownListEntry(
                club=club,
                quarter=quarter,
                kind=kind,
                rank=rank,
                member=members[e.number],
                grade=e.grade,
                member_grade=e.grade,
                tournaments=e.tournaments,
                in_quarter=e.in_quarter,
                partners=e.partners,
            )
            for rank, e in enumerate(entries, start=1)
            if e.number in members
        ]
    rows += [
        BrambledownListEntry(
            club=club,
            quarter=quarter,
            kind=BrambledownListEntry.Kind.PAIRS,
            rank=rank,
            member=members[e.players[0]],
            partner=members[e.players[1]],
            grade=e.grade,
            member_grade=e.grades[0],
            partner_grade=e.grades[1],
            tournaments=e.tournaments,
            in_quarter=e.in_quarter,
        )
        for rank, e in enumerate(closed.pairs_list, start=1)
        if e.players[0] in members and e.players[1] in members
    ]
    BrambledownListEntry.objects.bulk_create(rows)


def _bd_store_ratings(club: Club, ratings, *, since: dt.date | None) -> None:
    """The club's ratings from ``since`` (all, if None) become ``ratings``; only the rows that
    changed are written (after an upload, usually just the new session's)."""
    stored = BrambledownRating.objects.filter(club=club)
    if since is not None:
        stored = stored.filter(date__gte=since)
    numbers = {n for _, r in ratings for p in r.players for n in (p.number, p.partner)}
    members = members_by_number(numbers)
    percent = {
        (id(r), pair.pair_id): pair for _, r in ratings for pair in r.pairs
    }  # the pairs' PPRs and percentages, by session
    rows = []
    for item, rated in ratings:
        for p in rated.players:
            pair = percent[(id(rated), p.pair_id)]
            if p.number not in members:
                continue
            partner = members.get(p.partner)
            rows.append(
                {
                    "club_id": club.pk,
                    "version_id": item.version_id,
                    "member_id": members[p.number].pk,
                    "partner_id": partner.pk if partner else None,
                    "date": rated.date,
                    "pair_id": p.pair_id,
                    "percent": pair.percent,
                    "field_average": rated.field_average,
                    "ppr": pair.ppr,
                    "own": p.own,
                    "partner_grade": p.partner_grade,
                    "ipr": p.ipr,
                }
            )
    rows_sync(stored, rows)


def _bd_store_grades(club: Club, state: BrambledownState, regraded: Quarter | None) -> None:
    """Every member's grade and history at the club, with the last closed quarter's lists."""
    members = members_by_number(state.players)
    quarter = str(regraded) if regraded else ""
    on_list = dict(
        BrambledownListEntry.objects.filter(club=club, quarter=quarter)
        .exclude(kind=BrambledownListEntry.Kind.PAIRS)
        .values_list("member_id", "kind")
    )
    last_dates = dict(
        BrambledownRating.objects.filter(club=club)
        .values("member_id")
        .annotate(last=Max("date"))
        .values_list("member_id", "last")
    )
    grades, points = [], []
    for number, player in sorted(state.players.items()):
        member = members.get(number)
        if member is None:
            continue
        grades.append(
            {
                "club_id": club.pk,
                "member_id": member.pk,
                "grade": player.grade,
                "performances": min(len(player.first_iprs), 3),
                "quarter_iprs": len(player.quarter_iprs),
                "tournaments": player.tournaments,
                "quarter": quarter,
                "on_a_list": on_list.get(member.pk) == BrambledownListEntry.Kind.A,
                "on_b_list": on_list.get(member.pk) == BrambledownListEntry.Kind.B,
                "last_date": last_dates.get(member.pk),
            }
        )
        points += [
            {
                "club_id": club.pk,
                "member_id": member.pk,
                "date": h.date,
                "quarter": str(h.quarter),
                "grade": h.grade,
                "reason": h.reason,
            }
            for h in player.history
        ]
    # Only what changed is written: after an upload, the grades of those who played.
    rows_sync(BrambledownGrade.objects.filter(club=club), grades)
    rows_sync(BrambledownPoint.objects.filter(club=club), points, group_by="member_id")
    member_pages_invalidate(member_ids=[member.pk for member in members.values()])


def brambledown_regrade_club(*, club: Club, quarter: Quarter | str) -> BrambledownUpdate:
    """Close ``quarter`` at ``club`` (and any quarter before it still open): new grades and
    the A, B and pairs lists (S11). A quarter already closed is left as it is."""
    quarter = Quarter.parse(quarter) if isinstance(quarter, str) else quarter
    with transaction.atomic():
        ledger_head_lock()  # no ledger step while the club's sessions are read
        return brambledown_club_update(club=club, through=quarter)


def brambledown_regrade_due(*, today: dt.date) -> dict[str, BrambledownUpdate]:
    """The quarterly task: close the quarter before ``today``'s at every club that keeps
    Brambledown grades. Idempotent: a quarter already closed is not regraded again."""
    quarter = Quarter.of(today).previous()
    return {
        club.slug: brambledown_regrade_club(club=club, quarter=quarter)
        for club in Club.objects.filter(keeps_brambledown=True).order_by("slug")
    }
