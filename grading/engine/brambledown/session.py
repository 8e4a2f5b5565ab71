"""One Brambledown session (SPEC S11): every pair's PPR and every member's IPR from the grades
in a :class:`BrambledownState`, changing nothing."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from grading.engine.brambledown.formulas import field_average, ipr, new_player_ipr, ppr
from grading.engine.brambledown.state import BrambledownState
from grading.engine.ngs.session import host_pair_of
from grading.engine.scoring import Method, score_session
from grading.engine.types import PairEntry, Scoring, SessionResult


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
