"""A traveller typed or pasted by a director: one line per table (the /tools/score/ page).

Each line: NS pair, EW pair, then the NS score (``420``, ``-100``), a split score (NS's score
then EW's, ``-400 -690``: S2.6), or an artificial adjusted score: one code for both sides
(``A60`` gives NS 60% and EW 40%; ``AVE`` 50/50; ``A6040``), or one code per side
(``A60 A60``). Fields are separated by spaces, tabs or commas. Blank lines and lines starting
with ``#`` are ignored.
"""

from __future__ import annotations

import re

from grading.engine.scoring import TravellerLine, parse_adjusted_score
from grading.ingest.problems import Problem

MAX_LINES = 200
_SEPARATORS = re.compile(r"[\s,;]+")
_INTEGER = re.compile(r"[+-]?\d+")


def parse_traveller_text(text: str, board: int = 1) -> tuple[list[TravellerLine], list[Problem]]:
    """The lines of one traveller, or the problems found (each with its line number)."""
    lines: list[TravellerLine] = []
    problems: list[Problem] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        content = raw.strip()
        if not content or content.startswith("#"):
            continue
        fields = [f for f in _SEPARATORS.split(content) if f]
        line, problem = _read_line(fields, number, board)
        if problem:
            problems.append(problem)
        elif line is not None:
            lines.append(line)
    if len(lines) > MAX_LINES:
        problems.append(Problem("traveller", f"At most {MAX_LINES} tables, please.", code="size"))
    if not lines and not problems:
        problems.append(
            Problem(
                "traveller", "Type one line per table: NS pair, EW pair, NS score.", code="empty"
            )
        )
    problems.extend(_repeated_pairs(lines))
    return lines, problems


def _read_line(
    fields: list[str], number: int, board: int
) -> tuple[TravellerLine | None, Problem | None]:
    where = f"line {number}"
    if len(fields) < 3 or len(fields) > 4:
        return None, Problem(
            where,
            f"Expected NS pair, EW pair and a score, found {len(fields)} field(s): "
            f"{' '.join(fields)!r}.",
            line=number,
        )
    ns_pair, ew_pair, *results = fields
    if ns_pair == ew_pair:
        return None, Problem(where, f"Pair {ns_pair} cannot play against itself.", line=number)
    if all(_INTEGER.fullmatch(r) for r in results):
        scores = [int(r) for r in results]
        bad = [s for s in scores if s % 10]
        if bad:
            return None, Problem(
                where, f"Bridge scores are multiples of 10; {bad[0]} is not.", line=number
            )
        ew_score = scores[1] if len(scores) == 2 and scores[1] != scores[0] else None
        return TravellerLine(board, ns_pair, ew_pair, ns_score=scores[0], ew_score=ew_score), None
    return _adjusted_line(results, number, board, ns_pair, ew_pair)


def _adjusted_line(
    results: list[str], number: int, board: int, ns_pair: str, ew_pair: str
) -> tuple[TravellerLine | None, Problem | None]:
    try:
        codes = [parse_adjusted_score(r) for r in results]
    except ValueError:
        return None, Problem(
            f"line {number}",
            f"{' '.join(results)!r} is neither a score nor an adjusted score "
            "(A60, A50, A40, AVE+, AVE, AVE-, A6040).",
            line=number,
        )
    if len(codes) == 1:
        ns_percent, ew_percent = codes[0]
        ew_percent = 100 - ns_percent if ew_percent is None else ew_percent
    else:
        (ns_percent, ns_second), (ew_percent, ew_second) = codes
        if ns_second is not None or ew_second is not None:
            return None, Problem(
                f"line {number}",
                "Give either one two-sided code (A6040) or one code per side.",
                line=number,
            )
    line = TravellerLine(
        board, ns_pair, ew_pair, ns_adjusted=f"A{ns_percent}", ew_adjusted=f"A{ew_percent}"
    )
    return line, None


def _repeated_pairs(lines: list[TravellerLine]) -> list[Problem]:
    seen: set[str] = set()
    problems = []
    for line in lines:
        for pair in (line.ns_pair, line.ew_pair):
            if pair in seen:
                problems.append(
                    Problem("traveller", f"Pair {pair} appears on more than one line.", code="pair")
                )
            seen.add(pair)
    return problems
