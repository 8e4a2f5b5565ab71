"""NGS session grades (S3): which sessions are graded, SOpp, score terms, par and excess.

``grade_session`` is a pure function of the session and the members' standings at its start;
the ledger fold (``ledger``) supplies those standings.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Protocol

from grading.engine.ngs.params import NGS_DEFAULT, NGSParams
from grading.engine.ngs.records import (
    WorkingPair,
    pair_outcome,
    partnership_record,
    player_records,
)
from grading.engine.ngs.terms import (
    PAIRS_SCORING,
    SWISS_PAIRS_SCORING,
    TEAMS_SCORING,
    imp_factor,
    imps_named,
    par,
    score_term,
)
from grading.engine.ngs.types import (
    PartnershipKey,
    PartnershipSessionGrade,
    PlayerSessionGrade,
    PlayerStanding,
    Reason,
    SessionOutcome,
)
from grading.engine.scoring import group_by_board, score_session
from grading.engine.types import (
    Direction,
    Movement,
    PairEntry,
    Scoring,
    SessionResult,
    TravellerLine,
)

__all__ = [
    "PAIRS_SCORING",
    "SWISS_PAIRS_SCORING",
    "TEAMS_SCORING",
    "why_not_graded",
    "grade_session",
    "score_term",
    "par",
    "teams_cross_imps",
    "host_pair_of",
    "comparison_group",
    "table_opponents",
    "sopp_tables",
    "unknown_pair_figures",
]


# --------------------------------------------------------------------------- graded or not


def why_not_graded(
    session: SessionResult, params: NGSParams = NGS_DEFAULT, host_pair: str | None = None
) -> str:
    """The reason a session version is not graded, or "" when it is (S3.1, S3.8, S14.3, S9.1).

    Depends only on the session and its host pair (an approved request, ``host_pair``, or the
    file's mark; never on grades), so the caller can decide before taking a sequence number
    (S14.9).
    """
    if not session.graded_flag:
        return session.not_graded_reason or Reason.CLUB_NON_GRADED
    if session.scoring is Scoring.INDIVIDUAL:
        return Reason.INDIVIDUAL
    if session.scoring is Scoring.HEAD_TO_HEAD:
        return Reason.HEAD_TO_HEAD
    if session.scoring is Scoring.POINT_A_BOARD:
        return Reason.POINT_A_BOARD
    if len(session.pairs) < 2:
        return Reason.NO_PAIRS
    if session.scoring is Scoring.TEAM_LEAGUE and not _more_than_two_tables(session):
        return Reason.TWO_TABLES
    share = params.known_threshold
    host, _ = host_pair_of(session, host_pair)
    if params.known_by_players:
        # S9.1 counts graded members: a player without a membership number is not one, even in
        # the host pair (the host-pair rule of S14.3 is about counting pairs). Counting them
        # let a session with no known pair at all through, which has no SoF (S3.8).
        known = sum(p.known for pair in session.pairs for p in pair.players)
        total = 2 * len(session.pairs)
        if known * share.denominator <= share.numerator * total:
            return Reason.TOO_FEW_KNOWN_PLAYERS
    elif known_pairs(session, host) * share.denominator <= share.numerator * len(session.pairs):
        return Reason.TOO_FEW_KNOWN
    return ""


def known_pairs(session: SessionResult, host: str | None) -> int:
    """Pairs whose players all have membership numbers; a host pair counts as known (S14.3)."""
    return sum(pair.known or pair.pair_id == host for pair in session.pairs)


def _more_than_two_tables(session: SessionResult) -> bool:
    """Whether each board was played at more than two tables (S3.1): from travellers if any,
    else from the number of pairs (each table seats two)."""
    if session.travellers:
        tables: dict[int, int] = defaultdict(int)
        for line in session.travellers:
            tables[line.board] += 1
        return min(tables.values()) > 2
    return len(session.pairs) > 4


def host_pair_of(
    session: SessionResult, requested: str | None = None
) -> tuple[str | None, tuple[str, ...]]:
    """The host pair (S3.9, S14.4) and warnings: an approved request wins, else the first pair
    marked non-rateable in the file; other non-rateable pairs are graded as usual."""
    marked = [pair.pair_id for pair in session.pairs if not pair.rateable]
    return host_pair_among((pair.pair_id for pair in session.pairs), marked, requested)


def host_pair_among(
    pair_ids: Iterable[str], marked: Sequence[str], requested: str | None = None
) -> tuple[str | None, tuple[str, ...]]:
    """:func:`host_pair_of` for a session given as its pairs' ids (looked through only when
    there is a host to find among them) and those marked non-rateable, each in the file's
    order (a rebuild reads pairs as columns, not objects)."""
    host = requested if requested is not None else (marked[0] if marked else None)
    if host is not None and host not in pair_ids:
        return None, (f"host pair {host} is not in the session; ignored",)
    ignored = tuple(
        f"pair {pid} is also marked non-rateable; only one host pair per session is honoured"
        for pid in marked
        if pid != host
    )
    return host, ignored


# --------------------------------------------------------------------------- teams cross-IMPs


def teams_cross_imps(travellers: Sequence[TravellerLine]) -> dict[str, tuple[float, int]]:
    """Per-pair cross-IMPs of a teams session from its travellers (S3.6, S2.5).

    Each pair's score on a board is compared with every other table's score in the same
    direction (averaged per comparison) and summed over its boards; adjusted, split and
    weighted scores are the scoring engine's business (``scoring.score_session``). Returns
    ``{pair_id: (cross_imps, boards)}``; a board played at a single table counts for nobody.
    """
    compared = [lines for lines in group_by_board(travellers).values() if len(lines) > 1]
    if not compared:
        return {}
    results = score_session(compared, "CROSS_IMP")
    return {pid: (float(r.total), r.boards_played) for pid, r in results.items()}


# --------------------------------------------------------------------------- score term, par


# --------------------------------------------------------------------------- grading


def grade_session(
    session: SessionResult,
    grades: Mapping[str, PlayerStanding | float],
    params: NGSParams = NGS_DEFAULT,
    *,
    host_pair: str | None = None,
    partnership_grades: Mapping[PartnershipKey, float] | None = None,
) -> SessionOutcome:
    """Grade one session version (S3).

    ``grades`` holds each known member's standing (or bare current grade) at the start of the
    session (S5.2); a member missing from it is new and starts at the initial grade for this
    session's weighting (S5.1). ``partnership_grades`` holds partnership grades at the start;
    a missing partnership starts at the average of its players' grades (S6, S14.10).
    """
    reason = why_not_graded(session, params, host_pair)
    host, warnings = host_pair_of(session, host_pair)
    known = known_pairs(session, host)
    if reason:
        return SessionOutcome(session.key, False, reason, None, known, len(session.pairs))
    standings = _session_standings(session, grades, params)
    pairs = _working_pairs(session, params, standings)
    sof = _assign_values(pairs)
    by_id = {item.entry.pair_id: item for item in pairs}
    extra = _assign_sopp(pairs, by_id, session, params)
    warnings += extra
    pair_outcomes = tuple(pair_outcome(item, host, session, params) for item in pairs)
    players: list[PlayerSessionGrade] = []
    partnerships: list[PartnershipSessionGrade] = []
    factor = params.factor(session.weighting)
    for item, outcome in zip(pairs, pair_outcomes, strict=True):
        records = player_records(item, outcome, standings, host, factor, params)
        players.extend(records)
        ps = partnership_record(item, records, partnership_grades or {}, factor, params)
        if ps is not None:
            partnerships.append(ps)
    return SessionOutcome(
        key=session.key,
        graded=True,
        reason="",
        sof=sof,
        known_pairs=known,
        total_pairs=len(session.pairs),
        pairs=pair_outcomes,
        players=tuple(players),
        partnerships=tuple(partnerships),
        host_pair=host,
        warnings=warnings,
    )


def unknown_pair_figures(
    session: SessionResult,
    grades: Mapping[str, PlayerStanding | float],
    params: NGSParams = NGS_DEFAULT,
) -> dict[str, float]:
    """The S3.8 figure ``h_u = s_u + SoF_group`` of each unknown pair's players, by pair id,
    as ``grade_session`` uses it in every SOpp (``grades`` as there: the known members'
    standings at the start). The results page's strata place an unknown player by it (S16)."""
    if len(session.pairs) < 2:
        return {}
    standings = _session_standings(session, grades, params)
    pairs = _working_pairs(session, params, standings)
    if not any(item.grades is not None for item in pairs):
        return {}
    _assign_values(pairs)
    return {item.entry.pair_id: item.value for item in pairs if item.grades is None}


