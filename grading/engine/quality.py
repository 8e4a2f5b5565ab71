"""The grading-quality arithmetic (FR 18, FR 5): pure functions over plain numbers.

* Board flatness ``F``: a board's match-point-percentage variance over its maximum
  ``maxvar(n) = (2500/3)(n+1)/(n-1)`` (population variances; no ties gives 1).
* A session's comparison group (the whole field one-winner, each direction two-winner), with
  population variances over the group's pairs as FR 18's ``maxvar`` is one: ``Svar`` of the
  session percentages; ``Gvar`` of the pars ``50 + (Ga+Gb)/2 - SOpp``, the grade part of each
  pair's expected score (it is ``(n/(n-1))^2`` times the variance of the pair grades, since
  SOpp leaves the pair out); ``Rvar = F maxvar(n)/b``, the random part; ``Avar`` of
  (score - par). Averaged over groups, ``Evar = Svar - Rvar - Gvar`` estimates the variance of
  the pair-grading error (FR 18 eq. 3), and ``Avar`` should match ``Svar - Gvar``.
* Cross-IMPs: ``XRvar = (Xvar - XPSvar)(n-1)/n`` per board (FR 18 eq. 4).
* Grades against a simulator's truth: bias, RMSE and correlation by status.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from grading.engine.scoring import cross_imps, matchpoints_by_frequency

__all__ = [
    "FLATNESS_BINS",
    "FR18_PUBLISHED",
    "Fr18",
    "GroupSample",
    "Spread",
    "TruthRow",
    "board_flatness",
    "correlation",
    "cross_imp_xrvar",
    "drift_by_month",
    "flatness_histogram",
    "fr18",
    "maxvar",
    "mean",
    "mpp",
    "spread",
    "truth_errors",
    "variance",
]

# FR 18's published averages (17,759 sessions, 2013-14) to show beside ours.
FR18_PUBLISHED = {
    "F": 0.898,
    "Svar": 57.83,
    "Rvar": 39.43,
    "Gvar": 17.68,
    "Evar": 0.72,
    "Avar": 40.24,
    "Svar-Gvar": 40.15,
    "XRvar": 20.61,
    "session_sd": 6.34,
}
# The session-level figures of FR 18's report, in the order the report and the staff page
# show them.
FR18_FIGURES = (
    "Svar",
    "Rvar",
    "Gvar",
    "Evar",
    "Evar_ci",
    "grading_error_sd",
    "Avar",
    "Svar-Gvar",
    "session_sd",
)
# FR 18's flatness table: bins from 0.9-1.0 down to 0-0.1.
FLATNESS_BINS = tuple((round(0.1 * k, 1), round(0.1 * (k + 1), 1)) for k in range(9, -1, -1))


def mean(values: Iterable[float]) -> float:
    items = list(values)
    return sum(items) / len(items) if items else math.nan


def variance(values: Sequence[float], ddof: int = 1) -> float:
    """Variance with ``ddof`` (1: sample, 0: population); NaN when too few values."""
    n = len(values)
    if n - ddof <= 0:
        return math.nan
    m = sum(values) / n
    return sum((v - m) ** 2 for v in values) / (n - ddof)


def correlation(xs: Sequence[float], ys: Sequence[float]) -> float:
    n = len(xs)
    if n < 2:
        return math.nan
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx and syy else math.nan


def maxvar(n: int) -> float:
    """FR 18: the largest possible variance of match-point percentages on a board played
    ``n`` times (no ties)."""
    return (2500 / 3) * (n + 1) / (n - 1)


def mpp(ns_scores: Sequence[int]) -> list[float]:
    """NS match-point percentages on one board (2 per score beaten, 1 per tie; S2.2)."""
    n = len(ns_scores)
    top = 2 * (n - 1)
    return [100 * u / top for u in matchpoints_by_frequency(list(ns_scores))]


def board_flatness(ns_scores: Sequence[int]) -> float | None:
    """FR 18's ``F`` for one board: population variance of MPP over ``maxvar(n)``."""
    if len(ns_scores) < 2:
        return None
    return variance(mpp(ns_scores), ddof=0) / maxvar(len(ns_scores))


def flatness_histogram(values: Iterable[float]) -> list[tuple[str, float]]:
    """Share of boards (percent) in FR 18's flatness bins, highest bin first."""
    items = list(values)
    counts = [0] * 10
    for f in items:
        counts[min(9, max(0, int(f * 10 + 1e-9)))] += 1
    total = len(items) or 1
    return [
        (f"{lo:.1f}-{hi:.1f}", 100 * counts[int(lo * 10 + 1e-9)] / total)
        for lo, hi in FLATNESS_BINS
    ]


