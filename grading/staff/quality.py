"""Reads for the grading-quality report (issue 9): the database, or a replay of its ledger.

The arithmetic is in ``grading.engine.quality`` (pure); this module turns stored versions,
pair results, traveller lines, session grades and current grades (or the outcomes of replaying
the stored ledger with another parameter set) into its plain inputs, and assembles the report.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import defaultdict
from dataclasses import dataclass, replace

from grading.engine import quality
from grading.engine.ngs import get_params
from grading.engine.ngs.cwrite import writing_fold
from grading.engine.ngs.foldout import PAIR_FIGURES, RECORD_FIGURES, STATUSES, VersionOut
from grading.engine.ngs.params import NGSParams
from grading.engine.types import TEAMS_SCORING, Scoring
from grading.ledger.replay.read import fold_ledger, member_numbers
from grading.models import (
    CurrentGrade,
    LedgerHead,
    PairResult,
    SessionGrade,
    SessionVersion,
    TravellerLine,
)

__all__ = ["PairFigure", "params_for", "quality_report", "status_counts", "stored_params"]


@dataclass(frozen=True)
class PairFigure:
    """A pair's figures in one live graded version, in the report's plain terms."""

    version: int
    date: dt.date
    scoring: str
    group: str
    score: float | None
    boards: int
    grade: float | None  # the pair's grade value: (Ga + Gb)/2 (h_u for an unknown pair)
    par: float | None
    excess: float | None
    known: bool


def stored_params() -> NGSParams:
    head = LedgerHead.objects.first()
    return get_params(head.params_name if head else "ngs-15a")


def params_for(name: str) -> NGSParams:
    """A named parameter set (ngs-15a, ngs-2018, fr18-factors) or overrides of the stored one,
    written ``gain=1.5`` or ``gain=1.5,rpcf=0.5``."""
    if "=" not in name:
        return get_params(name)
    params = stored_params()
    changes = {}
    for part in name.split(","):
        key, _, value = part.partition("=")
        key = key.strip()
        current = getattr(params, key, None)
        if current is None or not isinstance(current, int | float) or isinstance(current, bool):
            raise ValueError(f"{key!r} is not a numeric NGS parameter")
        number = type(current)(float(value)) if isinstance(current, float) else int(value)
        least = 1 if key.startswith("window") else 0  # the 3 years and 2000 boards (S4)
        if not math.isfinite(number) or number < least:
            raise ValueError(f"{key} must be a number of at least {least}")
        changes[key] = number
    label = ",".join(f"{k}={v}" for k, v in changes.items())
    return replace(params, name=f"{params.name}+{label}", **changes)


# ---- the database ------------------------------------------------------------------------------


def _live_versions() -> dict[int, SessionVersion]:
    versions = SessionVersion.objects.filter(state=SessionVersion.State.GRADED).select_related(
        "session"
    )
    return {v.pk: v for v in versions}


def _group(movement: str, scoring: str, direction: str) -> str:
    teams = scoring in TEAMS_SCORING
    if direction and (movement == "TWO_WINNER" or teams) and not scoring.startswith("SWISS_P"):
        return direction
    return ""


def pair_figure(
    v: SessionVersion, direction: str, score, boards, known, term, sopp, par, excess
) -> PairFigure:
    """A pair's figures in the report's terms, from its stored inputs and its graded figures
    (stored, or a what-if fold's): the stored and the replayed side are computed alike."""
    grade = term + sopp - excess if None not in (term, sopp, excess) else None
    return PairFigure(
        v.pk,
        v.session.date,
        v.scoring,
        _group(v.movement, v.scoring, direction),
        score,
        boards or 24,
        grade,
        par,
        excess,
        bool(known),
    )


def pair_rows(versions: dict[int, SessionVersion]) -> list[tuple]:
    """The live versions' pairs: version, pair id, direction, score, boards, known, and the
    stored score term, SOpp, par and excess (read once for both sides of a what-if)."""
    return list(
        PairResult.objects.filter(version_id__in=list(versions))
        .values_list(
            "version_id",
            "pair_id",
            "direction",
            "score",
            "boards",
            "known",
            "score_term",
            "sopp",
            "par",
            "excess",
        )
        .iterator(chunk_size=20_000)
    )


def stored_pair_figures(versions: dict[int, SessionVersion], rows: list[tuple]) -> list[PairFigure]:
    return [pair_figure(versions[row[0]], *row[2:]) for row in rows]


def traveller_boards(versions: dict[int, SessionVersion]) -> dict[int, dict[int, list]]:
    """Per version, per board: (NS pair, EW pair, NS score) of the plain table results."""
    out: dict[int, dict[int, list]] = defaultdict(lambda: defaultdict(list))
    rows = TravellerLine.objects.filter(
        version_id__in=list(versions), ns_score__isnull=False, ns_adjusted="", ew_adjusted=""
    ).values_list("version_id", "board", "ns_pair", "ew_pair", "ns_score")
    for vid, board, ns, ew, score in rows.iterator(chunk_size=5000):
        out[vid][board].append((ns, ew, score))
    return out


def stored_grade_rows() -> list[tuple[dt.date, float, float | None]]:
    return list(
        SessionGrade.objects.filter(live=True, entry__isnull=False, session_grade__isnull=False)
        .values_list("date", "grade_before", "excess")
        .iterator(chunk_size=5000)
    )


def stored_current_grades() -> list[tuple[str, float, str]]:
    """Members with boards in the window, as a replay's current grades are (``replay_figures``):
    one population for both sides of a what-if."""
    return list(
        CurrentGrade.objects.filter(boards_in_window__gt=0).values_list(
            "member__national_number", "grade", "status"
        )
    )


# ---- a replay with other parameters ----------------------------------------------------------


class _WhatIf:
    """The sink of a what-if fold: each live version's pair figures and graded members' rows,
    in the same terms as the stored ones (``pair_figure``)."""

    def __init__(self, versions: dict[int, SessionVersion], rows: list[tuple]) -> None:
        self.versions = versions
        self.inputs = {(row[0], row[1]): row[2:6] for row in rows}
        self.pairs: list[PairFigure] = []
        self.grade_rows: list[tuple[dt.date, float, float | None]] = []

    def __call__(self, out: VersionOut) -> None:
        v = self.versions.get(int(out.version))
        if v is None or not out.graded:  # withdrawn later, or not graded (S14.9)
            return
        width = len(PAIR_FIGURES)
        for j, pair_id in enumerate(out.pair_ids):
            figures = out.pair_figures[width * j : width * (j + 1)]
            inputs = self.inputs.get((v.pk, pair_id), ("", None, 0, False))
            self.pairs.append(
                pair_figure(v, *inputs, *(None if math.isnan(x) else x for x in figures))
            )
        width = len(RECORD_FIGURES)
        for i in range(len(out.rec_member)):
            figures = out.rec_figures[width * i : width * (i + 1)]
            if not math.isnan(figures[_SESSION_GRADE]):
                excess = figures[_EXCESS]
                self.grade_rows.append(
                    (v.session.date, figures[_GRADE_BEFORE], None if math.isnan(excess) else excess)
                )


_GRADE_BEFORE = RECORD_FIGURES.index("grade_before")
_EXCESS = RECORD_FIGURES.index("excess")
_SESSION_GRADE = RECORD_FIGURES.index("session_grade")


def replay_figures(params: NGSParams, versions: dict[int, SessionVersion], rows: list[tuple]):
    """The stored ledger folded from empty with ``params`` on the fastest engine (the compiled
    writing fold when built, reading the ledger as columns): the live versions' pair figures,
    the graded members' (date, grade before, excess) and the current grades."""
    sink = _WhatIf(versions, rows)
    fold = writing_fold(params, sink=sink)
    numbers = member_numbers()
    fold.register(numbers)
    fold_ledger(fold)
    current = []
    latest = fold.latest()
    if latest is not None:
        out = fold.current_grades(latest)
        for i, member in enumerate(out.member):
            if out.boards_in_window[i] > 0:
                current.append((numbers[member], out.grade[i], STATUSES[out.status[i]].value))
    return sink.pairs, sink.grade_rows, current


# ---- the report ----------------------------------------------------------------------------------


def _groups(pairs: list[PairFigure], boards: dict[int, dict[int, list]]) -> tuple[list, list]:
    """FR 18 group samples of the match-pointed sessions, and every MP board's flatness."""
    by_group: dict[tuple[int, str], list[PairFigure]] = defaultdict(list)
    for p in pairs:
        if p.scoring == Scoring.MP and p.score is not None and p.grade is not None:
            by_group[(p.version, p.group)].append(p)
    mp_versions = {vid for vid, _ in by_group}
    flatness: list[float] = []
    session_f: dict[int, tuple[float, float]] = {}
    for vid in mp_versions:
        travellers = boards.get(vid, {})
        fs = [quality.board_flatness([s for _, _, s in lines]) for lines in travellers.values()]
        fs = [f for f in fs if f is not None]
        if fs:
            flatness += fs
            session_f[vid] = (quality.mean(fs), quality.mean(len(x) for x in travellers.values()))
    samples = []
    for (vid, _), members in by_group.items():
        if vid not in session_f or len(members) < 3:
            continue
        f, times = session_f[vid]
        samples.append(
            quality.GroupSample(
                scores=tuple(float(p.score or 0.0) for p in members),
                grades=tuple(float(p.grade or 0.0) for p in members),
                pars=tuple(p.par if p.par is not None else 50.0 for p in members),
                flatness=f,
                times_played=times,
                boards=quality.mean(p.boards for p in members),
            )
        )
    return samples, flatness


def _xrvar(boards, versions: dict[int, SessionVersion], f_cross: float) -> float | None:
    """FR 18's XRvar over the cross-IMP pairs and teams boards (stored pair grades)."""
    ids = [
        v for v, s in versions.items() if s.scoring in (Scoring.CROSS_IMP, Scoring.MULTIPLE_TEAMS)
    ]
    by_version: dict[int, dict[str, float]] = defaultdict(dict)
    figures = PairResult.objects.filter(version_id__in=ids).values_list(
        "version_id", "pair_id", "score_term", "sopp", "excess"
    )
    for vid, pid, term, sopp, excess in figures:
        if term is not None and sopp is not None and excess is not None:
            by_version[vid][pid] = term + sopp - excess
    samples = []
    for vid, grades in by_version.items():
        for lines in boards.get(vid, {}).values():
            if all(ns in grades and ew in grades for ns, ew, _ in lines):
                edges = [grades[ns] - grades[ew] for ns, ew, _ in lines]
                samples.append(([s for _, _, s in lines], edges))
    return quality.cross_imp_xrvar(samples, f_cross) if samples else None


def _figures(pairs, boards, grade_rows, current, truth, params: NGSParams) -> dict:
    samples, flatness = _groups(pairs, boards)
    split = quality.fr18(samples)
    excess_by_type: dict[str, list[float]] = defaultdict(list)
    for p in pairs:
        if p.excess is not None and p.known:
            excess_by_type[p.scoring].append(p.excess)
            excess_by_type["all"].append(p.excess)
    mp_residuals = [
        p.score - p.par
        for p in pairs
        if p.scoring == Scoring.MP and p.known and p.score is not None and p.par is not None
    ]
    report = {
        "params": params.name,
        "gain": params.gain,
        "sessions": len({p.version for p in pairs}),
        "pairs": len(pairs),
        "flatness": quality.mean(flatness) if flatness else math.nan,
        "flatness_values": flatness,
        "flatness_histogram": quality.flatness_histogram(flatness),
        "fr18": split.as_dict(),
        "score_minus_par_mp": quality.spread(mp_residuals).as_dict(),
        "score_minus_par_values": mp_residuals,
        "excess_by_scoring": {
            k: quality.spread(v).as_dict() for k, v in sorted(excess_by_type.items())
        },
        "drift": quality.drift_by_month(grade_rows),
        "statuses": status_counts(current),
        "truth": None,
    }
    report["warnings"] = quality.fr18_warnings(split) + quality.spread_warnings(
        "Match points: score - par", quality.spread(mp_residuals)
    )
    if truth:
        rows = quality.truth_errors(current, truth)
        report["truth"] = [r.__dict__ for r in rows]
        report["truth_points"] = [(truth[n], g, s) for n, g, s in current if n in truth]
    return report


def status_counts(current: list[tuple[str, float, str]]) -> dict[str, int]:
    """Members by status (P, E, M, O), every status present: the one count the page and the
    command show, for the stored grades and a replay alike (issue 30: they differed, 135
    against 32, as the stored side also counted members with no boards in the window)."""
    out = dict.fromkeys(STATUS_ORDER, 0)
    for _, _, status in current:
        out[status] = out.get(status, 0) + 1
    return out


STATUS_ORDER = ("P", "E", "M", "O")


def _comparable(report: dict) -> dict[str, float]:
    """The figures of a report a what-if may move, flat, to compare a replay with."""
    figures = {"flatness": report["flatness"], **report["fr18"]}
    figures |= {f"mp_{k}": v for k, v in report["score_minus_par_mp"].items()}
    for scoring, spread in report["excess_by_scoring"].items():
        figures |= {f"excess_{scoring}_{k}": v for k, v in spread.items()}
    figures |= {f"drift_{d['month']}": d["mean_grade"] for d in report["drift"]}
    figures |= {f"status_{k}": v for k, v in report["statuses"].items()}
    return figures


def quality_report(*, params: str | None = None, truth: dict[str, float] | None = None) -> dict:
    """The report on the stored grades, and with ``params`` the same figures after replaying
    the stored ledger with that parameter set (``report["compare"]``)."""
    versions = _live_versions()
    boards = traveller_boards(versions)
    stored = stored_params()
    rows = pair_rows(versions)
    pairs = stored_pair_figures(versions, rows)
    report = _figures(pairs, boards, stored_grade_rows(), stored_current_grades(), truth, stored)
    report["xrvar"] = _xrvar(boards, versions, stored.f_cross)
    report["published"] = quality.FR18_PUBLISHED
    if params:
        other = params_for(params)
        r_pairs, r_rows, r_current = replay_figures(other, versions, rows)
        report["compare"] = _figures(r_pairs, boards, r_rows, r_current, truth, other)
        report["compare"]["warnings"] += quality.what_if_warnings(
            _comparable(report), _comparable(report["compare"])
        )
    return report
