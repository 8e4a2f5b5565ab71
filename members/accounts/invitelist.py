"""Reading a club administrator's list of members to invite: one ``number,email`` a line,
pasted or uploaded. Pure: it says what is wrong and where, and stores nothing."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from grading.engine.types import normalise_number

MAX_LINES = 2000


@dataclass(frozen=True)
class InviteLine:
    line: int
    number: str
    email: str


def _looks_like_header(cells: list[str]) -> bool:
    first = cells[0].strip().lower() if cells else ""
    return not any(ch.isdigit() for ch in first) and "@" not in ",".join(cells)


def _lines(reader, problems: list[str]):
    """The reader's rows; a line the CSV reader cannot read (a field over its 128 KB limit, a
    NUL) ends the list with a problem naming it (issue 32 item 10: it was a 500)."""
    while True:
        try:
            yield next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            why = "a field is far too long" if "field larger" in str(exc) else "it cannot be read"
            problems.append(
                f"Line {reader.line_num}: {why}. Each line should hold a membership number and "
                "an email address."
            )
            return


def invite_list_parse(text: str) -> tuple[list[InviteLine], list[str]]:
    """The lines of the list, and a problem for each line that cannot be used (all or nothing:
    the caller invites no one while there is a problem)."""
    sample = text[:2048]
    delimiter = ";" if sample.count(";") > sample.count(",") else ","
    if "\t" in sample and sample.count("\t") >= sample.count(delimiter):
        delimiter = "\t"
    rows: list[InviteLine] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    for number, cells in enumerate(_lines(reader, problems), 1):
        cells = [cell.strip() for cell in cells]
        if not any(cells):
            continue
        if not rows and not problems and number == 1 and _looks_like_header(cells):
            continue
        if len(rows) + len(problems) >= MAX_LINES:
            problems.append(f"The list has more than {MAX_LINES} lines; send it in parts.")
            break
        if len(cells) < 2:
            problems.append(
                f"Line {number}: expected a membership number and an email address separated "
                f"by a comma, found {cells[0][:60]!r}."
            )
            continue
        raw_number, email = cells[0], cells[1]
        member_number = normalise_number(raw_number)
        if member_number is None or not member_number.isalnum() or len(member_number) > 20:
            problems.append(f"Line {number}: {raw_number[:40]!r} is not a membership number.")
            continue
        try:
            validate_email(email)
        except ValidationError:
            problems.append(f"Line {number}: {email[:80]!r} is not an email address.")
            continue
        if member_number in seen:
            problems.append(
                f"Line {number}: membership number {member_number} is already on line "
                f"{seen[member_number]}."
            )
            continue
        seen[member_number] = number
        rows.append(InviteLine(number, member_number, email))
    if not rows and not problems:
        problems.append("The list is empty: give one membership number and email a line.")
    return rows, problems
