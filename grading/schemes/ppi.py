"""PPI (S10) on the database: a fold of the schemes' log (``grading.schemes.log``).

PPI is national, like the NGS. The log's new entries are applied in order by the task that
follows the ledger's steps (``schemes_catch_up``, :func:`ppi_after_entry`): a version
processed is one event, board by board when it has travellers, at session level otherwise, match-pointed only (the engine decides); a withdrawal
(and so every correction, which withdraws the old version first) is undone by
:func:`ppi_undo`, which replays only what the withdrawn event reached: its players from the
event on, and every later event that one of them played in, with all that event's players
(issue 21: a withdrawal used to rebuild every member's PPI). ``SchemeHead.ppi_seq`` records
the last entry folded; an entry that does not follow it (an existing database, a failed step)
rebuilds PPI by replaying the live versions. :func:`ppi_check` compares the stored figures
with a replay from empty.
"""

from __future__ import annotations

import datetime as dt
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from grading.common.stale import member_pages_invalidate
from grading.engine.ppi import PPIPlayer, PPIState, month_index, ppi_apply, ppi_standing
from grading.engine.ppi import PPIPoint as EnginePoint
from grading.engine.ppi.formulas import W_MONTHS
from grading.engine.types import SessionResult
from grading.models import PPIPoint, PPIRating, SchemeHead
from grading.models.schemes import SchemeEntry
from grading.schemes.log import (
    PROCESS,
    last_seq,
    live_entries,
    members_by_number,
    scheme_head_lock,
    sessions_of,
)
from members.models import Member


def ppi_after_entry(*, entry: SchemeEntry, head: SchemeHead) -> None:
    """Apply one entry of the schemes' log to PPI: a process entry is one event, a withdrawal
    is undone; an entry that does not follow the last one folded (a gap) replays. ``head``:
    the schemes' head, locked by the caller (``scheme_head_lock``)."""
    if entry.seq <= head.ppi_seq:
        return  # already folded (a rebuild included it)
    if head.ppi_seq != entry.seq - 1:
        ppi_rebuild(head=head)
        return
    if entry.operation == PROCESS:
        _ppi_apply_entry(entry)
    else:
        ppi_undo(entry=entry)
    head.ppi_seq = entry.seq
    head.save(update_fields=["ppi_seq"])


def _player_of(row: PPIRating, first: int) -> tuple[PPIPlayer, list]:
    """A stored rating as the engine's player, with the months of its table from month index
    ``first`` on, and the stored months before (kept as they are). The table is sorted (the
    engine's), so the split is a bisection: a decade of months is not converted at each
    upload."""
    cut = bisect_left(row.months, [first])
    months = tuple((int(m), int(n)) for m, n in row.months[cut:])
    return PPIPlayer(row.member.national_number, row.ppi, row.boards, months), row.months[:cut]


def _numbers(session: SessionResult) -> set[str]:
    return {p.number for pair in session.pairs for p in pair.players if p.number}


def _ppi_apply_entry(entry: SchemeEntry) -> None:
    session = sessions_of([entry])[entry.version_id]
    # The engine reads a member's month table from 3 months before the event's month (w) to
    # the event's month (the standing after it, as of the event's date): S10.
    first = month_index(session.date) - W_MONTHS
    rows = PPIRating.objects.filter(member__national_number__in=_numbers(session))
    players, earlier = {}, {}
    for row in rows.select_related("member"):
        player, before = _player_of(row, first)
        players[player.number], earlier[player.number] = player, before
    state = PPIState(players, entry.seq - 1)
    step = ppi_apply(state, session, host_pair=entry.host_pair or None)
    changed = {change.number: entry.seq for change in step.result.changes}
    _ppi_store(step.state.players, changed, {entry.seq: entry.version_id}, earlier)


