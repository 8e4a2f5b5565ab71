"""One simulated session: tables play boards, the product's scoring engine scores them.

Every table result comes from :class:`~grading.lab.simulate.bridge.Board` given the two pairs' true
strengths (plus a small form term for the evening); pair totals are then computed by
``grading.engine.scoring`` from those travellers, so totals and travellers always agree, and
the result is an engine :class:`~grading.engine.types.SessionResult` ready to write to a file.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction

from grading.engine.scoring import (
    Method,
    PairSessionResult,
    TravellerLine,
    butler_imps,
    cross_imps_exact,
    ew_matchpoints,
    imps,
    matchpoints_by_frequency,
    score_board,
)
from grading.engine.types import (
    Direction,
    Movement,
    PairEntry,
    Player,
    Scoring,
    SessionKey,
    SessionResult,
    SwissMatch,
)
from grading.engine.vp import wbf_vp
from grading.lab.simulate.bridge import SKILL_PER_PERCENT, Board, make_board
from grading.lab.simulate.movements import Table, howell, howell_shape, mitchell, mitchell_shape
from grading.lab.simulate.population import Person

__all__ = [
    "Entrant",
    "SimSession",
    "TeamMatch",
    "board_values",
    "session_totals",
    "pairs_session",
    "swiss_pairs_session",
    "teams_session",
]

FORM_SD = 1.0  # a pair's form on the night, in percentage points (FR 18's residual error)
_PAIR_METHOD = {
    Scoring.MP: Method.MP,
    Scoring.BUTLER: Method.BUTLER,
    Scoring.CROSS_IMP: Method.CROSS_IMP,
    Scoring.AGGREGATE: Method.AGGREGATE,
}


@dataclass(frozen=True)
class Entrant:
    players: tuple[Person, Person]
    host: bool = False  # an approved host exemption: written RATEABLE="N" / rateable=N

    @property
    def strength(self) -> float:
        return (self.players[0].strength + self.players[1].strength) / 2

    def engine_players(self) -> tuple[Player, Player]:
        a, b = (Player(p.number, p.name, rateable=not self.host) for p in self.players)
        return a, b


@dataclass(frozen=True)
class TeamMatch:
    """A teams match for the file: home team's pairs' ids, boards, and the VPs."""

    round: int
    home: int
    away: int
    boards: tuple[int, ...]
    home_imps: int
    away_imps: int
    home_vp: float
    away_vp: float


@dataclass(frozen=True)
class SimSession:
    """A simulated session and what only the simulator knows: each pair's true strength."""

    result: SessionResult
    strengths: dict[str, float]  # pair id -> true pair strength (without the night's form)
    charge: str = "10"  # EBU charge code written to USEBIO (60: green-pointed)
    team_matches: tuple[TeamMatch, ...] = ()  # multiple teams: the matches, for the file
    # Each traveller line's (NS, EW) result in the session's units, keyed by (board, NS pair).
    line_values: dict[tuple[int, str], tuple] = field(default_factory=dict)


def board_values(
    lines: list[TravellerLine], method: Method
) -> list[tuple[int | Fraction, int | Fraction]]:
    """Each line's (NS, EW) result on one board, from each side's point of view, by the
    scoring engine (S2). Plain table scores on a board played as often as every other board
    take the engine's direct routines (frequency-table match points, Butler, cross-IMPs),
    which give what ``score_board`` gives for them; anything else goes to ``score_board``."""
    scores = [line.ns_score for line in lines]
    plain = all(
        s is not None
        and line.ns_adjusted is None
        and line.ew_adjusted is None
        and line.ew_score is None
        and not line.ns_weighted
        and not line.ew_weighted
        and not line.group
        for s, line in zip(scores, lines, strict=True)
    )
    if not plain:
        scored = score_board(lines, method)
        return [(r.ns, r.ew) for r in scored.lines]
    ns_scores = [int(s) for s in scores if s is not None]
    if method is Method.MP:
        ns, ew = matchpoints_by_frequency(ns_scores), ew_matchpoints(ns_scores)
        return list(zip(ns, ew, strict=True))
    if method is Method.BUTLER:
        return [(v, -v) for v in butler_imps(ns_scores)]
    if method is Method.CROSS_IMP:
        return [(v, -v) for v in cross_imps_exact(ns_scores, average=True)]
    return [(v, -v) for v in ns_scores]


