"""What a file that is not a results file is (issue 29 item 4; S12: every problem says what it
is and what to do). Recognised from its first bytes (a database, an image, a document, an
archive) or its first line (another program's CSV, a ranking with no pair numbers), so the
refusal names the file and says what to send instead, before any reader tries it.

Pure: bytes in, a :class:`Problem` or None out.
"""

from __future__ import annotations

import re

from grading.ingest.problems import Problem

__all__ = ["foreign_text", "sniff_binary"]

_SEND_USEBIO = (
    "Upload the results file your scoring program writes for the EBU (the USEBIO XML file, "
    'called "USEBIO" or "EBU XML" in its menus), a PBN file with the pairs\' ranking, or the '
    "results typed into the product's CSV format (header row starting event_id)."
)

# (signature, offset, what the file is): the first bytes every file of the kind starts with.
_IMAGES = (
    (b"\x89PNG\r\n\x1a\n", 0, "a PNG image"),
    (b"\xff\xd8\xff", 0, "a JPEG image"),
    (b"GIF87a", 0, "a GIF image"),
    (b"GIF89a", 0, "a GIF image"),
    (b"BM", 0, "a bitmap image"),
    (b"II*\x00", 0, "a TIFF image"),
    (b"MM\x00*", 0, "a TIFF image"),
    (b"WEBP", 8, "a WebP image"),
    (b"ftypheic", 4, "a HEIC photo"),
    (b"ftypmif1", 4, "a HEIC photo"),
)
_JET = (b"\x00\x01\x00\x00Standard Jet DB", b"\x00\x01\x00\x00Standard ACE DB")
_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ZIP = b"PK\x03\x04"


def sniff_binary(name: str, data: bytes) -> Problem | None:
    """The refusal for a file that is a database, an image, a document or an archive, or None
    when it is none of these (then the readers decide)."""
    head = data[:64]
    shown = _shown_name(name)
    if head.startswith(_JET):
        return _refusal(
            "scoring-database",
            f"{shown} is {_database_kind(name)}: the contracts and scores as entered at the "
            "tables, not a scored results file, and the product cannot read it. Score the "
            "session in your scoring program (EBUScore, ScoreBridge and others read this file), "
            'then upload the USEBIO XML results file it writes for the EBU (called "USEBIO" or '
            '"EBU XML" in its menus).',
        )
    if head.startswith(b"SQLite format 3\x00"):
        return _refusal(
            "scoring-database",
            f"{shown} is a database (SQLite), a program's own data file, not a results file. "
            f"{_SEND_USEBIO}",
        )
    for signature, offset, what in _IMAGES:
        if head[offset : offset + len(signature)] == signature and (
            signature != b"BM" or _plausible_bitmap(data)
        ):
            return _refusal(
                "image",
                f"{shown} is {what} (a photo or screenshot of the results?): the product "
                f"cannot read results from a picture. {_SEND_USEBIO}",
            )
    if head.startswith(b"%PDF-"):
        return _refusal(
            "document",
            f"{shown} is a PDF document (a printed results sheet?): the product cannot read "
            f"results from it. {_SEND_USEBIO}",
        )
    if head.startswith(_OLE2):
        return _refusal(
            "document",
            f"{shown} is a Microsoft Office file (an older Excel, Word or Access file), not a "
            "results file. If it is a spreadsheet of results in the product's columns, save "
            f'it as "CSV UTF-8 (comma delimited)" and upload that. {_SEND_USEBIO}',
        )
    if head.startswith(_ZIP):
        return _refusal("archive", f"{shown} is {_zip_kind(data)}. {_SEND_USEBIO}")
    return None


def _refusal(code: str, message: str) -> Problem:
    return Problem("file", message, code=code)


def _shown_name(name: str) -> str:
    cleaned = "".join(c for c in (name or "") if c.isprintable())[:80]
    return f'"{cleaned}"' if cleaned else "The file"


def _database_kind(name: str) -> str:
    lowered = (name or "").lower()
    if lowered.endswith(".bws"):
        return "a Bridgemate scoring database (.bws, a Microsoft Access file)"
    return "a Microsoft Access database (as a Bridgemate .bws file is)"


def _plausible_bitmap(data: bytes) -> bool:
    """ "BM" starts a Windows bitmap, whose header gives the file's size (bytes 2-5); text
    starting "BM" (a name) does not."""
    return len(data) >= 26 and int.from_bytes(data[2:6], "little") == len(data)


def _zip_kind(data: bytes) -> str:
    head = data[:4096]
    if b"xl/" in head:
        return (
            "an Excel workbook (.xlsx), not a results file. If it holds results in the "
            'product\'s columns, save the sheet as "CSV UTF-8 (comma delimited)" and upload '
            "that"
        )
    if b"word/" in head:
        return "a Word document, not a results file"
    if b"ppt/" in head or b"opendocument" in head:
        return "an office document, not a results file"
    return "a zip archive: unzip it and upload the results file inside, one file at a time"


# ---- text that is not the product's CSV --------------------------------------------------

_SEPARATORS = ",;\t"
_PAIR_WORDS = re.compile(r"^(pair|pairs|pair ?no|pair ?number|pairno|pairid|no|num|number|#)$")
_RANK_WORDS = re.compile(r"^(rank|pos|position|place|plc)$")
_NAME_WORDS = re.compile(r"^(name|names|player|players|pair names|name1|name2|player ?1)$")
_SCORE_WORDS = re.compile(r"^(score|total|percent|percentage|pct|%|mps|imps|vps|result)$")


def _tabular(lines: list[str], separator: str) -> bool:
    """A table: the second line (when there is one) has as many fields as the first, give
    or take an empty last one."""
    if len(lines) < 2:
        return True
    first, second = lines[0].count(separator), lines[1].count(separator)
    return abs(first - second) <= 1


def foreign_text(name: str, head: str) -> Problem | None:
    """The refusal for a text file that another program wrote in its own columns (a CSV or
    a ranking), or None when the first line does not look like one."""
    lines = [ln for ln in head.splitlines() if ln.strip()]
    if not lines:
        return None
    first = lines[0].strip()
    shown = _shown_name(name)
    quoted = first[:60] + ("..." if len(first) > 60 else "")
    if first.upper().startswith(("#VERSION", "#LINE", "#SCORES", "#DATE", "#TITLE")):
        return _refusal(
            "foreign-csv",
            f"{shown} is a BridgeWebs upload file (CSV), which has no membership numbers, so "
            f"its players cannot be graded. {_SEND_USEBIO}",
        )
    separator = max(_SEPARATORS, key=first.count)
    cells = [c.strip().strip('"').strip().lower() for c in first.split(separator)]
    if first.count(separator) < 2 or not _tabular(lines, separator):
        return None
    if first.upper().startswith("PARAMETERS"):
        what = "an ImportUsebio manual CSV"
    elif any(_NAME_WORDS.match(c) for c in cells) and any(
        _SCORE_WORDS.match(c) or _RANK_WORDS.match(c) for c in cells
    ):
        if not any(_PAIR_WORDS.match(c) for c in cells):
            return _refusal(
                "ranking-no-pairs",
                f'{shown} is a ranking with no pair numbers (its columns are "{quoted}"), so '
                "pairs and their opponents cannot be told apart, and it has no membership "
                f"numbers to grade. {_SEND_USEBIO}",
            )
        what = "a ranking in another program's CSV columns"
    else:
        what = "a CSV file from another program"
    return _refusal(
        "foreign-csv",
        f'{shown} is {what} (its first line is "{quoted}"), not the product\'s CSV format, '
        f"whose header row starts with event_id. {_SEND_USEBIO}",
    )
