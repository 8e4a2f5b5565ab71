"""USEBIO 1.0-1.3 results files (FORMATS 2, 5; SPEC S12).

Both nestings are read: PARTICIPANTS/BOARD/MATCH directly under EVENT (ScoreBridge, Compscore,
BriAn, RealBridge) or inside SESSION and SECTION (EBU examples, EBUScore). Each SESSION becomes
one :class:`SessionResult`; the sections of a session are one field, told apart by
``PairEntry.section``. Pair totals come from the file (FORMATS 7.5); travellers are kept for
display and for the cross-check.
"""

from __future__ import annotations

import datetime as dt

from grading.engine.types import SessionResult
from grading.ingest import common
from grading.ingest.limits import EARLIEST_PLAY_DATE
from grading.ingest.problems import FileMeta, ProblemLog
from grading.ingest.usebio.reader import EventReader
from grading.ingest.usebio.shapes import (
    KNOWN_VERSIONS,
    REASON_HEAD_TO_HEAD,
    REASON_INDIVIDUAL,
    REASON_NO_LINEUPS,
    REASON_PAB,
    REASON_TEAMS_V10,
    hand_record_boards,
    hand_record_message,
    program_of,
)
from grading.ingest.xmlsafe import XmlDocument
from grading.ingest.xmltext import attr, child_path, children, find, text

__all__ = [
    "KNOWN_VERSIONS",
    "REASON_HEAD_TO_HEAD",
    "REASON_INDIVIDUAL",
    "REASON_NO_LINEUPS",
    "REASON_PAB",
    "REASON_TEAMS_V10",
    "parse_usebio",
]


def parse_usebio(
    doc: XmlDocument, club: str, log: ProblemLog, *, earliest: dt.date = EARLIEST_PLAY_DATE
) -> tuple[list[SessionResult], FileMeta]:
    root = doc.root
    version = attr(root, "Version")
    club_el = find(root, "CLUB")
    club_name = (text(club_el, "CLUB_NAME") or "") if club_el is not None else ""
    club_id = common.clean_club_id(text(club_el, "CLUB_ID_NUMBER")) if club_el is not None else None
    events = list(children(root, "EVENT"))
    first_event = events[0][1] if events else None
    meta = FileMeta(
        format="usebio",
        format_version=version,
        program=program_of(first_event) if first_event is not None else "",
        national_club_id=club_id,
        club_name=club_name,
        event_type=attr(first_event, "EVENT_TYPE") if first_event is not None else "",
        charge_code=(text(first_event, "P2P_CHARGE_RATE", "EBU_CHARGE_CODE") or "")
        if first_event is not None
        else "",
        encoding=doc.encoding,
    )
    if version and version not in KNOWN_VERSIONS:
        log.warn(
            "USEBIO@Version",
            f'The file says it is USEBIO version "{version}"; the product knows 1.0 to 1.3 '
            "and read it as those. Check the results shown before grading them.",
            line=doc.line(root),
            code="usebio-version",
        )
    if doc.reencoded:
        log.warn(
            "file",
            "The file's text was not in the character set it declares; it was read as "
            "Windows-1252. Check that names with accents look right.",
            code="encoding",
        )
    deals = hand_record_boards(root)
    if not events and deals:
        log.problem("USEBIO", hand_record_message(deals), line=doc.line(root), code="hand-record")
        return [], meta
    if not events:
        log.problem(
            "USEBIO",
            "The file has no EVENT element, so it holds no results. Export the session's "
            "results from your scoring program again.",
            line=doc.line(root),
            code="no-event",
        )
        return [], meta
    sessions: list[SessionResult] = []
    multiple = len(events) > 1
    for index, event in events:
        path = child_path("", "EVENT", index) if multiple else "EVENT"
        sessions.extend(EventReader(doc, event, path, club, version, log, earliest).read())
    return sessions, meta