def session_totals(
    lines: list[TravellerLine], method: Method
) -> tuple[dict[str, PairSessionResult], dict[tuple[int, str], tuple]]:
    """Pair totals as ``score_session`` gives them when every board is played equally often
    (the simulator's movements), and each line's values keyed by (board, NS pair)."""
    by_board: dict[int, list[TravellerLine]] = defaultdict(list)
    for line in lines:
        by_board[line.board].append(line)
    sizes = {len(board_lines) for board_lines in by_board.values()}
    if method is Method.MP and len(sizes) > 1:
        raise ValueError("boards played different numbers of times: use score_session")
    tally: dict[str, list] = defaultdict(lambda: [0, 0, 0, 0, set()])
    aggregate = method is Method.AGGREGATE
    values: dict[tuple[int, str], tuple] = {}
    for number, board_lines in by_board.items():
        pairs = board_values(board_lines, method)
        top = 2 * (len(board_lines) - 1)
        mean_ns = Fraction(0)
        if method is Method.AGGREGATE:
            mean_ns = Fraction(sum(p[0] for p in pairs), len(pairs))
        for line, (ns, ew) in zip(board_lines, pairs, strict=True):
            values[(number, line.ns_pair)] = (ns, ew)
            for pid, value, side in ((line.ns_pair, ns, "NS"), (line.ew_pair, ew, "EW")):
                t = tally[pid]
                t[0] += 1
                t[1] += value
                t[2] += top
                if aggregate:
                    t[3] += mean_ns if side == "NS" else -mean_ns
                t[4].add(side)
    results = {
        pid: PairSessionResult(
            pair=pid,
            method=method,
            boards_played=t[0],
            total=Fraction(t[1]),
            top=Fraction(t[2]) if method is Method.MP else None,
            direction_mean=Fraction(t[3]) if aggregate else None,
            directions=frozenset(t[4]),
        )
        for pid, t in tally.items()
    }
    return results, values


def _play(
    rng: random.Random,
    sittings: list[Table],
    effective: dict[str, float],
    boards: dict[int, Board],
    skill: float,
) -> list[TravellerLine]:
    lines = []
    for table in sittings:
        shift = skill * (effective[table.ns] - effective[table.ew])
        for number in table.boards:
            outcome = boards[number].play(shift, rng.gauss(0.0, 1.0))
            lines.append(
                TravellerLine(
                    board=number,
                    ns_pair=table.ns,
                    ew_pair=table.ew,
                    ns_score=outcome.ns_score,
                    contract=outcome.contract,
                    declarer=outcome.declarer,
                    tricks=outcome.tricks,
                )
            )
    return lines


def _boards_for(rng: random.Random, sittings: list[Table]) -> dict[int, Board]:
    numbers = sorted({n for t in sittings for n in t.boards})
    return {n: make_board(rng, n) for n in numbers}


def _effective(rng: random.Random, strengths: dict[str, float], form_sd: float) -> dict[str, float]:
    return {pid: s + rng.gauss(0.0, form_sd) for pid, s in strengths.items()}