@dataclass(frozen=True)
class GroupSample:
    """One comparison group of one match-pointed session (FR 18's unit of analysis)."""

    scores: tuple[float, ...]  # session percentages
    grades: tuple[float, ...]  # pair grades (Ga + Gb) / 2 at the start of the session
    pars: tuple[float, ...]  # par percentages, 50 + grade - SOpp
    flatness: float  # mean F over the session's boards
    times_played: float  # n: how many times each board was played
    boards: float  # b: boards each pair played

    @property
    def svar(self) -> float:
        return variance(self.scores, ddof=0)

    @property
    def gvar(self) -> float:
        return variance(self.pars, ddof=0)

    @property
    def rvar(self) -> float:
        return self.flatness * maxvar(round(self.times_played)) / self.boards

    @property
    def avar(self) -> float:
        return variance([s - p for s, p in zip(self.scores, self.pars, strict=True)], ddof=0)


@dataclass(frozen=True)
class Fr18:
    groups: int
    flatness: float
    svar: float
    rvar: float
    gvar: float
    evar: float
    evar_ci: float  # half-width of a 95% confidence interval on Evar
    grading_error_sd: float  # sqrt(Evar), 0 when Evar is negative
    avar: float
    svar_minus_gvar: float
    session_sd: float  # sqrt(Rvar): the sd of a session percentage around par (FR 5)

    def as_dict(self) -> dict[str, float]:
        return {
            "groups": self.groups,
            "F": self.flatness,
            "Svar": self.svar,
            "Rvar": self.rvar,
            "Gvar": self.gvar,
            "Evar": self.evar,
            "Evar_ci": self.evar_ci,
            "grading_error_sd": self.grading_error_sd,
            "Avar": self.avar,
            "Svar-Gvar": self.svar_minus_gvar,
            "session_sd": self.session_sd,
        }


def fr18(groups: Iterable[GroupSample], min_pairs: int = 3) -> Fr18:
    """FR 18's variance split averaged over comparison groups with at least ``min_pairs``."""
    usable = [g for g in groups if len(g.scores) >= min_pairs and g.times_played >= 2]
    if not usable:
        nan = math.nan
        return Fr18(0, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan)
    e_parts = [g.svar - g.rvar - g.gvar for g in usable]
    evar = mean(e_parts)
    ci = 1.96 * math.sqrt(variance(e_parts) / len(e_parts)) if len(e_parts) > 1 else math.nan
    svar, gvar, rvar = (
        mean(g.svar for g in usable),
        mean(g.gvar for g in usable),
        mean(g.rvar for g in usable),
    )
    return Fr18(
        groups=len(usable),
        flatness=mean(g.flatness for g in usable),
        svar=svar,
        rvar=rvar,
        gvar=gvar,
        evar=evar,
        evar_ci=ci,
        grading_error_sd=math.sqrt(evar) if evar > 0 else 0.0,
        avar=mean(g.avar for g in usable),
        svar_minus_gvar=svar - gvar,
        session_sd=math.sqrt(rvar),
    )


# FR 18 split thousands of comparison groups; an average over fewer than this is mostly noise
# (a negative Evar, a CI wider than the figure), and the report says so (issue 30).
MIN_GROUPS = 30


def fr18_warnings(split: Fr18) -> list[str]:
    """Where the data cannot support the variance split, in words for the report."""
    if split.groups == 0:
        return [
            "No match-pointed comparison group has hand records of 3 or more pairs played at "
            "least twice: the variance split (F, Svar, Rvar, Gvar, Evar) cannot be worked out."
        ]
    out = []
    if split.groups < MIN_GROUPS:
        out.append(
            f"Only {split.groups} comparison group{'s' if split.groups != 1 else ''}: the "
            f"variance split needs {MIN_GROUPS} or more before its figures mean much."
        )
    if split.evar < 0:
        out.append(
            f"Evar is negative ({split.evar:.2f}), which a variance cannot be: on this data the "
            "split does not hold, so the grading-error figures are not an estimate."
        )
    if abs(split.gvar) < 1e-9:
        out.append(
            "Gvar is zero: every pair in the comparison groups had the same par, so the grade "
            "part of the variance cannot be measured (all new players at the initial grade?)."
        )
    return out


def spread_warnings(label: str, spread: Spread) -> list[str]:
    if spread.n < 2:
        return [f"{label}: {spread.n} value{'s' if spread.n != 1 else ''}, no spread to show."]
    return []


