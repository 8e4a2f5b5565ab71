"""The simulator's own statistics, measured against its hidden truth (FR 18's figures).

With true pair strengths in place of grades, a match-pointed session's percentages should
average 50 and spread about 6.3 around par (FR 5, FR 18), boards should have flatness about 0.9,
and cross-IMPs should vary about 20 per board between equal pairs.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from grading.engine.quality import (
    GroupSample,
    board_flatness,
    cross_imp_xrvar,
    flatness_histogram,
    fr18,
    mean,
    spread,
)
from grading.engine.types import Movement, Scoring
from grading.lab.simulate.sessions import SimSession

__all__ = ["simulation_figures", "true_groups"]


def _group(pair, result) -> str:
    if result.movement is Movement.TWO_WINNER and pair.direction is not None:
        return pair.direction.value
    return ""


def true_groups(sessions: Iterable[SimSession]) -> tuple[list[GroupSample], list[float]]:
    """FR 18 group samples of the match-pointed pairs sessions with true strengths as grades
    (par = 50 + own - mean of the others in the group), and every board's flatness."""
    groups: list[GroupSample] = []
    flatness: list[float] = []
    for sim in sessions:
        result = sim.result
        if result.scoring is not Scoring.MP:
            continue
        boards: dict[int, list[int]] = defaultdict(list)
        for line in result.travellers:
            boards[line.board].append(int(line.ns_score or 0))
        fs = [f for f in (board_flatness(s) for s in boards.values()) if f is not None]
        flatness += fs
        times = mean(len(s) for s in boards.values())
        members: dict[str, list] = defaultdict(list)
        for pair in result.pairs:
            members[_group(pair, result)].append(pair)
        for pairs in members.values():
            strengths = [sim.strengths[p.pair_id] for p in pairs]
            total = sum(strengths)
            pars = [50 + s - (total - s) / (len(pairs) - 1) for s in strengths]
            groups.append(
                GroupSample(
                    scores=tuple(float(p.score or 0) for p in pairs),
                    grades=tuple(strengths),
                    pars=tuple(pars),
                    flatness=mean(fs),
                    times_played=times,
                    boards=mean(p.boards or 0 for p in pairs),
                )
            )
    return groups, flatness


def simulation_figures(sessions: list[SimSession], f_cross: float = 6.12) -> dict:
    """Mean session %, the spread around the true par, flatness, the FR 18 split and XRvar."""
    groups, flatness = true_groups(sessions)
    residuals = [s - p for g in groups for s, p in zip(g.scores, g.pars, strict=True)]
    scores = [s for g in groups for s in g.scores]
    boards = []
    for sim in sessions:
        if sim.result.scoring not in (Scoring.CROSS_IMP, Scoring.MULTIPLE_TEAMS):
            continue
        by_board: dict[int, list] = defaultdict(list)
        for line in sim.result.travellers:
            by_board[line.board].append(line)
        for lines in by_board.values():
            edges = [sim.strengths[x.ns_pair] - sim.strengths[x.ew_pair] for x in lines]
            boards.append(([int(x.ns_score or 0) for x in lines], edges))
    return {
        "mp_groups": len(groups),
        "mean_session_pct": mean(scores),
        "around_true_par": spread(residuals).as_dict(),
        "flatness": mean(flatness),
        "flatness_histogram": flatness_histogram(flatness),
        "fr18_true_grades": fr18(groups).as_dict(),
        "xrvar": cross_imp_xrvar(boards, f_cross) if boards else None,
    }