def _working_pairs(
    session: SessionResult, params: NGSParams, standings: Mapping[str, PlayerStanding]
) -> list:
    """The session's pairs as grading works on them: their figures in the S3.3 form and the
    known pairs' grades at the start (``grade_session`` and ``unknown_pair_figures`` alike)."""
    ximps = _teams_figures(session)
    pairs = [_working_pair(pair, session, params, ximps) for pair in session.pairs]
    _fill_aggregate_means(pairs, session, params)
    for item in pairs:
        if item.entry.known:
            a, b = item.entry.players
            assert a.number is not None and b.number is not None
            item.grades = (standings[a.number].grade, standings[b.number].grade)
    return pairs


def _session_standings(
    session: SessionResult, grades: Mapping[str, PlayerStanding | float], params: NGSParams
) -> dict[str, PlayerStanding]:
    """Each player's standing at the start, by number; a player without one starts at the
    first grade of the session's weighting (S4)."""
    return {
        p.number: _standing(grades.get(p.number), session.weighting, params)
        for pair in session.pairs
        for p in pair.players
        if p.number is not None
    }


def _standing(
    value: PlayerStanding | float | None, weighting: int, params: NGSParams
) -> PlayerStanding:
    if value is None:
        return PlayerStanding(params.first_grade(weighting))
    if isinstance(value, PlayerStanding):
        return value
    return PlayerStanding(float(value))


