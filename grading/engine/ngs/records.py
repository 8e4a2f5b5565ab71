"""One session's per-pair and per-member results (S3.4, S3.5, S3.8, S3.9, S6, S9.1, S14.10):
the working figures of a pair while ``grade_session`` grades it, and the outcome, member and
partnership records made from them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from grading.engine.ngs.params import NGSParams
from grading.engine.ngs.terms import imps_named, par
from grading.engine.ngs.types import (
    PairOutcome,
    PartnershipKey,
    PartnershipSessionGrade,
    PlayerSessionGrade,
    PlayerStanding,
    Reason,
    Status,
    partnership_key,
)
from grading.engine.types import PairEntry, Scoring, SessionResult


@dataclass
class WorkingPair:
    """Working figures of one pair while a session is graded."""

    entry: PairEntry
    group: str
    boards: int
    reported: bool
    score: float | None = None
    term: float | None = None
    mean: float | None = None
    value: float = 0.0
    grades: tuple[float, float] | None = None  # members' standings (known pairs)
    sopp: float | None = None


def pair_outcome(
    item: WorkingPair, host: str | None, session: SessionResult, params: NGSParams
) -> PairOutcome:
    own = item.value
    excess = par_value = None
    if item.sopp is not None and item.term is not None:
        excess = item.term + item.sopp - own
    if item.sopp is not None and (
        session.scoring is not Scoring.AGGREGATE or item.mean is not None
    ):
        imps = imps_named(session)
        par_value = par(
            session.scoring, own, own, item.sopp, item.boards, item.mean, params, imps=imps
        )
    numbers = (item.entry.players[0].number, item.entry.players[1].number)
    return PairOutcome(
        pair_id=item.entry.pair_id,
        numbers=numbers,
        known=item.entry.known,
        host=item.entry.pair_id == host,
        boards=item.boards,
        boards_reported=item.reported,
        score=item.score,
        score_term=item.term,
        grade_value=own,
        sopp=item.sopp,
        par=par_value,
        excess=excess,
        group=item.group,
    )


def player_records(
    item: WorkingPair,
    outcome: PairOutcome,
    standings: dict[str, PlayerStanding],
    host: str | None,
    factor: float,
    params: NGSParams,
) -> list[PlayerSessionGrade]:
    """Each member's session grade (S3.4) or the reason they have none (S3.8, S3.9, S9.1)."""
    a, b = item.entry.players
    records = []
    for me, partner in ((a, b), (b, a)):
        if me.number is None:
            continue
        mine = standings[me.number]
        theirs = standings.get(partner.number) if partner.number is not None else None
        base = PlayerSessionGrade(
            number=me.number,
            pair_id=item.entry.pair_id,
            partner=partner.number,
            grade_before=mine.grade,
            partner_grade=None,
            sopp=None,
            score_term=None,
            excess=None,
            regular_adjustment=0.0,
            gain=params.gain,
            par=None,
            boards=item.boards,
            boards_reported=item.reported,
            factor=factor,
            session_grade=None,
        )
        if theirs is None:
            records.append(replace(base, reason=Reason.PARTNER_UNKNOWN))
            continue
        adjustment = 0.0
        if mine.regular_partner == partner.number and theirs.regular_partner == me.number:
            adjustment = params.rpcf * (theirs.grade - mine.grade) / 2
        record = replace(
            base,
            partner_grade=theirs.grade,
            sopp=outcome.sopp,
            score_term=outcome.score_term,
            excess=outcome.excess,
            par=outcome.par,
            regular_adjustment=adjustment,
        )
        reason = player_reason(outcome, host, mine, theirs, params)
        if reason or outcome.excess is None:
            records.append(replace(record, reason=reason))
        else:
            sg = mine.grade + adjustment + params.gain * outcome.excess
            records.append(replace(record, session_grade=sg))
    return records


def player_reason(
    outcome: PairOutcome,
    host: str | None,
    mine: PlayerStanding,
    theirs: PlayerStanding,
    params: NGSParams,
) -> str:
    if outcome.pair_id == host:
        return Reason.HOST
    if outcome.sopp is None:
        return Reason.NO_OPPONENTS
    if outcome.score_term is None:
        return Reason.NO_SCORE
    limit = params.new_partner_min_boards
    if limit is not None and mine.status is Status.MATURE and theirs.graded_boards < limit:
        return Reason.PARTNER_NEW
    return ""


def partnership_record(
    item: WorkingPair,
    records: list[PlayerSessionGrade],
    partnership_grades: Mapping[PartnershipKey, float],
    factor: float,
    params: NGSParams,
) -> PartnershipSessionGrade | None:
    """S6/S14.10: only when both players got session grades; no regular-pair term."""
    if len(records) != 2 or not all(r.graded for r in records):
        return None
    assert item.grades is not None and item.sopp is not None and item.term is not None
    a, b = records[0].number, records[1].number
    key = partnership_key(a, b)
    average = sum(item.grades) / 2
    before = partnership_grades.get(key, average)
    excess = item.term + item.sopp - before
    return PartnershipSessionGrade(
        key=key,
        pair_id=item.entry.pair_id,
        grade_before=before,
        pair_average=average,
        sopp=item.sopp,
        score_term=item.term,
        excess=excess,
        boards=item.boards,
        factor=factor,
        session_grade=before + params.gain * excess,
    )
