"""Results-file parsers (S12): USEBIO XML, PBN with results, and the product's CSV (S12.1).

Pure Python: no Django, Celery or settings. The one entry point is :func:`parse_file`, which
never raises on bad input: any file either parses into sessions or comes back with problems.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import defaultdict
from dataclasses import replace

from grading.engine.types import SessionResult
from grading.ingest import limits
from grading.ingest.crosscheck import crosscheck as crosscheck_session
from grading.ingest.csvformat import parse_csv
from grading.ingest.limits import EARLIEST_PLAY_DATE, MAX_UPLOAD_BYTES
from grading.ingest.pbn import parse_pbn
from grading.ingest.problems import FileMeta, ParseResult, Problem, ProblemLog
from grading.ingest.sniff import foreign_text, sniff_binary
from grading.ingest.usebio import parse_usebio
from grading.ingest.xmlsafe import read_xml

__all__ = [
    "EARLIEST_PLAY_DATE",
    "MAX_UPLOAD_BYTES",
    "FileMeta",
    "ParseResult",
    "Problem",
    "parse_file",
]

logger = logging.getLogger(__name__)

_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def parse_file(
    name: str,
    data: bytes,
    club: str,
    *,
    earliest: dt.date | str = EARLIEST_PLAY_DATE,
    max_bytes: int = MAX_UPLOAD_BYTES,
) -> ParseResult:
    """Read an uploaded results file for the club whose slug is ``club``.

    ``name`` is the uploaded file name (used in messages only: the format is recognised from
    the content). A date of play before ``earliest`` (a date, or ``YYYY-MM-DD``) is refused,
    and so is a file over ``max_bytes`` (the uploads pass the settings' ``UPLOAD_MAX_BYTES``,
    whose default is ``MAX_UPLOAD_BYTES``). Returns sessions, or problems and no sessions
    (S12: all or nothing).
    """
    if isinstance(earliest, str):
        earliest = dt.date.fromisoformat(earliest)
    if len(data) > max_bytes:
        size_mb = len(data) / (1024 * 1024)
        limit_mb = max_bytes / (1024 * 1024)
        return _refused(
            f"The file is {size_mb:.1f} MB; files over {limit_mb:g} MB are refused. A club session's "
            "results are normally well under 1 MB: check that this is the right file, or "
            "export it without hand records.",
            "too-large",
        )
    if not data.strip():
        return _refused(
            "The file is empty. Export the results from your scoring program again.", "empty"
        )
    what = sniff_binary(name, data)  # a database, an image...: say what it is (issue 29)
    if what is not None:
        return ParseResult(problems=(what,))
    nul = _first_nul_line(data)
    if nul is not None:
        return _refused(
            f"Line {nul} contains a NUL byte: the file is damaged, or is not a text file. "
            "Export the results from your scoring program again.",
            "nul-byte",
            line=nul,
        )
    try:
        return _with_crosscheck(_checked(_dispatch(name, data, club, earliest)))
    except Exception:  # never raise on bad input; log the bug and tell the administrator
        logger.exception("Parser failure on %r", name)
        return _refused(
            "The file could not be read because of an error in the product, not in your file. "
            "It has been logged; please send the file to the product's support.",
            "internal-error",
        )


def _first_nul_line(data: bytes) -> int | None:
    """The line of the first NUL byte in a file that is not UTF-16 (where NULs are normal).
    No text format allows one, and the database cannot store one (found by fuzzing)."""
    if data.startswith(_UTF16_BOMS):
        return None
    at = data.find(b"\x00")
    return None if at < 0 else data.count(b"\n", 0, at) + 1


def _dispatch(name: str, data: bytes, club: str, earliest: dt.date) -> ParseResult:
    head = _text_head(data)
    if head.startswith("<"):
        return _parse_xml(data, club, earliest)
    if head.startswith("%") or head.startswith("["):
        return parse_pbn(data, club, earliest=earliest)
    first_line = head.splitlines()[0].lower() if head else ""
    if "event_id" in first_line and "," in first_line:
        return parse_csv(data, club, earliest=earliest)
    if "event_id" in first_line:
        separator = next((c for c in ";\t|" if c in first_line), "another character")
        shown = {";": "semicolons", "\t": "tabs", "|": "bars"}.get(separator, separator)
        return _refused(
            f'"{name}" looks like the product\'s CSV format, but its columns are separated by '
            f"{shown}, not commas. Save it again as CSV with commas (in a spreadsheet: "
            '"CSV UTF-8 (comma delimited)").',
            "csv-separator",
            line=1,
        )
    foreign = foreign_text(name, head)
    if foreign is not None:
        return ParseResult(problems=(foreign,))
    return _refused(
        f'"{name}" is not a results file the product can read. Upload the USEBIO XML file '
        "your scoring program writes for the EBU, a PBN file with results (TotalScoreTable), "
        "or the product's CSV format with a header row starting event_id.",
        "unknown-format",
    )


def _checked(result: ParseResult) -> ParseResult:
    """Every format: a pair id may appear once per session, or grading could not tell the
    pairs apart (a damaged file, or a column the program filled wrongly); every value fits
    the database (issue 21)."""
    problems = limits.meta_problems(result.meta) if result.sessions else []
    for session in result.sessions:
        seen: set[str] = set()
        for pair in session.pairs:
            if pair.pair_id in seen:
                problems.append(
                    Problem(
                        f"{session.event_name or session.key.event_id}, pair {pair.pair_id}",
                        f"Pair {pair.pair_id} appears more than once in the session of "
                        f"{session.date:%d %b %Y}. Check the pair numbers in your scoring "
                        "program and export the results again.",
                        code="pair-repeated",
                    )
                )
            seen.add(pair.pair_id)
        problems += _repeated_members(session)
        problems += _implausible_figures(session)
        problems += limits.session_problems(session)
        problems += limits.score_problems(session)  # S14.26
    if not problems:
        return result
    return ParseResult((), result.problems + tuple(problems), result.warnings, result.meta)


# A club session is 18-27 boards, a long day's Swiss a few dozen: more is a slip (and would
# make grading work for minutes under the ledger's lock). Scores: limits.score_problems.
MAX_BOARDS = 200


def _implausible_figures(session: SessionResult) -> list[Problem]:
    """Board counts no real session has: refused,
    saying which pair, before they reach grading."""
    problems = []
    name = session.event_name or session.key.event_id
    for pair in session.pairs:
        where = f"{name}, pair {pair.pair_id}"
        if pair.boards is not None and pair.boards > MAX_BOARDS:
            problems.append(
                Problem(
                    where,
                    f"Pair {pair.pair_id} is said to have played "
                    f"{pair.boards} boards; a session has at most {MAX_BOARDS}. "
                    "Check the boards played.",
                    code="implausible",
                )
            )
    return problems


def _repeated_members(session: SessionResult) -> list[Problem]:
    """A member plays once in a session: the same membership number in two seats (S14.2:
    "0001001" and "1001" are one member) cannot be graded."""
    seats: dict[str, list[str]] = defaultdict(list)
    for pair in session.pairs:
        for player in pair.players:
            if player.number is not None:
                seats[player.number].append(pair.pair_id)
    problems = []
    for number, pair_ids in seats.items():
        if len(pair_ids) < 2:
            continue
        distinct = list(dict.fromkeys(pair_ids))
        where = ("pair " if len(distinct) == 1 else "pairs ") + " and ".join(distinct)
        problems.append(
            Problem(
                f"{session.event_name or session.key.event_id}, {where}",
                f"Membership number {number} is given to more than one player in the session "
                f"of {session.date:%d %b %Y} ({where}); spaces and leading zeros do not make "
                "a different number. Correct the players' numbers in your scoring program and "
                "export the results again.",
                code="member-repeated",
            )
        )
    return problems


def _with_crosscheck(result: ParseResult) -> ParseResult:
    """Warn where the file's totals disagree with its own travellers (S2, S14.21), naming the
    pair and the boards where the file's own per-board figures differ."""
    extra = [
        w
        for s in result.sessions
        if s.graded_flag
        for w in crosscheck_session(s, result.line_figures.get(s.key))
    ]
    if not extra:
        return result
    return replace(result, warnings=result.warnings + tuple(extra))