def _teams_figures(session: SessionResult) -> dict[str, tuple[float, int]]:
    """S3.6: where a teams upload has travellers, the product computes each pair's cross-IMPs
    (and the boards that had a comparison) itself; the file's per-pair totals serve only
    pairs without traveller lines."""
    if session.scoring in TEAMS_SCORING and session.travellers:
        return teams_cross_imps(session.travellers)
    return {}


def comparison_group(scoring: Scoring, movement: Movement, direction: Direction | None) -> str:
    """The S3.2/S14.3 comparison group of a pair: its direction ("NS", "EW") for two-winner
    pairs and for teams, else the whole field (""). Swiss pairs count the whole field. Pages
    that hide figures for privacy (S14.14) ask this, so they hide what the grading averaged."""
    if scoring in SWISS_PAIRS_SCORING or direction is None:
        return ""
    if scoring in TEAMS_SCORING or movement is Movement.TWO_WINNER:
        return direction.value
    return ""


def _group(pair: PairEntry, session: SessionResult) -> str:
    return comparison_group(session.scoring, session.movement, pair.direction)


def _matches_of(session: SessionResult, pair_id: str):
    return [m for m in session.matches if m.pair_id == pair_id]


def _working_pair(
    pair: PairEntry,
    session: SessionResult,
    params: NGSParams,
    ximps: dict[str, tuple[float, int]],
) -> WorkingPair:
    matches = _matches_of(session, pair.pair_id)
    boards = pair.boards
    score = pair.score
    if pair.pair_id in ximps:
        score, boards = ximps[pair.pair_id]
    if boards is None and matches:
        boards = sum(m.boards for m in matches)
    reported = boards is not None and boards > 0
    x = boards if boards is not None and boards > 0 else params.default_boards
    item = WorkingPair(pair, _group(pair, session), x, reported, score)
    if session.scoring in SWISS_PAIRS_SCORING and matches and all(m.boards for m in matches):
        item.term = _swiss_term(session, matches, params)
    elif score is not None and session.scoring is not Scoring.AGGREGATE:
        imps = imps_named(session)
        item.term = score_term(session.scoring, score, item.boards, params, imps=imps)
    return item


def _swiss_term(session: SessionResult, matches, params: NGSParams) -> float:
    """Swiss pairs: the board-weighted result over the matches, before any VPs (S3.1, S3.3);
    IMPs with the factor of the kind the file names (S14.23)."""
    boards = sum(m.boards for m in matches)
    if session.scoring is Scoring.SWISS_PAIRS_MP:
        return sum(m.boards * (m.score - 50.0) for m in matches) / boards
    factor = imp_factor(session.scoring, params, imps_named(session))
    return factor * sum(m.score for m in matches) / boards


def _fill_aggregate_means(
    pairs: list[WorkingPair], session: SessionResult, params: NGSParams
) -> None:
    """Aggregate: the direction mean as given, else the comparison group's mean (S14.12)."""
    if session.scoring is not Scoring.AGGREGATE:
        return
    scores: dict[str, list[float]] = defaultdict(list)
    for item in pairs:
        if item.score is not None:
            scores[item.group].append(item.score)
    for item in pairs:
        if item.score is None:
            continue
        mean = item.entry.direction_mean
        if mean is None:
            group = scores[item.group]
            mean = sum(group) / len(group)
        item.mean = mean
        item.term = score_term(Scoring.AGGREGATE, item.score, item.boards, params, mean)