def what_if_warnings(stored: dict[str, float], replayed: dict[str, float]) -> list[str]:
    """The replay's figures against the stored ones (same keys): say so when they are all the
    same, since a what-if that moves nothing the report measures tells the committee nothing."""
    keys = [k for k in stored if k in replayed]
    same = all(_same(stored[k], replayed[k]) for k in keys)
    if keys and same:
        return [
            "The replay gives the same figures as the stored grades: on this data the change "
            "moves nothing this report measures."
        ]
    return []


def _same(a: float | None, b: float | None) -> bool:
    if a is None or b is None or (isinstance(a, float) and math.isnan(a)):
        return (a is None or math.isnan(a)) and (b is None or math.isnan(b))
    return abs(a - b) < 5e-4


@dataclass(frozen=True)
class Spread:
    n: int
    mean: float
    sd: float

    def as_dict(self) -> dict[str, float]:
        return {"n": self.n, "mean": self.mean, "sd": self.sd}


def spread(values: Iterable[float]) -> Spread:
    """Count, mean and sample sd (of score - par, say)."""
    items = list(values)
    sd = math.sqrt(variance(items)) if len(items) > 1 else math.nan
    return Spread(len(items), mean(items), sd)


def drift_by_month(rows: Iterable[tuple[dt.date, float, float | None]]) -> list[dict]:
    """Per calendar month of play: player-sessions, mean grade before play, mean excess.

    ``rows`` are (date, grade before the session, excess in % or None). A stable scheme has
    mean excess near 0 and a mean grade that moves only as the population changes.
    """
    months: dict[str, list[tuple[float, float | None]]] = defaultdict(list)
    for date, grade, excess in rows:
        months[f"{date:%Y-%m}"].append((grade, excess))
    out = []
    for month in sorted(months):
        items = months[month]
        excesses = [e for _, e in items if e is not None]
        out.append(
            {
                "month": month,
                "n": len(items),
                "mean_grade": mean(g for g, _ in items),
                "mean_excess": mean(excesses),
            }
        )
    return out


@dataclass(frozen=True)
class TruthRow:
    status: str
    n: int
    bias: float  # mean (grade - truth)
    rmse: float  # root mean square of (grade - truth)
    centred_rmse: float  # the same after removing the overall bias (the scale's offset)
    correlation: float


def truth_errors(
    grades: Iterable[tuple[str, float, str]], truth: dict[str, float]
) -> list[TruthRow]:
    """Grades against true strengths by status (P, E, M, O) and for all together ("all").

    ``grades`` are (membership number, grade, status); members missing from ``truth`` are
    left out. The overall bias is the scale's offset (every new member starts at 42, S5.1);
    ``centred_rmse`` removes it, so it measures ranking accuracy.
    """
    pairs = [(status, g, truth[n]) for n, g, status in grades if n in truth]
    offset = mean(g - t for _, g, t in pairs) if pairs else math.nan
    by_status: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for status, g, t in pairs:
        by_status[status].append((g, t))
        by_status["all"].append((g, t))
    rows = []
    for status in [s for s in ("P", "E", "M", "O", "all") if s in by_status]:
        items = by_status[status]
        errors = [g - t for g, t in items]
        rows.append(
            TruthRow(
                status=status,
                n=len(items),
                bias=mean(errors),
                rmse=math.sqrt(mean(e * e for e in errors)),
                centred_rmse=math.sqrt(mean((e - offset) ** 2 for e in errors)),
                correlation=correlation([g for g, _ in items], [t for _, t in items]),
            )
        )
    return rows


def cross_imp_xrvar(
    boards: Iterable[tuple[Sequence[int], Sequence[float]]], f_cross: float
) -> float:
    """FR 18 eq. 4 averaged over boards: ``XRvar = (Xvar - XPSvar)(n-1)/n``.

    Each board is (NS scores of the tables compared, each table's strength edge NS - EW in
    grade points); ``Xvar`` is the population variance of the tables' averaged cross-IMPs and
    ``XPSvar`` that of the edges converted to IMPs per board (edge / ``f_cross``).
    """
    values = []
    for scores, edges in boards:
        n = len(scores)
        if n < 3:
            continue
        xvar = variance(cross_imps(list(scores), average=True), ddof=0)
        xpsvar = variance([e / f_cross for e in edges], ddof=0)
        values.append((xvar - xpsvar) * (n - 1) / n)
    return mean(values)
