"""PPI's fold (SPEC S10): reading a session (board by board with travellers, at session level
without), one event applied to a :class:`PPIState`, and a replay from empty."""

from __future__ import annotations

import datetime as dt
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from grading.engine.ngs.session import host_pair_of
from grading.engine.ppi.formulas import DEFAULT_BOARDS, BoardTerm, event_delta
from grading.engine.ppi.state import (
    PPIChange,
    PPIEventResult,
    PPIPlayer,
    PPIPoint,
    PPIReason,
    PPIState,
    PPIStep,
    month_index,
)
from grading.engine.scoring import Method, TravellerLine, group_by_board, score_board
from grading.engine.types import Direction, Movement, PairEntry, Scoring, SessionResult


def why_not_rated(session: SessionResult) -> str:
    """Why a session changes no PPI, or "" (S10: match-pointed pairs events only)."""
    if not session.graded_flag:
        return session.not_graded_reason or PPIReason.NOT_GRADED
    if session.scoring is not Scoring.MP:
        return PPIReason.NOT_MP
    return ""


@dataclass
class _Tally:
    """One member's accumulation over an event (mutable, private to one step)."""

    runs: list[tuple[int, list[BoardTerm]]] = field(default_factory=list)  # (w, boards)
    months: dict[int, int] = field(default_factory=dict)
    mode: str = ""


def _players_of(entry: PairEntry) -> tuple[str, str] | None:
    """The two members of a pair, or None when either is unknown."""
    a, b = entry.players
    if a.number is None or b.number is None:
        return None
    return a.number, b.number


def _board_percentages(
    travellers: Sequence[TravellerLine],
) -> list[tuple[int, TravellerLine, float, float]]:
    """Each line's NS and EW percentages, boards in ascending number (S2.2, S2.3).

    Every board is factored to the largest traveller of the session, as ``score_session``
    does, so the board percentages average to the session percentage.
    """
    boards = group_by_board(travellers)
    expected = max((len(lines) for lines in boards.values()), default=0)
    rows = []
    for number in sorted(boards):
        result = score_board(boards[number], Method.MP, expected)
        for line, scored in zip(boards[number], result.lines, strict=True):
            ns, ew = scored.ns_percent, scored.ew_percent
            if ns is None or ew is None:  # a lone line: nothing to compare with
                continue
            rows.append((number, line, float(ns), float(ew)))
    return rows


def board_by_board(
    session: SessionResult,
    entries: Mapping[str, PairEntry],
    host: str | None,
    ppi: Mapping[str, float],
) -> dict[str, list[BoardTerm]]:
    """Each rated member's boards in one session with travellers (S10)."""
    terms: dict[str, list[BoardTerm]] = defaultdict(list)
    for _, line, ns_percent, ew_percent in _board_percentages(session.travellers):
        ns_entry, ew_entry = entries.get(line.ns_pair), entries.get(line.ew_pair)
        if ns_entry is None or ew_entry is None:
            continue  # a pair the file does not name: players unknown
        ns, ew = _players_of(ns_entry), _players_of(ew_entry)
        if ns is None or ew is None:
            continue  # an unknown player at the table: the board counts for no one at it
        sides = (
            (ns_entry, ns, ew, ns_percent),
            (ew_entry, ew, ns, ew_percent),
        )
        for entry, own, opponents, percent in sides:
            if entry.pair_id == host:
                continue
            c, d = (ppi[number] for number in opponents)
            for me, partner in ((own[0], own[1]), (own[1], own[0])):
                terms[me].append(BoardTerm(ppi[partner], c, d, percent))
    return terms


def _opponent_pairs(entry: PairEntry, session: SessionResult) -> list[PairEntry]:
    """Who a pair played against, without travellers: the pairs of the other direction in a
    two-winner movement, every other pair otherwise."""
    others = [other for other in session.pairs if other.pair_id != entry.pair_id]
    if session.movement is Movement.TWO_WINNER and entry.direction is not None:
        facing = Direction.EW if entry.direction is Direction.NS else Direction.NS
        return [other for other in others if other.direction is facing]
    return others