def _ppi_store(
    players: Mapping[str, PPIPlayer],
    since: dict[str, int],
    versions: dict[int, int],
    earlier: Mapping[str, list] | None = None,
) -> int:
    """Store the PPI of the members in ``since`` from ``players`` (the engine's state): their
    rating, and their history points from event ``since[number]`` on (earlier points are
    kept). A member the state no longer rates loses the rating. ``earlier``: the stored months
    of each member's table before those the engine was given. Returns the rows written."""
    if not since:
        return 0
    members = members_by_number(since)
    by_start: dict[int, list[int]] = defaultdict(list)
    for number, start in since.items():
        if number in members:
            by_start[start].append(members[number].pk)
    for start, ids in by_start.items():
        PPIPoint.objects.filter(member_id__in=ids, seq__gte=start).delete()
    PPIRating.objects.filter(member__in=members.values()).delete()
    ratings, points = [], []
    for number, start in sorted(since.items()):
        member, player = members.get(number), players.get(number)
        if member is None or player is None or not player.history:
            continue
        row = PPIRating(member=member)
        _ppi_fill(row, player, player.history[-1].seq, (earlier or {}).get(number, []))
        ratings.append(row)
        points += [
            _ppi_point(member, p, versions.get(p.seq)) for p in player.history if p.seq >= start
        ]
    # Replacing the rows is a few statements; an UPDATE of each row would be one CASE per field.
    PPIRating.objects.bulk_create(ratings, batch_size=1000)
    PPIPoint.objects.bulk_create(points, batch_size=1000)
    return len(ratings) + len(points)


def _ppi_fill(row: PPIRating, player: PPIPlayer, seq: int, earlier: list | None = None) -> None:
    as_of = player.history[-1].date if player.history else dt.date.today()
    standing = ppi_standing(PPIState({player.number: player}), player.number, as_of)
    row.ppi, row.boards = player.ppi, player.boards
    row.months = [*(earlier or ()), *(list(pair) for pair in player.months)]
    row.recent_boards, row.shown, row.active = (
        standing.recent_boards,
        standing.shown,
        standing.active,
    )
    row.suit, row.as_of, row.seq = standing.suit.value, as_of, seq


def _ppi_point(member: Member, point: EnginePoint, version_id: int | None) -> PPIPoint:
    return PPIPoint(
        member=member,
        version_id=version_id,
        seq=point.seq,
        date=point.date,
        ppi=point.ppi,
        boards=point.boards,
        total_boards=point.total_boards,
    )


# --------------------------------------------------------------------------------------------
# A withdrawal: replay what the withdrawn event reached, nothing else


def ppi_undo(*, entry: SchemeEntry) -> int:
    """Take a withdrawn version's event out of PPI (S10, S5.3). Only the members it reached
    are replayed: its players from the event on, then, through every later live event in
    order, each event that holds a member already reached (all of that event's players are
    reached from it on). Each reached member starts from their stored history before the
    point they were reached (PPI, boards, month table: the history holds them all). Returns
    the PPI rows written (ratings and history points)."""
    processed = (
        SchemeEntry.objects.filter(
            version_id=entry.version_id, operation=PROCESS, seq__lt=entry.seq
        )
        .order_by("-seq")
        .first()
    )
    if processed is None:
        return 0
    later = live_entries(SchemeEntry.objects.filter(seq__gt=processed.seq, seq__lt=entry.seq))
    sessions = sessions_of([processed, *later])
    since = dict.fromkeys(_numbers(sessions[processed.version_id]), processed.seq)
    replayed = []
    for later_entry in later:
        numbers = _numbers(sessions[later_entry.version_id])
        if numbers.isdisjoint(since):
            continue  # no one reached plays here: the event's figures stand
        for number in numbers - since.keys():
            since[number] = later_entry.seq
        replayed.append(later_entry)
    players = _players_before(since)
    for later_entry in replayed:
        state = PPIState(players, later_entry.seq - 1)
        session = sessions[later_entry.version_id]
        players = dict(
            ppi_apply(state, session, host_pair=later_entry.host_pair or None).state.players
        )
    versions = {e.seq: e.version_id for e in replayed}
    written = _ppi_store(players, since, versions)
    member_pages_invalidate(
        member_ids=list(
            Member.objects.filter(national_number__in=since).values_list("pk", flat=True)
        )
    )
    return written


