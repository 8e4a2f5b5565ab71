"""A handicap table's figures as published (S8, FR 7): every line and every match, to the cent,
from the grades as shown, by ``grading.engine.ngs.handicap`` (the one home of the arithmetic)
with the parameter set the ledger runs with (S9). The page, the printable page, the CSV and the
XLSX all show these, so they agree to the cent."""

from __future__ import annotations

from dataclasses import dataclass

from clubs.handicaps.table import PAIRS, HandicapTable, TableEntry
from grading.engine.ngs.handicap import (
    cents,
    match_handicap,
    mean_grade,
    pair_figures,
    team_handicap,
    whole,
)
from grading.engine.ngs.params import NGSParams
from grading.params import active_params


@dataclass(frozen=True)
class EntryFigures:
    """A pair's or team's line as published. Pairs: the average of the grades as shown and
    ``50 -`` that average, which add up to 50 on the page. Teams: the average and FR 7's IMPs
    over the table's boards, each to the cent, halves away from zero, and the IMPs to the
    whole one."""

    entry: TableEntry
    average: float | None
    handicap: float | None  # pairs: percentage points; teams: IMPs over the table's boards
    handicap_whole: int | None  # teams: to the whole IMP (FR 7's "= 37 IMPs")


@dataclass(frozen=True)
class MatchFigures:
    """Between two teams, what the weaker starts with (FR 7), as published."""

    stronger: TableEntry
    weaker: TableEntry
    stronger_average: float
    weaker_average: float
    imps: float
    imps_whole: int


@dataclass(frozen=True)
class TableFigures:
    lines: list[EntryFigures]
    matches: list[MatchFigures]
    team_factor: float  # IMPs per board per grade point (FR 7: 2 / F_cross)


def handicap_figures(table: HandicapTable, params: NGSParams | None = None) -> TableFigures:
    """Every line of the table and, for teams, every match (S8, FR 7)."""
    params = params or active_params()
    lines: list[EntryFigures] = []
    averages: dict[int, float] = {}  # exact averages of the complete teams, by entry index
    for entry in table.entries:
        grades = entry.grades
        if grades is None:
            lines.append(EntryFigures(entry, None, None, None))
        elif entry.kind == PAIRS:
            average, handicap = pair_figures(*grades)
            lines.append(EntryFigures(entry, average, handicap, None))
        else:
            exact = averages[entry.index] = mean_grade(grades)
            imps = team_handicap(exact, entry.boards, params)
            lines.append(EntryFigures(entry, cents(exact), cents(imps), whole(imps)))
    matches = []
    teams = [line.entry for line in lines if line.entry.index in averages]
    for i, first in enumerate(teams):
        for second in teams[i + 1 :]:
            a, b = averages[first.index], averages[second.index]
            stronger, weaker = (first, second) if a >= b else (second, first)
            high, low = max(a, b), min(a, b)
            imps = match_handicap(high, low, table.boards, params)
            matches.append(
                MatchFigures(stronger, weaker, cents(high), cents(low), cents(imps), whole(imps))
            )
    return TableFigures(lines, matches, params.team_handicap_factor)