def pairs_session(
    rng: random.Random,
    key: SessionKey,
    event_name: str,
    scoring: Scoring,
    movement: Movement,
    entrants: list[Entrant],
    *,
    weighting: int = 1,
    start=None,
    form_sd: float = FORM_SD,
    skill: float = SKILL_PER_PERCENT,
    charge: str = "10",
    shape: tuple[int, int] | None = None,
) -> SimSession:
    """A pairs session: Mitchell (two-winner, an even number of pairs) or Howell (one-winner,
    an odd number of pairs has a sit-out), scored by match points, Butler, cross-IMPs or
    aggregate."""
    entrants = list(entrants)
    rng.shuffle(entrants)
    if movement is Movement.TWO_WINNER:
        if len(entrants) % 2:
            raise ValueError("a Mitchell needs an even number of pairs")
        tables = len(entrants) // 2
        rounds, per_round = shape or mitchell_shape(rng, tables)
        sittings = mitchell(tables, rounds, per_round)
        ids = [f"{i + 1}NS" for i in range(tables)] + [f"{i + 1}EW" for i in range(tables)]
    else:
        rounds, per_round = shape or howell_shape(rng, len(entrants))
        sittings = howell(len(entrants), rounds, per_round)
        ids = [str(i + 1) for i in range(len(entrants))]
    by_id = dict(zip(ids, entrants, strict=True))
    strengths = {pid: e.strength for pid, e in by_id.items()}
    boards = _boards_for(rng, sittings)
    lines = _play(rng, sittings, _effective(rng, strengths, form_sd), boards, skill)
    lines.sort(key=lambda line: line.board)
    results, values = session_totals(lines, _PAIR_METHOD[scoring])
    pairs = []
    for pid in ids:
        r = results[pid]
        if scoring is Scoring.MP:
            score = round(float(r.percentage or 0.0), 2)
        elif scoring is Scoring.BUTLER:
            score = float(r.total)
        elif scoring is Scoring.CROSS_IMP:
            score = round(float(r.total), 2)
        else:
            score = float(r.total)
        direction = None
        if movement is Movement.TWO_WINNER:
            direction = Direction.NS if pid.endswith("NS") else Direction.EW
        mean = None
        if scoring is Scoring.AGGREGATE and r.direction_mean is not None:
            mean = round(float(r.direction_mean), 2)
        pairs.append(
            PairEntry(
                pair_id=pid,
                players=by_id[pid].engine_players(),
                score=score,
                direction=direction,
                boards=r.boards_played,
                direction_mean=mean,
            )
        )
    result = SessionResult(
        key=key,
        event_name=event_name,
        scoring=scoring,
        movement=movement,
        pairs=tuple(pairs),
        weighting=weighting,
        start=start,
        boards=len(boards),
        travellers=tuple(lines),
        source="bridge-grading simulator",
    )
    return SimSession(result, strengths, charge, line_values=values)


def _swiss_pairing(
    rng: random.Random, ids: list[str], standing: dict[str, float], met: set[frozenset[str]]
) -> list[tuple[str, str]]:
    """Pair the field by standing, each with the next pair it has not met (Swiss)."""
    order = sorted(ids, key=lambda p: (-standing[p], rng.random()))
    matches = []
    while order:
        first = order.pop(0)
        choice = next((p for p in order if frozenset((first, p)) not in met), order[0])
        order.remove(choice)
        matches.append((first, choice) if rng.random() < 0.5 else (choice, first))
    return matches


