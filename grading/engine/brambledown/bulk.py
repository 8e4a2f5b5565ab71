"""Brambledown over a club's whole history at once (SPEC S11): the replay a rebuild uses, equal
to :func:`brambledown_replay` (tests/engine/test_brambledown_bulk.py) and much faster.

:func:`brambledown_replay` builds a frozen state per session and, at each regrade, walks every
member and partnership the club ever had. :func:`brambledown_replay_bulk` keeps one mutable
record per member and per partnership, regrades only the members with IPRs in the quarter and
draws up the lists from the members and pairs who played in it (no one else can be on them),
then freezes the two states a caller keeps: right after the last regrade (the snapshot the
steps record from) and at the end. Ratings come from the engine's own
:func:`brambledown_session`; the formulas are the engine's.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping

from grading.engine.brambledown.fold import (
    GradeChange,
    ListEntry,
    PairListEntry,
    QuarterResult,
    list_file,
    lists_sorted,
)
from grading.engine.brambledown.formulas import (
    NEW_PERFORMANCES,
    PAIRS_LIST_TOURNAMENTS,
    regrade,
    round_half_up,
)
from grading.engine.brambledown.quarter import Quarter
from grading.engine.brambledown.replay import (
    BrambledownReplay,
    session_identity,
    session_order,
)
from grading.engine.brambledown.session import SessionRatings, brambledown_session
from grading.engine.brambledown.state import (
    BrambledownPlayer,
    BrambledownState,
    GradePoint,
    PairRecord,
    pair_key,
)
from grading.engine.types import SessionResult

__all__ = ["brambledown_replay_bulk"]

HostPairs = Mapping[tuple[str, str, int, dt.date], str]


class _Member:
    __slots__ = ("first", "grade", "history", "iprs", "partners", "quarters", "tournaments")

    def __init__(self) -> None:
        self.grade: int | None = None
        self.first: list[float] = []
        self.iprs: list[float] = []
        self.tournaments = 0
        self.quarters: dict[Quarter, int] = {}  # in quarter order: sessions come in date order
        self.partners: dict[Quarter, set[str]] = {}
        self.history: list[GradePoint] = []


class _Pair:
    __slots__ = ("quarters", "tournaments")

    def __init__(self) -> None:
        self.tournaments = 0
        self.quarters: dict[Quarter, int] = {}


class _Grades:
    """What :func:`brambledown_session` reads of a state: the members' grades."""

    def __init__(self, members: dict[str, _Member]) -> None:
        self.members = members

    def grade(self, number: str) -> int | None:
        member = self.members.get(number)
        return member.grade if member is not None else None


