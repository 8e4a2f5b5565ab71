"""What an upload tells a club scorer: problems, warnings, badges, in a scorer's words.

Every text here is read by a user, so it names the thing itself and never a section of the
specification (issue 19 item 4); the sections are cited in these comments only.
"""

from __future__ import annotations

import datetime as dt
import re

from django.conf import settings

from grading.engine.types import SessionResult
from grading.ingest.problems import FileMeta, Problem

_SECTION = r"S\d{1,2}(?:\.\d{1,2})*"
_CITATIONS = (  # the forms readers and the engine's reasons use, most specific first
    (re.compile(rf"\s*\((?:see\s+)?(?:SPEC\s+)?{_SECTION}\)"), ""),  # "... graded (S3.1)."
    (re.compile(rf",\s*{_SECTION}\)"), ")"),  # "(24 assumed, S3.7)"
    (re.compile(r"\bS12\.1\b"), "the product's CSV format"),  # "Columns not in S12.1"
    (re.compile(r"\bS\d{1,2}\.\d{1,2}\b"), "the grading rule"),  # "as S3.6 allows"
)


def plain(text: str) -> str:
    """A message as a scorer reads it: no section numbers of the specification (a reader's
    or the engine's reason may cite one), single spaces, one full stop at most at the end."""
    text = text or ""
    for pattern, replacement in _CITATIONS:
        text = pattern.sub(replacement, text)
    text = re.sub(r"\s{2,}", " ", text).strip()
    return re.sub(r"\.{2,}$", ".", text)


def reason(text: str) -> str:
    """A not-graded reason to be followed by the page's own punctuation."""
    return plain(text).rstrip(".").strip()


def problem_json(problem: Problem) -> dict:
    return {"location": problem.location, "message": plain(problem.message), "line": problem.line}


def session_label(result: SessionResult, event_name: str) -> str:
    return f"{event_name}, {result.date:%-d %b %Y}" + (
        f", session {result.key.session}" if result.key.session != 1 else ""
    )


def readable_event_name(result: SessionResult, meta: FileMeta) -> str:
    """The event's name, or for a file without one the program that wrote it (the date is
    shown beside it everywhere), never the internal key derived for it (S14.1)."""
    if result.event_name.strip():
        return result.event_name.strip()
    if not result.key.event_id.startswith("auto-"):  # the club's own identifier (S12.1)
        return result.key.event_id
    program = (meta.program or "").strip()
    return f"Pairs from {program}" if program else "Pairs session"


def too_large(size: int) -> Problem:
    limit_mb = settings.UPLOAD_MAX_BYTES // (1024 * 1024)
    return Problem(
        "file",
        f"The file is {size / (1024 * 1024):.1f} MB; results files are limited to {limit_mb} MB. "
        "Export one event at a time from your scoring program.",
        code="too-large",
    )


def too_many_pairs(result: SessionResult, event_name: str) -> Problem:
    """A session larger than any club holds is a wrong export or a hostile file: refused
    before anything is stored or graded (issue 21 item 3)."""
    limit = settings.UPLOAD_MAX_PAIRS_PER_SESSION
    return Problem(
        session_label(result, event_name),
        f"This session has {len(result.pairs):,} pairs; a session of more than {limit:,} pairs "
        "cannot be a club's session. Check that the file holds one event's results, and export "
        "each session on its own.",
        code="too-many-pairs",
    )


def too_many_sessions(sessions: int) -> Problem:
    """A file of more sessions than one upload may hold (issue 32 item 9): its grading would
    keep every other club's uploads waiting."""
    limit = settings.UPLOAD_MAX_SESSIONS_PER_FILE
    return Problem(
        "file",
        f"This file holds {sessions:,} sessions; one file may hold at most {limit:,}. Export "
        "the results in several files (an event or a week at a time) and upload them one "
        "after another.",
        code="too-many-sessions",
    )


def too_many_pairs_in_file(pairs: int) -> Problem:
    """A file of more pairs, over all its sessions, than one upload may hold (issue 32 item
    9)."""
    limit = settings.UPLOAD_MAX_PAIRS_PER_FILE
    return Problem(
        "file",
        f"This file holds {pairs:,} pairs over all its sessions; one file may hold at most "
        f"{limit:,}. Export the results in several files (an event or a week at a time) and "
        "upload them one after another.",
        code="too-many-pairs-in-file",
    )


def too_many_files(limit: int) -> str:
    """More files in one upload than the page or the API takes at once (issue 32 item 9):
    none of them is read."""
    files = "file" if limit == 1 else "files"
    return (
        f"At most {limit} {files} can be uploaded at once: none of the files you chose was "
        f"uploaded. Choose {limit} or fewer and upload the rest afterwards."
    )


def future_date(result: SessionResult, event_name: str, today: dt.date) -> Problem:
    return Problem(
        session_label(result, event_name),
        f"The date of play, {result.date:%-d %b %Y}, is after today ({today:%-d %b %Y}). "
        "Correct the session's date in your scoring program and export the results again.",
        code="future-date",
    )


def old_date(result: SessionResult, event_name: str, window_start: dt.date) -> dict:
    """S14.16: an old file is accepted and graded in its place in the history, with a
    warning naming its date."""
    return {
        "location": session_label(result, event_name),
        "message": (
            f"This session was played on {result.date:%-d %b %Y}, more than three years ago "
            f"(grades today count sessions from {window_start:%-d %b %Y}). It is stored and "
            "takes its place in the players' histories, but it cannot change anyone's grade "
            "today."
        ),
        "line": None,
    }


def no_club_named(filename: str) -> Problem:
    return Problem(
        "file",
        f"{filename} names no club (neither the club's national number nor its name), so the "
        "club it belongs to cannot be found. Import it again with --club and the club's slug.",
        code="no-club",
    )


def club_registered(club) -> dict:
    """An operator's import registered the club the file names (S15: staff's own import may)."""
    number = f"club number {club.national_number}" if club.national_number else "no club number"
    return {
        "location": "file",
        "message": (
            f"The club this file names was not registered: it has been registered now as "
            f"{club.name} ({number}). Check its name and county on the staff's clubs page."
        ),
        "line": None,
    }


def duplicate_message(when: str) -> str:
    return f"This file was already uploaded on {when} and its sessions are in force; it is not graded again."


# Badges of the uploads list: (css class, label) that say what happened.
def upload_badge(upload) -> tuple[str, str]:
    status = upload.status
    if upload.summary.get("withdraw"):
        return {
            "received": ("stored", "Withdrawing"),
            "graded": ("graded", "Withdrawn"),
            "refused": ("refused", "Not withdrawn"),
            "failed": ("failed", "Withdrawal failed"),
        }.get(status, ("stored", status))
    if status == "received":
        return "stored", "Checking"
    if status == "stored":
        return "stored", "Grading"
    if status != "graded":
        return status, upload.get_status_display()
    states = [v.state for v in upload.versions.all()]
    if not states:
        return "duplicate", "Unchanged"
    graded = sum(s == "graded" or s == "withdrawn" for s in states)
    if graded == 0:
        return "duplicate", "Stored, not graded"  # the warning colour
    if graded < len(states):
        return "duplicate", f"{graded} of {len(states)} sessions graded"
    return "graded", "Graded"
