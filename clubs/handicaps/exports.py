"""Exports of the club pages: the grade list, the handicap table (CSV, XLSX) and the per-player
handicap files for the scoring programs (S7, S8, issue 20; docs/handicaps.md).

Every export is built from one list of rows, so the CSV and the XLSX hold the same numbers.
Handicap figures are ``clubs.handicaps.figures``'s, the same as the page's (S8), and every
per-player handicap is ``grading.engine.ngs.handicap``'s.

Text is never a formula (OWASP, CSV injection): names come from uploads (S14.2) and from the
handicap form. Every text cell goes through ``cell_text``: in a CSV a text starting with
``= + - @``, a tab, a line break or NUL gets a leading ``'``; in an XLSX every text cell is
written as a string (never a formula) and such a cell is marked quote-prefixed. Numbers stay
numbers, negative handicaps included, and show two decimals (``0.00``).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from django.http import HttpResponse
from django.utils.text import slugify
from openpyxl import Workbook
from openpyxl.styles import Font

from clubs.handicaps.figures import TableFigures
from clubs.handicaps.players import ClubPlayers
from clubs.handicaps.table import ESTIMATE_NEEDED, PAIRS, HandicapTable
from clubs.selectors.grades import GradeRow
from grading.common.spreadsheet import cell_text, formula_like
from grading.engine.ngs.handicap import (
    cents,
    ebuscore_handicap,
    own_handicap,
    scorebridge_handicap,
)

XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
CSV_TYPE = "text/csv; charset=utf-8"
# The status last, so that the columns a scoring program reads keep their places.
GRADE_HEADER = [
    "national_number",
    "name",
    "grade",
    "band",
    "handicap_100",
    "handicap_50",
    "status",
]
PLAYER_HEADER = ["membership_number", "first_name", "surname", "handicap"]


# ------------------------------------------------------------------------------- rows


def grade_list_rows(rows: Iterable[GradeRow]) -> list[list]:
    """The rows the page shows, one line per member, with the page's status column: a private
    or provisional member says so and has no grade, band or handicap (S7, issue 30)."""
    return [
        [
            r.number,
            r.name,
            None if r.grade is None else cents(r.grade),
            r.band or None,
            r.handicap_100,
            r.handicap_50,
            r.list_status,
        ]
        for r in rows
    ]


def handicap_rows(table: HandicapTable, figures: TableFigures) -> tuple[list[str], list[list]]:
    """One line per pair or team: players with their grades (or the estimate used), the
    average and the handicap (percent for pairs, IMPs over the table's boards for teams)."""
    slots = max((len(e.players) for e in table.entries), default=2 if table.kind == PAIRS else 4)
    header = ["entry", "name"]
    for j in range(1, slots + 1):
        header += [f"player{j}_number", f"player{j}_name", f"player{j}_grade", f"player{j}_source"]
    if table.kind == PAIRS:
        header += ["average_grade", "handicap_percent"]
    else:
        header += ["average_grade", "boards", "handicap_imps", "handicap_imps_rounded"]
    rows = []
    for line in figures.lines:
        entry = line.entry
        row: list = [entry.index, entry.label]
        for j in range(slots):
            if j < len(entry.players):
                p = entry.players[j]
                grade = None if p.grade is None else cents(p.grade)
                row += [p.number or None, p.name, grade, p.source or ESTIMATE_NEEDED]
            else:
                row += [None, None, None, None]
        row.append(line.average)
        if table.kind == PAIRS:
            row.append(line.handicap)
        else:
            row += [table.boards, line.handicap, line.handicap_whole]
        rows.append(row)
    return header, rows


MATCH_HEADER = [
    "stronger",
    "stronger_average",
    "weaker",
    "weaker_average",
    "boards",
    "weaker_starts_with_imps",
    "rounded",
]


def match_rows(table: HandicapTable, figures: TableFigures) -> tuple[list[str], list[list]]:
    return MATCH_HEADER, [
        [
            m.stronger.label,
            m.stronger_average,
            m.weaker.label,
            m.weaker_average,
            table.boards,
            m.imps,
            m.imps_whole,
        ]
        for m in figures.matches
    ]


# ---------------------------------------------------------- per-player files (issue 20)


@dataclass(frozen=True)
class Convention:
    """A scoring program's per-player handicap: what the number means and its sign."""

    key: str
    label: str
    meaning: str
    handicap: Callable[[float], int | float]


CONVENTIONS: dict[str, Convention] = {
    c.key: c
    for c in (
        Convention(
            "ebuscore",
            "EBUScore",
            "whole numbers by band, Ace -6 to Two +6: a negative handicap lowers the score",
            ebuscore_handicap,
        ),
        Convention(
            "scorebridge",
            "ScoreBridge and Pianola",
            "percentage points, grade − 50: a positive handicap lowers the score",
            scorebridge_handicap,
        ),
        Convention(
            "own",
            "This site's own",
            "percentage points, 50 − grade, added to the score",
            own_handicap,
        ),
    )
}


def player_rows(players: ClubPlayers, convention: Convention) -> list[list]:
    """membership number, first name, surname, handicap in the convention's units and sign;
    only members with a published grade (S7)."""
    return [
        [p.number, p.first_name, p.surname, convention.handicap(p.grade)] for p in players.players
    ]


# ---------------------------------------------------------------------------- writers


def csv_bytes(header: Sequence[str] | None, rows: Iterable[Sequence]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    if header:
        writer.writerow(header)
    writer.writerows([cell_text(v) for v in row] for row in rows)
    return out.getvalue().encode("utf-8")


def _append_row(sheet, row: Sequence) -> None:
    """One row; text is always a string cell, never a formula (openpyxl would otherwise make
    "=..." a formula), and formula-like text is quote-prefixed as Excel does. Decimal numbers
    show two decimals, dates as dates."""
    sheet.append(list(row))
    for cell in sheet[sheet.max_row]:
        if isinstance(cell.value, str):
            cell.data_type = "s"
            if formula_like(cell.value):
                cell.quotePrefix = True
        elif isinstance(cell.value, float):
            cell.number_format = "0.00"
        elif isinstance(cell.value, dt.date):
            cell.number_format = "d mmm yyyy"


def _width(value) -> int:
    if isinstance(value, dt.date):
        return 11
    return len(cell_text(value))


def xlsx_bytes(
    sheets: Sequence[tuple[str, Sequence[str], Iterable[Sequence]]],
    *,
    preamble: Sequence[Sequence] = (),
) -> bytes:
    """A workbook with one sheet per ``(title, header, rows)``; numbers stay numbers, text
    stays text. ``preamble`` rows (what the sheet is: the event, its date) head each sheet,
    a blank row after them."""
    book = Workbook()
    book.remove(book.active)
    for title, header, rows in sheets:
        sheet = book.create_sheet(title[:31])
        for row in preamble:
            _append_row(sheet, row)
            sheet.cell(sheet.max_row, 1).font = Font(bold=True)
        if preamble:
            sheet.append([])
        _append_row(sheet, header)
        for cell in sheet[sheet.max_row]:
            cell.font = Font(bold=True)
        for row in rows:
            _append_row(sheet, row)
        for column in sheet.columns:
            width = max(_width(c.value) for c in column[len(preamble) :] or column)
            sheet.column_dimensions[column[0].column_letter].width = min(max(width + 2, 8), 40)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def attachment(content: bytes, *, filename: str, content_type: str) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def export_name(*parts: str, ext: str) -> str:
    return "-".join(slugify(p) for p in parts if p) + f".{ext}"