def _players_before(since: dict[str, int]) -> dict[str, PPIPlayer]:
    """Each member's PPI state just before event ``since[number]``, from the stored history
    (in the database's fold every event is one session, so a point's boards fall in its
    date's month)."""
    history: dict[str, list[EnginePoint]] = defaultdict(list)
    points = PPIPoint.objects.filter(member__national_number__in=since).order_by("seq")
    for number, seq, date, ppi, boards, total in points.values_list(
        "member__national_number", "seq", "date", "ppi", "boards", "total_boards"
    ):
        if seq < since[number]:
            history[number].append(EnginePoint(seq, date, ppi, boards, total))
    players = {}
    for number, kept in history.items():
        months: dict[int, int] = defaultdict(int)
        for point in kept:
            months[month_index(point.date)] += point.boards
        last = kept[-1]
        players[number] = PPIPlayer(
            number, last.ppi, last.total_boards, tuple(sorted(months.items())), tuple(kept)
        )
    return players


# --------------------------------------------------------------------------------------------
# From empty: the definition of every stored figure


@dataclass(frozen=True)
class PPIFold:
    """PPI replayed from empty over the live versions: the state and, per scheme entry, the
    version that event was."""

    state: PPIState
    versions: dict[int, int]
    last_seq: int


def ppi_fold() -> PPIFold:
    """Replay the live versions in processing order (each as one event, numbered by its
    entry in the schemes' log so histories point back at it). Same inputs, same state: this
    is the definition of every stored PPI figure."""
    entries = live_entries()
    sessions = sessions_of(entries)
    state = PPIState()
    for entry in entries:
        numbered = PPIState(state.players, entry.seq - 1)
        state = ppi_apply(
            numbered, sessions[entry.version_id], host_pair=entry.host_pair or None
        ).state
    return PPIFold(state, {e.seq: e.version_id for e in entries}, last_seq())


def ppi_rebuild(*, head: SchemeHead | None = None) -> int:
    """Recompute every stored PPI figure by replaying the live versions. Returns the number of
    members rated. Call it inside a transaction holding the schemes' head lock (``head``, or
    taken here)."""
    fold = ppi_fold()
    PPIPoint.objects.all().delete()
    PPIRating.objects.all().delete()
    members = members_by_number(fold.state.players)
    ratings, points = [], []
    for number, player in sorted(fold.state.players.items()):
        member = members.get(number)
        if member is None:
            continue
        row = PPIRating(member=member)
        _ppi_fill(row, player, player.history[-1].seq if player.history else 0)
        ratings.append(row)
        points += [_ppi_point(member, p, fold.versions.get(p.seq)) for p in player.history]
    PPIRating.objects.bulk_create(ratings, batch_size=1000)
    PPIPoint.objects.bulk_create(points, batch_size=1000)
    member_pages_invalidate()
    head = head or scheme_head_lock()
    head.ppi_seq = fold.last_seq
    head.save(update_fields=["ppi_seq"])
    return len(ratings)


def ppi_check(tol: float = 1e-9) -> list[str]:
    """Replay PPI from empty and list every stored figure it does not reproduce."""
    fold = ppi_fold()
    problems = []
    stored = {r.member.national_number: r for r in PPIRating.objects.select_related("member")}
    history: dict[int, list[tuple]] = {}
    for point in PPIPoint.objects.order_by("seq").values_list(
        "member_id", "seq", "ppi", "total_boards", "version_id"
    ):
        history.setdefault(point[0], []).append(point[1:])
    for number, player in sorted(fold.state.players.items()):
        row = stored.pop(number, None)
        if row is None:
            problems.append(f"member {number}: PPI missing")
            continue
        months = [list(pair) for pair in player.months]
        if abs(row.ppi - player.ppi) > tol or row.boards != player.boards or row.months != months:
            problems.append(
                f"member {number}: stored {row.ppi} over {row.boards} boards, "
                f"computed {player.ppi} over {player.boards}"
            )
        points = history.get(row.member_id, [])
        expected = [
            (p.seq, p.ppi, p.total_boards, fold.versions.get(p.seq)) for p in player.history
        ]
        if len(points) != len(expected) or any(
            (a[0], a[2], a[3]) != (b[0], b[2], b[3]) or abs(a[1] - b[1]) > tol
            for a, b in zip(points, expected, strict=False)
        ):
            problems.append(f"member {number}: PPI history differs from the replay")
    problems += [f"member {n}: PPI stored but not given by the replay" for n in stored]
    return problems
