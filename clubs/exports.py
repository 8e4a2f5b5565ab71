"""Exports of the club pages: CSV, XLSX and the plain per-player handicap file (S7, S8).

Every export is built from one list of rows, so the CSV and the XLSX hold the same numbers.
Numbers are rounded to 2 decimals, as grades are shown (S14.11); handicap figures are those of
``clubs.selectors.handicap_figures``, the same as the page's (S8).

Text is never a formula (OWASP, CSV injection): names come from uploads (S14.2) and from the
handicap form. In a CSV a text cell starting with ``= + - @``, a tab or a line break gets a
leading ``'``; in an XLSX every text cell is written as a string (never a formula) and such a
cell is marked quote-prefixed. Numbers stay numbers, negative handicaps included.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

from django.http import HttpResponse
from django.utils.text import slugify
from openpyxl import Workbook
from openpyxl.styles import Font

from clubs.handicaps import ESTIMATE_NEEDED, PAIRS, HandicapTable
from clubs.selectors import GradeRow, cents, handicap_figures, player_handicap, round2

XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
GRADE_HEADER = ["national_number", "name", "grade", "band", "handicap_100", "handicap_50"]


def _round(value: float | None) -> float | None:
    return round2(value)


def grade_list_rows(rows: Iterable[GradeRow]) -> list[list]:
    """One line per member; private and provisional members without grade or handicap (S7)."""
    return [
        [r.number, r.name, _round(r.grade), r.band or None, r.handicap_100, r.handicap_50]
        for r in rows
    ]


def handicap_rows(table: HandicapTable) -> tuple[list[str], list[list]]:
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
    for figures in handicap_figures(table)[0]:
        entry = figures.entry
        line: list = [entry.index, entry.label]
        for j in range(slots):
            if j < len(entry.players):
                p = entry.players[j]
                line += [p.number or None, p.name, _round(p.grade), p.source or ESTIMATE_NEEDED]
            else:
                line += [None, None, None, None]
        line.append(figures.average)
        if table.kind == PAIRS:
            line.append(figures.handicap)
        else:
            line += [table.boards, figures.handicap, figures.handicap_whole]
        rows.append(line)
    return header, rows


def match_rows(table: HandicapTable) -> tuple[list[str], list[list]]:
    header = [
        "stronger",
        "stronger_average",
        "weaker",
        "weaker_average",
        "boards",
        "weaker_starts_with_imps",
        "rounded",
    ]
    return header, [
        [
            m.match.stronger.label,
            m.stronger_average,
            m.match.weaker.label,
            m.weaker_average,
            table.boards,
            m.imps,
            m.imps_whole,
        ]
        for m in handicap_figures(table)[1]
    ]


def player_handicap_lines(table: HandicapTable) -> list[tuple[str, float]]:
    """(membership number, handicap percent ``50 - grade``) for every player with a number
    and a grade or an estimate, in the table's order, each player once."""
    seen, lines = set(), []
    for player in table.players:
        if player.number and player.grade is not None and player.number not in seen:
            seen.add(player.number)
            lines.append((player.number, cents(player_handicap(player.grade))))
    return lines


# --------------------------------------------------------------------------------- writers

FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n", "\0")  # OWASP, and ASVS's NUL


def formula_like(value) -> bool:
    """Text a spreadsheet would read as a formula (or start one with); numbers never are."""
    return isinstance(value, str) and value.startswith(FORMULA_START)


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def _csv_cell(value) -> str:
    """A CSV field: text that could be a formula gets a leading ``'`` (OWASP)."""
    return "'" + value if formula_like(value) else _cell(value)


def csv_bytes(header: Sequence[str] | None, rows: Iterable[Sequence]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    if header:
        writer.writerow(header)
    writer.writerows([_csv_cell(v) for v in row] for row in rows)
    return out.getvalue().encode("utf-8")


def _append_row(sheet, row: Sequence) -> None:
    """One row; text is always a string cell, never a formula (openpyxl would otherwise make
    "=..." a formula), and formula-like text is quote-prefixed as Excel does."""
    sheet.append(list(row))
    for cell in sheet[sheet.max_row]:
        if isinstance(cell.value, str):
            cell.data_type = "s"
            if formula_like(cell.value):
                cell.quotePrefix = True


def xlsx_bytes(sheets: Sequence[tuple[str, Sequence[str], Iterable[Sequence]]]) -> bytes:
    """A workbook with one sheet per ``(title, header, rows)``; numbers stay numbers, text
    stays text."""
    book = Workbook()
    book.remove(book.active)
    for title, header, rows in sheets:
        sheet = book.create_sheet(title[:31])
        _append_row(sheet, header)
        for cell in sheet[1]:
            cell.font = Font(bold=True)
        for row in rows:
            _append_row(sheet, row)
        for column in sheet.columns:
            width = max(len(_cell(c.value)) for c in column)
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
