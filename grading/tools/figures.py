"""The director's tools (S2): a VP scale to pin on the wall, and one traveller scored three ways.

Pure presentation over the engine; the views and the ``vpscale`` command share it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from grading.engine.scoring import (
    LineResult,
    Method,
    TravellerLine,
    score_board,
)
from grading.engine.vp import wbf_discrete_cusps, wbf_vp_table
from grading.ingest.problems import Problem
from grading.ingest.traveller_paste import parse_traveller_text

MAX_BOARDS = 100


@dataclass(frozen=True)
class DiscreteBand:
    low: int
    high: int | None  # None: and above
    winner: int
    loser: int

    @property
    def label(self) -> str:
        if self.high is None:
            return f"{self.low}+"
        return str(self.low) if self.low == self.high else f"{self.low}-{self.high}"


def continuous_rows(boards: int) -> list[tuple[int, float, float]]:
    """(IMP margin, winner's VP, loser's VP) from a draw to the blitz (S2.7)."""
    return [(m, v, round(20 - v, 2)) for m, v in enumerate(wbf_vp_table(boards))]


def discrete_bands(boards: int) -> list[DiscreteBand]:
    """The WBF discrete scale as IMP bands (seed 001 section 4)."""
    cusps = wbf_discrete_cusps(boards)
    bands = [DiscreteBand(0, cusps[0], 10, 10)]
    for k in range(1, len(cusps)):
        bands.append(DiscreteBand(cusps[k - 1] + 1, cusps[k], 10 + k, 10 - k))
    bands.append(DiscreteBand(cusps[-1] + 1, None, 20, 0))
    return bands


@dataclass(frozen=True)
class ScoredLine:
    line: TravellerLine
    mp: LineResult
    butler: LineResult
    cross: LineResult

    @property
    def ns_result(self) -> str:
        if self.line.ns_adjusted:
            same = self.line.ew_adjusted == f"A{100 - int(self.line.ns_adjusted[1:])}"
            return (
                self.line.ns_adjusted
                if same
                else f"{self.line.ns_adjusted}/{self.line.ew_adjusted}"
            )
        if self.line.ew_score is not None:
            return f"{self.line.ns_score} / EW {self.line.ew_score}"
        return str(self.line.ns_score)


@dataclass(frozen=True)
class ScoredTraveller:
    expected: int
    top: Fraction | None
    datum: int | None
    lines: tuple[ScoredLine, ...]
    # Which match-point rule applied, in words (issue 30): plain, Neuberg or the place
    # percentages of fewer than four real scores (S2.3).
    mp_rules: tuple[str, ...] = ()


SMALL_GROUP_WORDS = {1: "60%", 2: "65% and 55%", 3: "70%, 60% and 50%"}


def mp_rule(real: int, expected: int, side: str = "") -> str:
    """The match-point rule S2.3 applies to a comparison group of ``real`` real scores when
    ``expected`` were expected, in a club scorer's words (``groups.mp_group`` decides)."""
    who = f"{side} " if side else ""
    if real == 0:
        return f"No real {who}score: every one is an artificial score."
    if real >= expected:
        return (
            f"Every {who}score is real: plain match points, 2 for each score beaten and 1 "
            "for each tie."
        )
    scores = f"{real} real {who}score{'s' if real != 1 else ''} of {expected} expected"
    if real in SMALL_GROUP_WORDS:
        return (
            f"{scores}: fewer than four, so they get fixed place percentages "
            f"({SMALL_GROUP_WORDS[real]}, ties sharing) instead of Neuberg's formula."
        )
    return f"{scores}: Neuberg's formula scales their match points up to {expected} scores."


def score_traveller(lines: list[TravellerLine], expected: int | None = None) -> ScoredTraveller:
    """One traveller scored at match points (Neuberg to ``expected``), Butler and cross-IMPs."""
    mp = score_board(lines, Method.MP, expected)
    butler = score_board(lines, Method.BUTLER)
    cross = score_board(lines, Method.CROSS_IMP)
    scored = tuple(
        ScoredLine(line, m, b, c)
        for line, m, b, c in zip(lines, mp.lines, butler.lines, cross.lines, strict=True)
    )
    datum = next((line.ns_datum for line in butler.lines if line.ns_datum is not None), None)
    return ScoredTraveller(
        mp.expected, mp.top, datum, scored, _mp_rules(lines, mp.lines, mp.expected)
    )


def _mp_rules(lines, results, expected: int) -> tuple[str, ...]:
    """The rule of each comparison group and side, said once where they agree."""
    counts: dict[tuple[str, str], int] = {}
    for line, result in zip(lines, results, strict=True):
        for side, artificial in (("NS", result.ns_artificial), ("EW", result.ew_artificial)):
            key = (line.group, side)
            counts[key] = counts.get(key, 0) + (0 if artificial else 1)
    groups = sorted({group for group, _ in counts})
    rules: list[str] = []
    for group in groups:
        ns, ew = counts[(group, "NS")], counts[(group, "EW")]
        sides = [("", ns)] if ns == ew else [("NS", ns), ("EW", ew)]
        for side, real in sides:
            rule = mp_rule(real, expected, side)
            rules.append(f"Group {group}: {rule}" if len(groups) > 1 else rule)
    return tuple(rules)


def traveller_score(
    text: str, expected: int | None
) -> tuple[ScoredTraveller | None, list[Problem]]:
    """A pasted traveller scored, or the problems that stop it (the /tools/score/ page)."""
    lines, problems = parse_traveller_text(text)
    if not problems and expected is not None and expected < len(lines):
        problems.append(
            Problem(
                "expected",
                f"The board cannot be expected {expected} times "
                f"when {len(lines)} tables played it.",
            )
        )
    if problems:
        return None, problems
    return score_traveller(lines, expected), []
