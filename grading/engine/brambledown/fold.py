"""Brambledown's fold (SPEC S11): a session recorded in the open quarter, and the quarterly
regrade with the A, B and pairs lists."""

from __future__ import annotations

from dataclasses import dataclass, replace

from grading.engine.brambledown.formulas import (
    A_LIST_PARTNERS,
    A_LIST_TOURNAMENTS,
    B_LIST_TOURNAMENTS,
    NEW_PERFORMANCES,
    PAIRS_LIST_TOURNAMENTS,
    regrade,
    round_half_up,
)
from grading.engine.brambledown.quarter import Quarter
from grading.engine.brambledown.session import SessionRatings, brambledown_session
from grading.engine.brambledown.state import (
    BrambledownPlayer,
    BrambledownState,
    GradePoint,
    PairRecord,
    pair_key,
)
from grading.engine.types import SessionResult


@dataclass(frozen=True)
class BrambledownStep:
    """The state after recording one session, and the session's ratings."""

    state: BrambledownState
    ratings: SessionRatings


Counts = tuple[tuple[Quarter, int], ...]


def _bump(counts: Counts, quarter: Quarter) -> Counts:
    if counts:  # sessions come in date order: the open quarter is the table's last, or new
        last, n = counts[-1]
        if last is quarter or (last.year == quarter.year and last.q == quarter.q):
            return counts[:-1] + ((last, n + 1),)
        if (last.year, last.q) < (quarter.year, quarter.q):
            return counts + ((quarter, 1),)
    table = dict(counts)
    table[quarter] = table.get(quarter, 0) + 1
    return tuple(sorted(table.items()))


def _add_partner(
    partners: tuple[tuple[Quarter, tuple[str, ...]], ...], quarter: Quarter, partner: str
) -> tuple[tuple[Quarter, tuple[str, ...]], ...]:
    if partners:  # as in _bump: the open quarter is the last, or new
        last, names = partners[-1]
        if last is quarter or (last.year == quarter.year and last.q == quarter.q):
            if partner in names:
                return partners
            return partners[:-1] + ((last, tuple(sorted((*names, partner)))),)
        if (last.year, last.q) < (quarter.year, quarter.q):
            return partners + ((quarter, (partner,)),)
    table = dict(partners)
    table[quarter] = tuple(sorted(set(table.get(quarter, ())) | {partner}))
    return tuple(sorted(table.items()))


def brambledown_apply(
    state: BrambledownState, session: SessionResult, *, host_pair: str | None = None
) -> BrambledownStep:
    """Record one session in the open quarter (S11) and return its ratings.

    Members with a grade add their IPR to the quarter's IPRs (used at the regrade); a new
    member adds it to their first performances and, at the third, gets the rounded mean of
    the three as their grade at once. Every member with an IPR counts a graded tournament
    and the partner. The session must lie in the open quarter (the first session opens it);
    a session of a closed quarter needs a replay (:func:`brambledown_replay`).
    """
    quarter = Quarter.of(session.date)
    if state.quarter is not None and quarter != state.quarter:
        raise ValueError(
            f"session of {session.date} is not in the open quarter {state.quarter}: "
            + ("regrade the open quarter first" if quarter > state.quarter else "replay")
        )
    if state.regraded is not None and quarter <= state.regraded:
        raise ValueError(f"quarter {quarter} is already regraded: replay")
    players, pairs = dict(state.players), dict(state.pairs)
    ratings = brambledown_record(state, session, host_pair, players, pairs)
    new_state = BrambledownState(players, pairs, state.quarter or quarter, state.regraded)
    return BrambledownStep(new_state, ratings)


def brambledown_record(
    state: BrambledownState,
    session: SessionResult,
    host_pair: str | None,
    players: dict[str, BrambledownPlayer],
    pairs: dict[tuple[str, str], PairRecord],
) -> SessionRatings:
    """:func:`brambledown_apply`'s work without its checks and copies: the session's ratings
    from ``state``'s grades, the players and pairs it changes written into ``players`` and
    ``pairs`` (the caller's own mappings, holding ``state``'s; a replay keeps one per
    quarter instead of copying them for every session, issue 18)."""
    quarter = Quarter.of(session.date)
    ratings = brambledown_session(state, session, host_pair=host_pair)
    before = {r.number: state.player(r.number) for r in ratings.players}  # none written yet
    for rating in ratings.players:
        player = before[rating.number]
        grade, first, iprs, history = (
            player.grade,
            player.first_iprs,
            player.quarter_iprs,
            player.history,
        )
        if grade is None:
            first = first + (rating.ipr,)
            if len(first) >= NEW_PERFORMANCES:
                grade = round_half_up(sum(first) / len(first))
                history = history + (GradePoint(session.date, quarter, grade, "new"),)
        else:
            iprs = iprs + (rating.ipr,)
        players[rating.number] = BrambledownPlayer(  # one new player (no replace(): hot)
            player.number,
            grade,
            first,
            iprs,
            player.tournaments + 1,
            _bump(player.quarters, quarter),
            _add_partner(player.partners, quarter, rating.partner),
            history,
        )
    for key in sorted({pair_key(r.number, r.partner) for r in ratings.players}):
        record = pairs.get(key) or PairRecord(key)
        pairs[key] = PairRecord(key, record.tournaments + 1, _bump(record.quarters, quarter))
    return ratings