def _assign_values(pairs: list[WorkingPair]) -> float:
    """Each pair's grade as opponents; unknowns get ``h_u = s_u + SoF_group`` (S3.8, S14.3).

    Returns the session's SoF: the average grade of all players.
    """
    known_sum: dict[str, float] = defaultdict(float)
    known_players: dict[str, int] = defaultdict(int)
    unknown_sum: dict[str, float] = defaultdict(float)
    for item in pairs:
        if item.grades is not None:
            known_sum[item.group] += sum(item.grades)
            known_players[item.group] += 2
        else:
            unknown_sum[item.group] += 2 * (item.term or 0.0)
    total_known = sum(known_players.values())
    field_sof = (sum(known_sum.values()) + sum(unknown_sum.values())) / total_known
    for item in pairs:
        if item.grades is not None:
            item.value = sum(item.grades) / 2
            continue
        m = known_players[item.group]
        group_sof = (known_sum[item.group] + unknown_sum[item.group]) / m if m else field_sof
        item.value = (item.term or 0.0) + group_sof
    return sum(item.value for item in pairs) / len(pairs)


def _assign_sopp(
    pairs: list[WorkingPair],
    by_id: dict[str, WorkingPair],
    session: SessionResult,
    params: NGSParams,
) -> tuple[str, ...]:
    """SOpp by movement and scoring (S3.2); returns warnings."""
    warnings: list[str] = []
    opponents = table_opponents(by_id, session.matches, session.travellers)
    for item in pairs:
        pid = item.entry.pair_id
        if session.scoring in SWISS_PAIRS_SCORING and not opponents.get(pid):
            warnings.append(f"pair {pid}: no opponents recorded; SOpp from the whole field")
        tables = sopp_tables(session.scoring, opponents.get(pid, []), len(pairs), params)
        item.sopp = _met_sopp(tables, by_id) if tables else _group_sopp(item, pairs)
    return tuple(warnings)


Tables = list[tuple[int, tuple[str, ...]]]


class MatchSide(Protocol):
    """One match from one pair's side: a :class:`SwissMatch`, or a stored one."""

    @property
    def pair_id(self) -> str: ...
    @property
    def opponents(self) -> Sequence[str]: ...
    @property
    def boards(self) -> int: ...


class TableLine(Protocol):
    """The two pairs of a traveller line: a :class:`TravellerLine`, or a stored one."""

    @property
    def ns_pair(self) -> str: ...
    @property
    def ew_pair(self) -> str: ...


def table_opponents(
    pair_ids: Collection[str], matches: Iterable[MatchSide], travellers: Iterable[TableLine]
) -> dict[str, Tables]:
    """Per pair of the field (``pair_ids``), the tables it met as ``(boards, opponents)``
    (S3.2): from the matches if the session has any (matches of no boards and opponents
    outside the field left out), else one board per traveller line. The one reading of "the
    opponents a pair met": grading and the pages that hide an average (S14.14) both ask it."""
    met: dict[str, Tables] = defaultdict(list)
    matches = list(matches)
    if matches:
        for m in matches:
            opps = tuple(o for o in m.opponents if o in pair_ids and o != m.pair_id)
            if opps and m.boards > 0:
                met[m.pair_id].append((m.boards, opps))
        return met
    for line in travellers:
        if line.ns_pair in pair_ids and line.ew_pair in pair_ids:
            met[line.ns_pair].append((1, (line.ew_pair,)))
            met[line.ew_pair].append((1, (line.ns_pair,)))
    return met


def sopp_tables(
    scoring: Scoring, tables: Tables, field_pairs: int, params: NGSParams = NGS_DEFAULT
) -> Tables | None:
    """The tables a pair's SOpp averages over (S3.2), or None when its SOpp is the average of
    the other pairs of its comparison group (:func:`comparison_group`). Pairs events: never
    the tables. Swiss pairs: the tables whenever opponents were recorded. Teams: the tables,
    unless the pair met at least ``multiple_teams_share`` of the ``field_pairs`` pairs
    (multiple teams, FAQ 46) or none was recorded."""
    if scoring in PAIRS_SCORING or not tables:
        return None
    if scoring in SWISS_PAIRS_SCORING:
        return tables
    share = params.multiple_teams_share
    distinct = {o for _, opps in tables for o in opps}
    if len(distinct) * share.denominator >= share.numerator * field_pairs:
        return None
    return tables


def _group_sopp(item: WorkingPair, pairs: list[WorkingPair]) -> float | None:
    others = [p.value for p in pairs if p is not item and p.group == item.group]
    return sum(others) / len(others) if others else None


def _met_sopp(met: list[tuple[int, tuple[str, ...]]], by_id: dict[str, WorkingPair]) -> float:
    boards = sum(x for x, _ in met)
    total = sum(x * sum(by_id[o].value for o in opps) / len(opps) for x, opps in met)
    return total / boards