def _text_head(data: bytes) -> str:
    """The start of the file as text, for recognising its format."""
    head = data[:4096]
    if head.startswith(_UTF16_BOMS):
        return head.decode("utf-16", errors="replace").lstrip("\ufeff \t\r\n")
    if head.startswith(_UTF8_BOM):
        head = head[len(_UTF8_BOM) :]
    return head.decode("latin-1").lstrip(" \t\r\n")


def _parse_xml(data: bytes, club: str, earliest: dt.date) -> ParseResult:
    doc, problems = read_xml(data)
    if doc is None:
        return ParseResult(problems=tuple(problems), meta=FileMeta(format="usebio"))
    tag = doc.root.tag if isinstance(doc.root.tag, str) else ""
    tag = tag.rsplit("}", 1)[-1]  # "{namespace}name" -> "name"
    if tag.upper() != "USEBIO":
        return _foreign_xml(tag, doc.line(doc.root))
    log = ProblemLog()
    sessions, meta = parse_usebio(doc, club, log, earliest=earliest)
    return log.result(sessions, meta)


def _foreign_xml(tag: str, line: int | None) -> ParseResult:
    """XML of another kind (issue 20 item 3): say what was found, not "export again"."""
    shown = tag[:40] or "?"
    what = (
        "a web page, not a results file"
        if tag.lower() in ("html", "xhtml")
        else "another program's own XML, not a USEBIO results file"
    )
    return _refused(
        f"This file is {what}: its top element is <{shown}>, where a USEBIO file has "
        "<USEBIO>. The product reads USEBIO, the results format scoring programs write for the "
        'EBU (called "USEBIO" or "EBU XML" in their menus). Upload that file '
        "instead.",
        "not-usebio",
        line=line,
    )


def _refused(message: str, code: str, line: int | None = None) -> ParseResult:
    location = f"line {line}" if line else "file"
    return ParseResult(problems=(Problem(location, message, line=line, code=code),))