def swiss_pairs_session(
    rng: random.Random,
    key: SessionKey,
    event_name: str,
    entrants: list[Entrant],
    *,
    imps_scoring: bool = True,
    weighting: int = 1,
    form_sd: float = FORM_SD,
    skill: float = SKILL_PER_PERCENT,
    charge: str = "10",
) -> SimSession:
    """Swiss pairs: short matches between pairs with similar standings; every table plays the
    round's boards, scored across the field (Butler IMPs, or match points), and each match is
    converted to VPs for the standings (S3.1: grading uses the scores before VPs)."""
    if len(entrants) % 2:
        raise ValueError("Swiss pairs needs an even number of pairs")
    rounds, per_match = rng.choice([(7, 3), (8, 3), (6, 4), (9, 3), (6, 3)])
    rounds = min(rounds, len(entrants) - 1)
    ids = [str(i + 1) for i in range(len(entrants))]
    by_id = dict(zip(ids, entrants, strict=True))
    strengths = {pid: e.strength for pid, e in by_id.items()}
    effective = _effective(rng, strengths, form_sd)
    standing = dict.fromkeys(ids, 0.0)
    met: set[frozenset[str]] = set()
    lines: list[TravellerLine] = []
    matches: list[SwissMatch] = []
    method = Method.BUTLER if imps_scoring else Method.MP
    for r in range(rounds):
        pairing = (
            _swiss_pairing(rng, ids, standing, met)
            if r
            else _swiss_pairing(rng, ids, dict.fromkeys(ids, 0.0), met)
        )
        numbers = tuple(r * per_match + k + 1 for k in range(per_match))
        sittings = [Table(r + 1, ns, ew, numbers) for ns, ew in pairing]
        boards = {n: make_board(rng, n) for n in numbers}
        played = _play(rng, sittings, effective, boards, skill)
        per_board: dict[int, list[TravellerLine]] = defaultdict(list)
        for line in played:
            per_board[line.board].append(line)
        side: dict[tuple[int, str], Fraction] = {}
        for number, board_lines in per_board.items():
            top = 2 * (len(board_lines) - 1)
            for line, (ns_value, ew_value) in zip(
                board_lines, board_values(board_lines, method), strict=True
            ):
                if method is Method.MP:
                    ns_value, ew_value = ns_value * 100 / top, ew_value * 100 / top
                side[(number, line.ns_pair)] = ns_value
                side[(number, line.ew_pair)] = ew_value
        for ns, ew in pairing:
            met.add(frozenset((ns, ew)))
            totals = []
            for pid in (ns, ew):
                values = [side[(n, pid)] for n in numbers]
                total = sum(values) / len(values) if method is Method.MP else sum(values)
                totals.append(round(float(total), 2))
            if method is Method.MP:
                vp_ns = min(20.0, max(0.0, round(10 + (totals[0] - totals[1]) / 4, 2)))
                vp = (vp_ns, round(20 - vp_ns, 2))
            else:
                vp = wbf_vp(Fraction(str(totals[0])) - Fraction(str(totals[1])), per_match)
            standing[ns] += vp[0]
            standing[ew] += vp[1]
            matches.append(SwissMatch(ns, r + 1, (ew,), per_match, totals[0]))
            matches.append(SwissMatch(ew, r + 1, (ns,), per_match, totals[1]))
            for n in numbers:
                lines.extend(line for line in per_board[n] if line.ns_pair == ns)
    pairs = []
    for pid in ids:
        mine = [m for m in matches if m.pair_id == pid]
        boards = sum(m.boards for m in mine)
        if imps_scoring:
            score = round(sum(m.score for m in mine), 2)
        else:
            score = round(sum(m.score * m.boards for m in mine) / boards, 2)
        pairs.append(PairEntry(pid, by_id[pid].engine_players(), score, boards=boards))
    result = SessionResult(
        key=key,
        event_name=event_name,
        scoring=Scoring.SWISS_PAIRS_IMP if imps_scoring else Scoring.SWISS_PAIRS_MP,
        movement=Movement.ONE_WINNER,
        pairs=tuple(pairs),
        weighting=weighting,
        travellers=tuple(lines),
        matches=tuple(matches),
        source="bridge-grading simulator",
        extra=(("standings", ",".join(f"{p}:{standing[p]:.2f}" for p in ids)),),
    )
    return SimSession(result, strengths, charge)