class _Fold:
    def __init__(self) -> None:
        self.members: dict[str, _Member] = {}
        self.pairs: dict[tuple[str, str], _Pair] = {}
        self.grades = _Grades(self.members)
        self.played: set[str] = set()  # members with a tournament in the open quarter
        self.paired: set[tuple[str, str]] = set()
        self.rated: set[str] = set()  # members with IPRs to regrade from

    def record(self, session: SessionResult, quarter: Quarter, host: str | None):
        ratings = brambledown_session(self.grades, session, host_pair=host)  # type: ignore[arg-type]
        # A member named twice in one session counts once, by the last of their ratings (as
        # brambledown_apply, which computes each from the state before the session).
        last = {rating.number: rating for rating in ratings.players}
        for number, rating in last.items():
            member = self.members.get(number)
            if member is None:
                member = self.members[number] = _Member()
            if member.grade is None:
                member.first.append(rating.ipr)
                if len(member.first) >= NEW_PERFORMANCES:
                    member.grade = round_half_up(sum(member.first) / len(member.first))
                    member.history.append(GradePoint(session.date, quarter, member.grade, "new"))
            else:
                member.iprs.append(rating.ipr)
                self.rated.add(number)
            member.tournaments += 1
            member.quarters[quarter] = member.quarters.get(quarter, 0) + 1
            member.partners.setdefault(quarter, set()).add(rating.partner)
            self.played.add(number)
        for key in sorted({pair_key(r.number, r.partner) for r in ratings.players}):
            pair = self.pairs.get(key)
            if pair is None:
                pair = self.pairs[key] = _Pair()
            pair.tournaments += 1
            pair.quarters[quarter] = pair.quarters.get(quarter, 0) + 1
            self.paired.add(key)
        return ratings

    def regrade(self, quarter: Quarter) -> tuple[GradeChange, ...]:
        changes = []
        effective = quarter.next().start
        for number in sorted(self.rated):
            member = self.members[number]
            assert member.grade is not None  # a rated member has a grade
            iprs = tuple(member.iprs)
            new = regrade(member.grade, iprs)
            changes.append(GradeChange(number, member.grade, new, iprs))
            member.history.append(GradePoint(effective, quarter, new, "regrade"))
            member.grade, member.iprs = new, []
        self.rated = set()
        return tuple(changes)

    def lists(self, quarter: Quarter):
        """``fold._lists`` over those who played in the quarter (only they can be listed)."""
        a_list: list[ListEntry] = []
        b_list: list[ListEntry] = []
        pairs_list: list[PairListEntry] = []
        previous = quarter.previous()
        for number in self.played:
            member = self.members[number]
            if member.grade is None:
                continue
            in_quarter = member.quarters.get(quarter, 0)
            partners = len(
                member.partners.get(quarter, set()) | member.partners.get(previous, set())
            )
            entry = ListEntry(number, member.grade, member.tournaments, in_quarter, partners)
            list_file(entry, a_list, b_list)
        for key in self.paired:
            pair = self.pairs[key]
            if pair.tournaments < PAIRS_LIST_TOURNAMENTS:
                continue
            first, second = self.grades.grade(key[0]), self.grades.grade(key[1])
            if first is None or second is None:
                continue
            in_quarter = pair.quarters.get(quarter, 0)
            mean = (first + second) / 2
            pairs_list.append(
                PairListEntry(key, (first, second), mean, pair.tournaments, in_quarter)
            )
        self.played, self.paired = set(), set()
        return lists_sorted(a_list, b_list, pairs_list)

    def freeze(
        self, quarter: Quarter, regraded: Quarter | None, since: BrambledownState | None = None
    ) -> BrambledownState:
        """The state as the engine holds it; ``since``: a state frozen earlier, whose members
        and pairs who have not played since are taken as they are."""
        old_players = since.players if since is not None else {}
        old_pairs = since.pairs if since is not None else {}
        players = {}
        for number, m in self.members.items():
            frozen = old_players.get(number)
            if frozen is None or number in self.played:
                frozen = BrambledownPlayer(
                    number,
                    m.grade,
                    tuple(m.first),
                    tuple(m.iprs),
                    m.tournaments,
                    tuple(m.quarters.items()),
                    tuple((q, tuple(sorted(names))) for q, names in m.partners.items()),
                    tuple(m.history),
                )
            players[number] = frozen
        pairs = {}
        for key, p in self.pairs.items():
            record = old_pairs.get(key)
            if record is None or key in self.paired:
                record = PairRecord(key, p.tournaments, tuple(p.quarters.items()))
            pairs[key] = record
        return BrambledownState(players, pairs, quarter, regraded)


def brambledown_replay_bulk(
    sessions: Iterable[SessionResult],
    through: Quarter | str,
    *,
    host_pairs: HostPairs | None = None,
) -> BrambledownReplay:
    """:func:`brambledown_replay` from empty (no initial grades), except that of the closed
    quarters' states only the last one's is kept (the others are empty states): every
    quarter's regrades, lists and ratings, the open quarter's ratings, and the final state
    are the replay's."""
    through = Quarter.parse(through) if isinstance(through, str) else through
    ordered = sorted(sessions, key=session_order)
    open_quarter = through.next()
    if not ordered:
        return BrambledownReplay((), BrambledownState(quarter=open_quarter, regraded=through))
    by_quarter: dict[Quarter, list[SessionResult]] = {}
    for session in ordered:
        by_quarter.setdefault(Quarter.of(session.date), []).append(session)
    late = [q for q in by_quarter if q > open_quarter]
    if late:
        raise ValueError(f"sessions in {min(late)} are after the open quarter {open_quarter}")
    closing = sorted(q for q in by_quarter if q <= through)
    if closing and closing[-1] != through:
        closing.append(through)
    fold = _Fold()
    hosts = host_pairs or {}
    results = []
    for quarter in closing:
        ratings = _record(fold, by_quarter.get(quarter, ()), quarter, hosts)
        changes = fold.regrade(quarter)
        a_list, b_list, pairs_list = fold.lists(quarter)
        results.append(
            QuarterResult(quarter, BrambledownState(), changes, a_list, b_list, pairs_list, ratings)
        )
    snapshot = fold.freeze(open_quarter, through)  # right after the last regrade
    if results:
        last = results[-1]
        results[-1] = QuarterResult(
            last.quarter,
            snapshot,
            last.changes,
            last.a_list,
            last.b_list,
            last.pairs_list,
            last.sessions,
        )
    open_ratings = _record(fold, by_quarter.get(open_quarter, ()), open_quarter, hosts)
    regraded = through if results else None  # (the replay regrades nothing then)
    state = fold.freeze(open_quarter, regraded, since=snapshot)
    return BrambledownReplay(tuple(results), state, open_ratings)


def _record(
    fold: _Fold, sessions: Iterable[SessionResult], quarter: Quarter, hosts: HostPairs
) -> tuple[SessionRatings, ...]:
    return tuple(fold.record(s, quarter, hosts.get(session_identity(s))) for s in sessions)
