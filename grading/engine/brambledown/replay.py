"""Brambledown over many sessions (SPEC S11): a whole quarter in date order, and every quarter
from empty. Only quarters with sessions are regraded one by one: a quarter without any changes
no grade and lists no one, so a session dated decades (or centuries) before the others costs
one quarter, not every quarter in between (issue 21)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from grading.engine.brambledown.fold import (
    QuarterResult,
    brambledown_apply,
    brambledown_record,
    brambledown_regrade,
)
from grading.engine.brambledown.quarter import Quarter
from grading.engine.brambledown.session import SessionRatings
from grading.engine.brambledown.state import BrambledownState, brambledown_initial
from grading.engine.types import SessionResult


def session_order(session: SessionResult) -> tuple[dt.date, str, str, int]:
    """The order a club's sessions are recorded in (S11): date of play; ties by club, event
    id and session, so the result does not depend on upload order."""
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
    ordered = sorted(sessions, key=session_order)
    current, ratings = _record_all(current, ordered, host_pairs, within=quarter)
    result = brambledown_regrade(current, quarter)
    return replace(result, sessions=tuple(ratings))


def _record_all(
    state: BrambledownState,
    sessions: list[SessionResult],
    host_pairs: Mapping[tuple[str, str, int, dt.date], str] | None,
    *,
    within: Quarter | None = None,
) -> tuple[BrambledownState, list[SessionRatings]]:
    """``brambledown_apply`` of each session in turn, on one copy of the state's mappings
    (not one per session: a club's decade is thousands of sessions, issue 18)."""
    if not sessions:
        return state, []
    players, pairs = dict(state.players), dict(state.pairs)
    ratings = []
    for i, session in enumerate(sessions):
        if within is not None and session.date not in within:
            raise ValueError(f"session of {session.date} is not in {within}")
        host = (host_pairs or {}).get(session_identity(session))
        if i == 0:  # the checks (open quarter, not regraded) and the quarter it opens
            step = brambledown_apply(state, session, host_pair=host)
            state = step.state
            players, pairs = dict(state.players), dict(state.pairs)  # one copy for the rest
            ratings.append(step.ratings)
            continue
        if Quarter.of(session.date) != state.quarter:
            brambledown_apply(state, session, host_pair=host)  # raises, as the step would
        view = BrambledownState(players, pairs, state.quarter, state.regraded)
        ratings.append(brambledown_record(view, session, host, players, pairs))
    return BrambledownState(players, pairs, state.quarter, state.regraded), ratings


def session_identity(session: SessionResult) -> tuple[str, str, int, dt.date]:
    """A session's identity as ``host_pairs`` is keyed: club, event id, session, date."""
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
    are an error. Deterministic: the result depends on the set of sessions only.

    ``quarters`` holds the quarters with sessions and ``through`` itself: a quarter without
    sessions is passed over (regrading it would change nothing), so the work is bounded by
    the sessions, however far apart their dates."""
    through = Quarter.parse(through) if isinstance(through, str) else through
    ordered = sorted(sessions, key=session_order)
    state = brambledown_initial(initial or {})
    if not ordered:
        return BrambledownReplay((), replace(state, quarter=through.next(), regraded=through))
    by_quarter: dict[Quarter, list[SessionResult]] = {}
    for session in ordered:
        by_quarter.setdefault(Quarter.of(session.date), []).append(session)
    late = [q for q in by_quarter if q > through.next()]
    if late:
        raise ValueError(f"sessions in {min(late)} are after the open quarter {through.next()}")
    closing = sorted(q for q in by_quarter if q <= through)
    if closing and closing[-1] != through:
        closing.append(through)
    results = []
    for quarter in closing:
        if state.quarter is not None and state.quarter != quarter:
            state = replace(state, quarter=quarter, regraded=quarter.previous())  # none between
        result = brambledown_quarter(
            state, by_quarter.get(quarter, ()), quarter, host_pairs=host_pairs
        )
        results.append(result)
        state = result.state
    open_quarter = through.next()
    if state.quarter is None:
        state = replace(state, quarter=open_quarter)
    state, open_ratings = _record_all(state, by_quarter.get(open_quarter, []), host_pairs)
    return BrambledownReplay(tuple(results), state, tuple(open_ratings))