def teams_session(
    rng: random.Random,
    key: SessionKey,
    event_name: str,
    teams: list[tuple[str, Entrant, Entrant]],
    *,
    weighting: int = 1,
    form_sd: float = FORM_SD,
    skill: float = SKILL_PER_PERCENT,
    charge: str = "10",
) -> SimSession:
    """Multiple teams: a round robin (or part of one) of 4-board to 3-board matches; every
    table plays the round's boards, each team's first pair sitting NS and second pair EW; pairs
    are graded on cross-IMPs against every table in their direction (S3.6)."""
    count = len(teams)
    if count < 4 or count % 2:
        raise ValueError("multiple teams needs an even number of at least 4 teams")
    options = [(r, b) for b in (3, 4, 5) for r in range(2, count) if 18 <= r * b <= 27]
    rounds, per_match = rng.choice(options) if options else (count - 1, 4)
    a_id = [f"{t + 1}-1-2" for t in range(count)]
    b_id = [f"{t + 1}-3-4" for t in range(count)]
    strengths = {}
    entrant_of = {}
    for t, (_, first, second) in enumerate(teams):
        strengths[a_id[t]], strengths[b_id[t]] = first.strength, second.strength
        entrant_of[a_id[t]], entrant_of[b_id[t]] = first, second
    effective = _effective(rng, strengths, form_sd)
    circle = count - 1
    lines: list[TravellerLine] = []
    plan: list[tuple[int, int, int, tuple[int, ...]]] = []
    for r in range(rounds):
        numbers = tuple(r * per_match + k + 1 for k in range(per_match))
        boards = {n: make_board(rng, n) for n in numbers}
        pairs_round = [(r, circle)] + [
            ((r + k) % circle, (r - k) % circle) for k in range(1, count // 2)
        ]
        for home, away in pairs_round:
            sittings = [
                Table(r + 1, a_id[home], b_id[away], numbers),
                Table(r + 1, a_id[away], b_id[home], numbers),
            ]
            lines.extend(_play(rng, sittings, effective, boards, skill))
            plan.append((r + 1, home, away, numbers))
    lines.sort(key=lambda line: line.board)
    results, values = session_totals(lines, Method.CROSS_IMP)
    pairs = []
    for t, (name, _, _) in enumerate(teams):
        for pid, direction in ((a_id[t], Direction.NS), (b_id[t], Direction.EW)):
            r = results[pid]
            pairs.append(
                PairEntry(
                    pair_id=pid,
                    players=entrant_of[pid].engine_players(),
                    score=round(float(r.total), 2),
                    direction=direction,
                    boards=r.boards_played,
                    team=name,
                )
            )
    by_board: dict[int, list[TravellerLine]] = defaultdict(list)
    for line in lines:
        by_board[line.board].append(line)
    line_points: dict[tuple[int, str], float] = {}
    for (number, ns_pair), (ns, ew) in values.items():
        line = next(x for x in by_board[number] if x.ns_pair == ns_pair)
        line_points[(number, ns_pair)] = round(float(ns), 2)
        line_points[(number, line.ew_pair)] = round(float(ew), 2)
    team_matches: list[TeamMatch] = []
    swiss: list[SwissMatch] = []
    ordered_lines: list[TravellerLine] = []
    for round_no, home, away, numbers in plan:
        net = 0
        for n in numbers:
            table1 = next(x for x in by_board[n] if x.ns_pair == a_id[home])
            table2 = next(x for x in by_board[n] if x.ns_pair == a_id[away])
            net += imps((table1.ns_score or 0) - (table2.ns_score or 0))
            ordered_lines += [table1, table2]
        home_vp, away_vp = wbf_vp(net, len(numbers))
        team_matches.append(
            TeamMatch(round_no, home, away, numbers, max(net, 0), max(-net, 0), home_vp, away_vp)
        )
        met = {
            a_id[home]: b_id[away],
            b_id[away]: a_id[home],
            a_id[away]: b_id[home],
            b_id[home]: a_id[away],
        }
        for pid in sorted(met):
            total = sum(line_points[(n, pid)] for n in numbers)
            swiss.append(SwissMatch(pid, round_no, (met[pid],), len(numbers), round(total, 2)))
    result = SessionResult(
        key=key,
        event_name=event_name,
        scoring=Scoring.MULTIPLE_TEAMS,
        movement=Movement.TWO_WINNER,
        pairs=tuple(pairs),
        weighting=weighting,
        boards=len(by_board),
        travellers=tuple(ordered_lines),
        matches=tuple(swiss),
        source="bridge-grading simulator",
    )
    return SimSession(result, strengths, charge, tuple(team_matches), values)