@dataclass(frozen=True)
class GradeChange:
    """A member's regrade at the end of a quarter: ``old`` -> ``new`` from ``iprs``."""

    number: str
    old: int
    new: int
    iprs: tuple[float, ...]


@dataclass(frozen=True)
class ListEntry:
    """A member on the A or B list: grade, graded tournaments in total and in the quarter,
    partners in the last six months."""

    number: str
    grade: int
    tournaments: int
    in_quarter: int
    partners: int


@dataclass(frozen=True)
class PairListEntry:
    """A partnership on the pairs list: the two grades and their mean (the PPR the system
    expects of the pair), graded tournaments together in total and in the quarter."""

    players: tuple[str, str]
    grades: tuple[int, int]
    grade: float
    tournaments: int
    in_quarter: int


@dataclass(frozen=True)
class QuarterResult:
    """A closed quarter: the state after regrading (open at the next quarter), each regrade,
    and the A, B and pairs lists (best first; ties by number)."""

    quarter: Quarter
    state: BrambledownState
    changes: tuple[GradeChange, ...]
    a_list: tuple[ListEntry, ...]
    b_list: tuple[ListEntry, ...]
    pairs_list: tuple[PairListEntry, ...]
    sessions: tuple[SessionRatings, ...] = ()


def _lists(
    state: BrambledownState, quarter: Quarter
) -> tuple[tuple[ListEntry, ...], tuple[ListEntry, ...], tuple[PairListEntry, ...]]:
    """The A, B and pairs lists at the end of ``quarter`` (S11). "The last quarter" is the
    quarter regraded; "the last six months" are it and the quarter before."""
    a_list: list[ListEntry] = []
    b_list: list[ListEntry] = []
    six_months = (quarter, quarter.previous())
    for number, player in state.players.items():
        if player.grade is None or player.tournaments < B_LIST_TOURNAMENTS:
            continue  # on no list (the cheap tests first: every member, every quarter)
        in_quarter = player.tournaments_in(quarter)
        if in_quarter < 1:
            continue
        partners = len(player.partners_in(six_months))
        entry = ListEntry(number, player.grade, player.tournaments, in_quarter, partners)
        list_file(entry, a_list, b_list)
    pairs_list: list[PairListEntry] = []
    for key, record in state.pairs.items():
        if record.tournaments < PAIRS_LIST_TOURNAMENTS:
            continue
        in_quarter = record.tournaments_in(quarter)
        if in_quarter < 1:
            continue
        first, second = state.grade(key[0]), state.grade(key[1])
        if first is None or second is None:
            continue
        mean = (first + second) / 2
        pairs_list.append(PairListEntry(key, (first, second), mean, record.tournaments, in_quarter))
    return lists_sorted(a_list, b_list, pairs_list)


def list_file(entry: ListEntry, a_list: list[ListEntry], b_list: list[ListEntry]) -> None:
    """Put a member on the A list (enough tournaments and partners) or the B list (enough
    tournaments), or on neither (S11)."""
    if entry.tournaments >= A_LIST_TOURNAMENTS and entry.partners >= A_LIST_PARTNERS:
        a_list.append(entry)
    elif entry.tournaments >= B_LIST_TOURNAMENTS:
        b_list.append(entry)


def lists_sorted(
    a_list: list[ListEntry], b_list: list[ListEntry], pairs_list: list[PairListEntry]
) -> tuple[tuple[ListEntry, ...], tuple[ListEntry, ...], tuple[PairListEntry, ...]]:
    """The lists in their published order: highest grade first, then by number (S11)."""

    def by_grade(entry: ListEntry) -> tuple[int, str]:
        return (-entry.grade, entry.number)

    return (
        tuple(sorted(a_list, key=by_grade)),
        tuple(sorted(b_list, key=by_grade)),
        tuple(sorted(pairs_list, key=lambda e: (-e.grade, e.players))),
    )


def brambledown_regrade(state: BrambledownState, quarter: Quarter | str) -> QuarterResult:
    """Close ``quarter`` (S11): every member with IPRs in it gets :func:`regrade` of their
    grade and those IPRs; the lists are drawn up; the next quarter opens."""
    quarter = Quarter.parse(quarter) if isinstance(quarter, str) else quarter
    if state.quarter is not None and state.quarter != quarter:
        raise ValueError(f"the open quarter is {state.quarter}, not {quarter}")
    if state.regraded is not None and quarter <= state.regraded:
        raise ValueError(f"quarter {quarter} is already regraded")
    players = dict(state.players)
    changes = []
    effective = quarter.next().start
    for number in sorted(players):
        player = players[number]
        if player.grade is None or not player.quarter_iprs:
            continue
        new = regrade(player.grade, player.quarter_iprs)
        changes.append(GradeChange(number, player.grade, new, player.quarter_iprs))
        point = GradePoint(effective, quarter, new, "regrade")
        players[number] = replace(
            player, grade=new, quarter_iprs=(), history=player.history + (point,)
        )
    closed = BrambledownState(players, state.pairs, quarter.next(), quarter)
    a_list, b_list, pairs_list = _lists(closed, quarter)
    return QuarterResult(quarter, closed, tuple(changes), a_list, b_list, pairs_list)
