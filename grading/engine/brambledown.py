"""The Brambledown club grading system (SPEC S11, seed 003): a pure engine.

Standard library only: no Django, no clock, no settings. Three layers:

* the seed's formulas: :func:`ppr`, :func:`ipr`, :func:`new_player_ipr`, :func:`regrade`,
  and :func:`initial_grade` (how a percentage grade maps onto the scale that starts at 135);
* one session: :func:`brambledown_session` gives every pair's PPR and every member's IPR
  from the grades in a :class:`BrambledownState`, changing nothing;
* the fold: :func:`brambledown_apply` records a session in the open quarter,
  :func:`brambledown_regrade` closes the quarter (new grades, A, B and pairs lists),
  :func:`brambledown_quarter` does a whole quarter's sessions in date order and
  :func:`brambledown_replay` every quarter from empty. Nothing is mutated; every result is a
  frozen dataclass.

See ``docs/schemes.md`` for the design and ``docs/.decisions-schemes.md`` for the decisions.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from grading.engine.ngs.session import host_pair_of
from grading.engine.scoring import Method, score_session
from grading.engine.types import PairEntry, Scoring, SessionResult

__all__ = [
    "A_LIST_PARTNERS",
    "A_LIST_TOURNAMENTS",
    "B_LIST_TOURNAMENTS",
    "FULL_QUARTER",
    "NEW_PERFORMANCES",
    "PAIRS_LIST_TOURNAMENTS",
    "START",
    "BrambledownPlayer",
    "BrambledownReason",
    "BrambledownReplay",
    "BrambledownState",
    "BrambledownStep",
    "GradeChange",
    "GradePoint",
    "ListEntry",
    "PairListEntry",
    "PairRating",
    "PairRecord",
    "PlayerRating",
    "Quarter",
    "QuarterResult",
    "SessionRatings",
    "brambledown_apply",
    "brambledown_initial",
    "brambledown_quarter",
    "brambledown_regrade",
    "brambledown_replay",
    "brambledown_session",
    "field_average",
    "initial_grade",
    "ipr",
    "new_player_ipr",
    "pair_key",
    "ppr",
    "regrade",
    "round_half_up",
    "why_not_rated",
]

START = 135  # the scale's average player (seed 003)
NEW_PERFORMANCES = 3  # a new player gets a grade after three performances
FULL_QUARTER = 10  # with 10 or more IPRs in a quarter the new grade is their mean
A_LIST_TOURNAMENTS = 20
A_LIST_PARTNERS = 3
B_LIST_TOURNAMENTS = 3
PAIRS_LIST_TOURNAMENTS = 5


# --------------------------------------------------------------------------------------------
# The seed's formulas


def round_half_up(value: float) -> int:
    """The nearest integer, a half rounding up (173.5 -> 174; seed 003's 173.6 -> 174)."""
    return math.floor(value + 0.5)


def ppr(percent: float, field_average: float) -> float:
    """Partnership Performance Rating ``(sin(1.8 P - 90) + 1) x T``, degrees (S11, seed 003).

    0 % gives 0, 50 % gives ``T``, 100 % gives ``2T``.
    """
    return (math.sin(math.radians(1.8 * percent - 90)) + 1) * field_average


def ipr(own: float, partner: float, ppr: float) -> float:
    """Individual Performance Rating ``own + (PPR - (own + partner)/2)`` (S11, seed 003)."""
    return own + (ppr - (own + partner) / 2)


def new_player_ipr(ppr: float, partner: float) -> float:
    """A new player's IPR ``2 x PPR - partner``: the grade that would make the pair's
    expectation ``(own + partner)/2`` equal its PPR (S11)."""
    return 2 * ppr - partner


def regrade(old: float, iprs: Sequence[float]) -> int:
    """The quarterly regrade (S11, seed 003), rounded half up to an integer.

    With ``n >= 10`` IPRs the mean of the IPRs; with fewer ``(old x (10 - n) + sum) / 10``
    (no IPR: the old grade). Seed 003: 175 with 165, 154, 192 gives 173.6, so 174.
    """
    n = len(iprs)
    if n >= FULL_QUARTER:
        return round_half_up(sum(iprs) / n)
    return round_half_up((old * (FULL_QUARTER - n) + sum(iprs)) / FULL_QUARTER)


def initial_grade(percent: float, average: float = START) -> int:
    """A starting grade on the Brambledown scale for a player whose grade on a percentage
    scale (an NGS or PPI grade) is ``percent``: the PPR such a player earns with an equal
    partner in a field of average ``average`` (50 -> 135, 55 -> 156, 45 -> 114)."""
    return round_half_up(ppr(percent, average))


def field_average(grades: Iterable[float | None]) -> float:
    """``T``: the mean of the players' grades, a player without one (new or unknown) counting
    at the mean of the others (S11); 135 when nobody has a grade."""
    known = [g for g in grades if g is not None]
    return sum(known) / len(known) if known else float(START)


# --------------------------------------------------------------------------------------------
# Quarters


_QUARTER = re.compile(r"\s*(\d{4})\s*-?\s*[Qq]([1-4])\s*")


@dataclass(frozen=True, order=True)
class Quarter:
    """A calendar quarter, written ``2026Q4``."""

    year: int
    q: int

    def __post_init__(self) -> None:
        if not 1 <= self.q <= 4:
            raise ValueError(f"a quarter is 1 to 4, got {self.q}")

    @classmethod
    def parse(cls, text: str) -> Quarter:
        match = _QUARTER.fullmatch(text)
        if not match:
            raise ValueError(f"not a quarter (expected e.g. 2026Q4): {text!r}")
        return cls(int(match.group(1)), int(match.group(2)))

    @classmethod
    def of(cls, day: dt.date) -> Quarter:
        return cls(day.year, (day.month - 1) // 3 + 1)

    @property
    def start(self) -> dt.date:
        return dt.date(self.year, 3 * self.q - 2, 1)

    @property
    def end(self) -> dt.date:
        return self.next().start - dt.timedelta(days=1)

    def next(self) -> Quarter:
        return Quarter(self.year + 1, 1) if self.q == 4 else Quarter(self.year, self.q + 1)

    def previous(self) -> Quarter:
        return Quarter(self.year - 1, 4) if self.q == 1 else Quarter(self.year, self.q - 1)

    def __contains__(self, day: object) -> bool:
        return isinstance(day, dt.date) and Quarter.of(day) == self

    def __str__(self) -> str:
        return f"{self.year}Q{self.q}"


# --------------------------------------------------------------------------------------------
# State


def pair_key(a: str, b: str) -> tuple[str, str]:
    """The order-free key of two members."""
    return (a, b) if a <= b else (b, a)


@dataclass(frozen=True)
class GradePoint:
    """One value of a member's grade history: ``grade`` from ``date`` on, set by ``reason``
    (``"new"``: after three performances; ``"regrade"``: at the end of ``quarter``)."""

    date: dt.date
    quarter: Quarter
    grade: int
    reason: str


@dataclass(frozen=True)
class BrambledownPlayer:
    """One member's state (S11).

    ``grade`` is None while the member is new (fewer than three performances, kept in
    ``first_iprs``); ``quarter_iprs`` are the IPRs earned with a grade in the open quarter;
    ``tournaments`` counts graded tournaments (sessions with an IPR); ``partners`` lists, per
    quarter, the partners of those tournaments.
    """

    number: str
    grade: int | None = None
    first_iprs: tuple[float, ...] = ()
    quarter_iprs: tuple[float, ...] = ()
    tournaments: int = 0
    quarters: tuple[tuple[Quarter, int], ...] = ()  # graded tournaments per quarter
    partners: tuple[tuple[Quarter, tuple[str, ...]], ...] = ()
    history: tuple[GradePoint, ...] = ()

    @property
    def new(self) -> bool:
        return self.grade is None

    def tournaments_in(self, quarter: Quarter) -> int:
        return sum(count for q, count in self.quarters if q == quarter)

    def partners_in(self, quarters: Iterable[Quarter]) -> frozenset[str]:
        wanted = set(quarters)
        return frozenset(p for q, names in self.partners if q in wanted for p in names)


@dataclass(frozen=True)
class PairRecord:
    """Two members' graded tournaments together, in total and per quarter."""

    players: tuple[str, str]
    tournaments: int = 0
    quarters: tuple[tuple[Quarter, int], ...] = ()

    def tournaments_in(self, quarter: Quarter) -> int:
        return sum(count for q, count in self.quarters if q == quarter)


@dataclass(frozen=True)
class BrambledownState:
    """Every member's Brambledown state. ``quarter`` is the open quarter (sessions recorded,
    not yet regraded; None before the first session); ``regraded`` the last quarter closed."""

    players: Mapping[str, BrambledownPlayer] = field(default_factory=dict)
    pairs: Mapping[tuple[str, str], PairRecord] = field(default_factory=dict)
    quarter: Quarter | None = None
    regraded: Quarter | None = None

    def player(self, number: str) -> BrambledownPlayer:
        return self.players.get(number) or BrambledownPlayer(number)

    def grade(self, number: str) -> int | None:
        """A member's current grade; None while new."""
        return self.player(number).grade


def brambledown_initial(grades: Mapping[str, int]) -> BrambledownState:
    """A state whose members start with the given grades (e.g. a club's existing list, or
    :func:`initial_grade` of their NGS grades). Without it, every member starts new."""
    players = {n: BrambledownPlayer(n, grade=int(g)) for n, g in sorted(grades.items())}
    return BrambledownState(players=players)


# --------------------------------------------------------------------------------------------
# One session


class BrambledownReason:
    """Why a session, pair or player gets no rating."""

    NOT_GRADED = "session not graded"
    NOT_MP = "not match-pointed pairs: no Brambledown rating"
    NO_PAIRS = "fewer than two pairs: no Brambledown rating"
    NO_SCORE = "no score reported"
    UNKNOWN = "a player of the pair is unknown"
    HOST = "host \u2014 not graded"


def why_not_rated(session: SessionResult) -> str:
    """Why a session gets no Brambledown ratings, or "" (S11: match-pointed pairs only)."""
    if not session.graded_flag:
        return session.not_graded_reason or BrambledownReason.NOT_GRADED
    if session.scoring is not Scoring.MP:
        return BrambledownReason.NOT_MP
    if len(session.pairs) < 2:
        return BrambledownReason.NO_PAIRS
    return ""


@dataclass(frozen=True)
class PairRating:
    """A pair's PPR in one session; ``reason`` says why its players get no IPR ("" if they
    do; a host pair has a PPR but no IPRs)."""

    pair_id: str
    players: tuple[str | None, str | None]
    percent: float | None
    ppr: float | None
    reason: str = ""


@dataclass(frozen=True)
class PlayerRating:
    """A member's IPR in one session, with the grades used (``own`` None for a new member;
    ``partner`` is the partner's grade or, for a new partner, the field average)."""

    number: str
    pair_id: str
    partner: str
    own: int | None
    partner_grade: float
    ipr: float

    @property
    def new(self) -> bool:
        return self.own is None


@dataclass(frozen=True)
class SessionRatings:
    """Everything one session gives: ``reason`` "" when rated, ``T``, PPRs and IPRs."""

    date: dt.date
    reason: str
    field_average: float | None = None
    pairs: tuple[PairRating, ...] = ()
    players: tuple[PlayerRating, ...] = ()
    warnings: tuple[str, ...] = ()


def _percentages(session: SessionResult) -> dict[str, float]:
    """Each pair's percentage: its score, or from the travellers when the file gives none."""
    percent = {e.pair_id: float(e.score) for e in session.pairs if e.score is not None}
    missing = [e.pair_id for e in session.pairs if e.score is None]
    if missing and session.travellers:
        results = score_session(session.travellers, Method.MP)
        for pair_id in missing:
            scored = results.get(pair_id)
            if scored is not None and scored.percentage is not None:
                percent[pair_id] = scored.percentage
    return percent


def _members(entry: PairEntry) -> tuple[str, str] | None:
    a, b = entry.players
    if a.number is None or b.number is None or a.number == b.number:
        return None
    return a.number, b.number


def brambledown_session(
    state: BrambledownState, session: SessionResult, *, host_pair: str | None = None
) -> SessionRatings:
    """PPRs and IPRs of one match-pointed pairs session from the grades in ``state`` (S11).

    ``T`` is the mean grade of all players, new and unknown players counting at the mean of
    the others (135 if nobody has a grade). Each pair with a score gets ``PPR(P, T)``. Each
    member of a pair of two members gets an IPR: ``own + (PPR - (own + partner)/2)``, a new
    partner counting at ``T``; a new member gets ``2 x PPR - partner``, or the PPR itself
    when the partner is new too. Pairs with an unknown player, and the host pair (S14.4),
    get a PPR but no IPRs.
    """
    reason = why_not_rated(session)
    if reason:
        return SessionRatings(session.date, reason)
    host, warnings = host_pair_of(session, host_pair)
    grades = [
        state.grade(p.number) if p.number is not None else None
        for entry in session.pairs
        for p in entry.players
    ]
    average = field_average(grades)
    percent = _percentages(session)
    pairs: list[PairRating] = []
    players: list[PlayerRating] = []
    for entry in session.pairs:
        numbers = (entry.players[0].number, entry.players[1].number)
        p = percent.get(entry.pair_id)
        if p is None:
            pairs.append(PairRating(entry.pair_id, numbers, None, None, BrambledownReason.NO_SCORE))
            continue
        rating = ppr(p, average)
        members = _members(entry)
        why = ""
        if members is None:
            why = BrambledownReason.UNKNOWN
        elif entry.pair_id == host:
            why = BrambledownReason.HOST
        pairs.append(PairRating(entry.pair_id, numbers, p, rating, why))
        if members is None or why:
            continue
        for me, partner in (members, members[::-1]):
            own, theirs = state.grade(me), state.grade(partner)
            if own is None:
                partner_grade = float(theirs) if theirs is not None else rating
                value = new_player_ipr(rating, partner_grade)
            else:
                partner_grade = float(theirs) if theirs is not None else average
                value = ipr(own, partner_grade, rating)
            players.append(PlayerRating(me, entry.pair_id, partner, own, partner_grade, value))
    return SessionRatings(session.date, "", average, tuple(pairs), tuple(players), tuple(warnings))


# --------------------------------------------------------------------------------------------
# The fold


@dataclass(frozen=True)
class BrambledownStep:
    """The state after recording one session, and the session's ratings."""

    state: BrambledownState
    ratings: SessionRatings


Counts = tuple[tuple[Quarter, int], ...]


def _bump(counts: Counts, quarter: Quarter) -> Counts:
    table = dict(counts)
    table[quarter] = table.get(quarter, 0) + 1
    return tuple(sorted(table.items()))


def _add_partner(
    partners: tuple[tuple[Quarter, tuple[str, ...]], ...], quarter: Quarter, partner: str
) -> tuple[tuple[Quarter, tuple[str, ...]], ...]:
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
    ratings = brambledown_session(state, session, host_pair=host_pair)
    players = dict(state.players)
    pairs = dict(state.pairs)
    for rating in ratings.players:
        player = state.player(rating.number)
        if player.grade is None:
            first = player.first_iprs + (rating.ipr,)
            if len(first) >= NEW_PERFORMANCES:
                grade = round_half_up(sum(first) / len(first))
                point = GradePoint(session.date, quarter, grade, "new")
                history = player.history + (point,)
                player = replace(player, grade=grade, first_iprs=first, history=history)
            else:
                player = replace(player, first_iprs=first)
        else:
            player = replace(player, quarter_iprs=player.quarter_iprs + (rating.ipr,))
        players[rating.number] = replace(
            player,
            tournaments=player.tournaments + 1,
            quarters=_bump(player.quarters, quarter),
            partners=_add_partner(player.partners, quarter, rating.partner),
        )
    for key in sorted({pair_key(r.number, r.partner) for r in ratings.players}):
        record = pairs.get(key) or PairRecord(key)
        pairs[key] = replace(
            record, tournaments=record.tournaments + 1, quarters=_bump(record.quarters, quarter)
        )
    new_state = BrambledownState(players, pairs, state.quarter or quarter, state.regraded)
    return BrambledownStep(new_state, ratings)


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
        in_quarter = player.tournaments_in(quarter)
        if player.grade is None or in_quarter < 1:
            continue
        partners = len(player.partners_in(six_months))
        entry = ListEntry(number, player.grade, player.tournaments, in_quarter, partners)
        if player.tournaments >= A_LIST_TOURNAMENTS and partners >= A_LIST_PARTNERS:
            a_list.append(entry)
        elif player.tournaments >= B_LIST_TOURNAMENTS:
            b_list.append(entry)
    pairs_list: list[PairListEntry] = []
    for key, record in state.pairs.items():
        in_quarter = record.tournaments_in(quarter)
        if record.tournaments < PAIRS_LIST_TOURNAMENTS or in_quarter < 1:
            continue
        first, second = state.grade(key[0]), state.grade(key[1])
        if first is None or second is None:
            continue
        mean = (first + second) / 2
        pairs_list.append(PairListEntry(key, (first, second), mean, record.tournaments, in_quarter))

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


def _session_order(session: SessionResult) -> tuple[dt.date, str, str, int]:
    key = session.key
    return (key.date, key.club, key.event_id, key.session)


def brambledown_quarter(
    state: BrambledownState,
    sessions: Iterable[SessionResult],
    quarter: Quarter | str,
    *,
    host_pairs: Mapping[tuple[str, str, int, dt.date], str] | None = None,
) -> QuarterResult:
    """Record a quarter's sessions and regrade (S11). Sessions are taken in date order (ties
    by club, event id, session number), so the result does not depend on upload order.
    ``host_pairs`` maps a session's identity (club, event id, session, date) to an approved
    host pair. Every session must lie in ``quarter``."""
    quarter = Quarter.parse(quarter) if isinstance(quarter, str) else quarter
    current = state
    if current.quarter is None:
        current = replace(current, quarter=quarter)
    ratings = []
    for session in sorted(sessions, key=_session_order):
        if session.date not in quarter:
            raise ValueError(f"session of {session.date} is not in {quarter}")
        host = (host_pairs or {}).get(_identity(session))
        step = brambledown_apply(current, session, host_pair=host)
        current = step.state
        ratings.append(step.ratings)
    result = brambledown_regrade(current, quarter)
    return replace(result, sessions=tuple(ratings))


def _identity(session: SessionResult) -> tuple[str, str, int, dt.date]:
    key = session.key
    return (key.club, key.event_id, key.session, key.date)


@dataclass(frozen=True)
class BrambledownReplay:
    """A replay: every closed quarter in order, then the open quarter's state and ratings."""

    quarters: tuple[QuarterResult, ...]
    state: BrambledownState
    open_sessions: tuple[SessionRatings, ...] = ()


def brambledown_replay(
    sessions: Iterable[SessionResult],
    through: Quarter | str,
    *,
    initial: Mapping[str, int] | None = None,
    host_pairs: Mapping[tuple[str, str, int, dt.date], str] | None = None,
) -> BrambledownReplay:
    """Every quarter from the first session's through ``through``, regraded in turn (S11),
    then the next quarter's sessions recorded in the open quarter. Sessions later than that
    are an error. Deterministic: the result depends on the set of sessions only."""
    through = Quarter.parse(through) if isinstance(through, str) else through
    ordered = sorted(sessions, key=_session_order)
    state = brambledown_initial(initial or {})
    if not ordered:
        return BrambledownReplay((), replace(state, quarter=through.next(), regraded=through))
    by_quarter: dict[Quarter, list[SessionResult]] = {}
    for session in ordered:
        by_quarter.setdefault(Quarter.of(session.date), []).append(session)
    late = [q for q in by_quarter if q > through.next()]
    if late:
        raise ValueError(f"sessions in {min(late)} are after the open quarter {through.next()}")
    quarter = min(by_quarter)
    results = []
    while quarter <= through:
        result = brambledown_quarter(
            state, by_quarter.get(quarter, ()), quarter, host_pairs=host_pairs
        )
        results.append(result)
        state = result.state
        quarter = quarter.next()
    open_ratings = []
    if state.quarter is None:
        state = replace(state, quarter=quarter)
    for session in by_quarter.get(quarter, ()):
        step = brambledown_apply(
            state, session, host_pair=(host_pairs or {}).get(_identity(session))
        )
        state = step.state
        open_ratings.append(step.ratings)
    return BrambledownReplay(tuple(results), state, tuple(open_ratings))