def _session_level(
    session: SessionResult, host: str | None, ppi: Mapping[str, float]
) -> dict[str, list[BoardTerm]]:
    """Each rated member's boards in one session without travellers (S10).

    A pair's ``n`` boards (24 when not reported, S3.7) are applied at its session percentage
    against the average PPI of its known opponents; boards against pairs with an unknown
    player count for no one, so ``n`` is scaled by the share of known opponent pairs.
    """
    terms: dict[str, list[BoardTerm]] = {}
    for entry in session.pairs:
        own = _players_of(entry)
        if own is None or entry.pair_id == host or entry.score is None:
            continue
        opponents = _opponent_pairs(entry, session)
        known = [pair for pair in (_players_of(o) for o in opponents) if pair is not None]
        if not known:
            continue
        n = entry.boards if entry.boards is not None else DEFAULT_BOARDS
        n = math.floor(n * len(known) / len(opponents) + 0.5)
        opp = sum(ppi[x] + ppi[y] for x, y in known) / (2 * len(known))
        for me, partner in ((own[0], own[1]), (own[1], own[0])):
            terms[me] = [BoardTerm(ppi[partner], opp, opp, float(entry.score))] * n
    return terms


def ppi_apply(state: PPIState, session: SessionResult, *, host_pair: str | None = None) -> PPIStep:
    """Process one session as one event (S10): see :func:`ppi_apply_event`."""
    hosts = {0: host_pair} if host_pair is not None else None
    return ppi_apply_event(state, [session], host_pairs=hosts)


def ppi_apply_event(
    state: PPIState,
    sessions: Sequence[SessionResult],
    *,
    host_pairs: Mapping[int, str] | None = None,
) -> PPIStep:
    """Process the sessions of one event, in the order given, and write the new PPIs (S10).

    Every board uses the four players' PPIs from the start of the event; each member's ``k``
    grows board by board (sessions in order, boards in ascending number); ``w`` is the
    member's boards in the 3 calendar months before the session's month. Sessions with
    travellers are rated board by board, others at session level. Sessions that are not
    match-pointed (or not graded) are skipped; a non-rateable (host) pair (S14.4, or
    ``host_pairs[i]`` for session ``i``) is not rated but counts as opponents.
    """
    seq = state.seq + 1
    rated = [(i, s) for i, s in enumerate(sessions) if not why_not_rated(s)]
    date = max((s.date for s in sessions), default=dt.date.min)
    if not rated:
        reason = why_not_rated(sessions[0]) if sessions else PPIReason.NO_BOARDS
        return PPIStep(PPIState(state.players, seq), PPIEventResult(seq, date, reason))
    start = {
        number: state.player(number).ppi
        for _, session in rated
        for entry in session.pairs
        for player in entry.players
        if (number := player.number) is not None
    }
    tallies: dict[str, _Tally] = defaultdict(_Tally)
    warnings: list[str] = []
    for i, session in rated:
        requested = host_pairs.get(i) if host_pairs else None
        host, ignored = host_pair_of(session, requested)
        warnings.extend(ignored)
        entries = {entry.pair_id: entry for entry in session.pairs}
        if session.travellers:
            terms = board_by_board(session, entries, host, start)
            mode = PPIReason.BOARD_BY_BOARD
        else:
            terms = _session_level(session, host, start)
            mode = PPIReason.SESSION_LEVEL
        for number, played in terms.items():
            if not played:
                continue
            tally = tallies[number]
            w = state.player(number).w_for(session.date)
            tally.runs.append((w, played))
            month = month_index(session.date)
            tally.months[month] = tally.months.get(month, 0) + len(played)
            tally.mode = mode if tally.mode in ("", mode) else "mixed"
    players = dict(state.players)
    changes = []
    for number in sorted(tallies):
        tally = tallies[number]
        player = state.player(number)
        k = player.boards
        delta = 0.0
        for w, run in tally.runs:  # w may differ between sessions in different months
            part, counted = event_delta(player.ppi, k, w, run)
            delta += part
            k += counted
        after = player.ppi + delta
        boards = k - player.boards
        months = dict(player.months)
        for month, count in tally.months.items():
            months[month] = months.get(month, 0) + count
        point = PPIPoint(seq, date, after, boards, k)
        players[number] = PPIPlayer(
            number, after, k, tuple(sorted(months.items())), player.history + (point,)
        )
        first_w = tally.runs[0][0]
        changes.append(
            PPIChange(number, player.ppi, after, boards, player.boards, first_w, tally.mode)
        )
    reason = "" if changes else PPIReason.NO_BOARDS
    result = PPIEventResult(seq, date, reason, tuple(changes), tuple(warnings))
    return PPIStep(PPIState(players, seq), result)


def ppi_replay(sessions: Iterable[SessionResult], state: PPIState | None = None) -> PPIState:
    """Fold sessions, each as one event, in the order given (processing order), from empty
    or from ``state``. Deterministic: the same sessions in the same order give the same state.
    Corrections and withdrawals are a replay of the live versions."""
    current = state if state is not None else PPIState()
    for session in sessions:
        current = ppi_apply(current, session).state
    return current
