"""``replay --check`` of the subject tables (issue 17): ``LedgerSubject``, ``LedgerHistory`` and
``LedgerLive`` compared, in the database, with the stored session grades the check has just
compared with the fold (S5.4, S14.11). No fold and no Python loop over rows: a few joins that
return only the differences.

What a whole fold keeps per subject, and where the stored grades hold it (grading.engine.ngs
``_process``, ``partnership_record``):

* a player's history entry is their live session grade: seq (the entry's), version, date,
  boards, session grade, factor, partner's number; no padding value (S4, S5.1);
* a player's initial grade is the grade before of their first graded appearance in a pair of
  two members, live or since withdrawn (S14.3, S14.7);
* a partnership's history entry is a live version where both members got a session grade:
  seq, version, date, boards, factor, and the padding value, the pair's average grade before
  (S6, S14.10); the first such version, live or not, gave its initial grade. Its session
  grade (the partnership's own grade before, plus the gain) is stored nowhere else and is not
  compared here: the stored partnership grades are, with the fold;
* a live version is a graded version: its process entry's seq and its session's date (S14.6).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connection

from grading.engine.ngs.ledger import CHECK_TOLERANCE
from grading.models import (
    LedgerEntry,
    LedgerHistory,
    LedgerLive,
    LedgerSubject,
    Session,
    SessionGrade,
    SessionVersion,
)
from members.models import Member

__all__ = ["SubjectJobs", "subjects_check"]

_T = {
    "history": LedgerHistory._meta.db_table,
    "subject": LedgerSubject._meta.db_table,
    "live": LedgerLive._meta.db_table,
    "grade": SessionGrade._meta.db_table,
    "entry": LedgerEntry._meta.db_table,
    "member": Member._meta.db_table,
    "version": SessionVersion._meta.db_table,
    "session": Session._meta.db_table,
}

# every graded member's session grade in the ledger (live or withdrawn), with its entry's seq
_GRADES = """
    SELECT g.member_id AS member, e.seq, g.live, g.version_id, g.date, g.boards, g.factor,
           g.session_grade, g.grade_before, g.partner_id, g.pair_id
    FROM {grade} g JOIN {entry} e ON e.id = g.entry_id
"""

# each history row of a player, and each live session grade, by (member, seq)
_PLAYER_ROWS = """
SELECT COALESCE(h.member, s.member), NULL, COALESCE(h.seq, s.seq), h.member IS NULL,
       s.member IS NULL
FROM (
    SELECT m.id AS member, h.seq, h.version_id, h.date, h.boards, h.grade, h.factor,
           h.partner, h.pad
    FROM {history} h JOIN {subject} j ON j.id = h.subject_id
    JOIN {member} m ON m.national_number = j.key
) h FULL OUTER JOIN (
    SELECT g.member, g.seq, g.version_id, g.date, g.boards, g.session_grade, g.factor,
           COALESCE(p.national_number, '') AS partner
    FROM ({grades}) g LEFT JOIN {member} p ON p.id = g.partner_id
    WHERE g.live AND g.session_grade IS NOT NULL
) s ON s.member = h.member AND s.seq = h.seq
WHERE h.member IS NULL OR s.member IS NULL OR h.version_id <> s.version_id
   OR h.date <> s.date OR h.boards <> s.boards OR abs(h.grade - s.session_grade) > %s
   OR abs(h.factor - s.factor) > %s OR h.partner <> s.partner OR h.pad IS NOT NULL
ORDER BY 1, 3
"""

# each player subject, and each member's first appearance beside a member (its grade before)
_PLAYER_INITIALS = """
SELECT COALESCE(m.id, f.member), j.key, 0, j.key IS NULL, f.member IS NULL
FROM (SELECT key, initial FROM {subject} WHERE key NOT LIKE '%%+%%') j
LEFT JOIN {member} m ON m.national_number = j.key
FULL OUTER JOIN (
    SELECT g.member, g.grade_before
    FROM ({grades}) g JOIN (
        SELECT g.member_id AS member, MIN(e.seq) AS seq
        FROM {grade} g JOIN {entry} e ON e.id = g.entry_id
        WHERE g.partner_id IS NOT NULL
        GROUP BY g.member_id
    ) first ON first.member = g.member AND first.seq = g.seq
) f ON f.member = m.id
WHERE j.key IS NULL OR f.member IS NULL OR m.id IS NULL OR abs(j.initial - f.grade_before) > %s
ORDER BY 1
"""

# each pair of members of a version who both got a session grade: a partnership's entry, key
# "a+b" with a < b (one pass grouping the grades by pair, no join of the grades with themselves)
_PAIRS = """
    SELECT MIN(x.national_number{binary}) || '+' || MAX(x.national_number{binary}) AS key,
           MIN(e.seq) AS seq, MIN(CASE WHEN g.live THEN 1 ELSE 0 END) AS live, g.version_id,
           MIN(g.date) AS date, MIN(g.boards) AS boards, MIN(g.factor) AS factor,
           SUM(g.grade_before) / 2 AS pad
    FROM {grade} g JOIN {entry} e ON e.id = g.entry_id JOIN {member} x ON x.id = g.member_id
    GROUP BY g.version_id, g.pair_id
    HAVING COUNT(*) = 2 AND COUNT(g.session_grade) = 2
"""

_PARTNERSHIP_ROWS = """
SELECT COALESCE(h.key, p.key), COALESCE(h.seq, p.seq), h.key IS NULL, p.key IS NULL
FROM (
    SELECT j.key, h.seq, h.version_id, h.date, h.boards, h.factor, h.partner, h.pad
    FROM {history} h JOIN {subject} j ON j.id = h.subject_id WHERE j.key LIKE '%%+%%'
) h FULL OUTER JOIN (SELECT * FROM ({pairs}) l WHERE l.live = 1) p
    ON p.key = h.key AND p.seq = h.seq
WHERE h.key IS NULL OR p.key IS NULL OR h.version_id <> p.version_id OR h.date <> p.date
   OR h.boards <> p.boards OR abs(h.factor - p.factor) > %s OR h.partner <> ''
   OR h.pad IS NULL OR abs(h.pad - p.pad) > %s
ORDER BY 1, 2
"""

# each partnership subject, and each partnership's first entry (its pair's average, S14.10)
_PARTNERSHIP_INITIALS = """
SELECT COALESCE(j.key, f.key), 0, j.key IS NULL, f.key IS NULL
FROM (SELECT key, initial FROM {subject} WHERE key LIKE '%%+%%') j
FULL OUTER JOIN (
    SELECT key, pad FROM (
        SELECT key, pad, ROW_NUMBER() OVER (PARTITION BY key ORDER BY seq) AS n
        FROM ({pairs}) p
    ) p WHERE n = 1
) f ON f.key = j.key
WHERE j.key IS NULL OR f.key IS NULL OR abs(j.initial - f.pad) > %s
ORDER BY 1
"""

_LIVE = """
SELECT COALESCE(l.version_id, v.id), l.version_id IS NULL, v.id IS NULL
FROM {live} l FULL OUTER JOIN (
    SELECT v.id, e.seq, s.date
    FROM {version} v JOIN {entry} e ON e.version_id = v.id AND e.operation = %s
    JOIN {session} s ON s.id = v.session_id
    WHERE v.state = %s
) v ON v.id = l.version_id
WHERE l.version_id IS NULL OR v.id IS NULL OR l.seq <> v.seq OR l.date <> v.date
ORDER BY 1
"""


# the pairs of members (``_PAIRS``) gathered once, for the two partnership comparisons
PAIRS_TABLE = "ledger_check_pairs"


def _sql(template: str) -> str:
    grades = _GRADES.format(**_T)
    return template.format(grades=grades, pairs=f"SELECT * FROM {PAIRS_TABLE}", **_T)


def _pairs_gather(cursor) -> None:
    """``_PAIRS`` into a temporary table: grouping every session grade by pair is the
    partnership comparisons' largest part, and both need it; analysed, so that their joins
    are planned on its size (a grouped query's is guessed)."""
    binary = ' COLLATE "C"' if connection.vendor == "postgresql" else ""  # SQLite: bytes
    pairs = _PAIRS.format(grades=_GRADES.format(**_T), binary=binary, **_T)
    cursor.execute(f"DROP TABLE IF EXISTS {PAIRS_TABLE}")
    cursor.execute(f"CREATE TEMPORARY TABLE {PAIRS_TABLE} AS {pairs}")
    cursor.execute(f"ANALYZE {PAIRS_TABLE}")


def _players(cursor, tol: float) -> list[str]:
    """The players' history rows against their live session grades."""
    rows = _fetch(cursor, _PLAYER_ROWS, [tol, tol])
    numbers = _numbers({row[0] for row in rows})
    return [
        _problem("player", key or numbers.get(member, member), seq, no_table, no_grade)
        for member, key, seq, no_table, no_grade in rows
    ]


def _player_initials(cursor, tol: float) -> list[str]:
    rows = _fetch(cursor, _PLAYER_INITIALS, [tol])
    numbers = _numbers({row[0] for row in rows})
    return [
        _problem("player", key or numbers.get(member, member), None, no_table, no_grade)
        for member, key, _, no_table, no_grade in rows
    ]


def _partnerships(cursor, tol: float) -> list[str]:
    """The partnerships' history rows and initial grades (both from the pairs gathered once,
    in a temporary table of this connection)."""
    _pairs_gather(cursor)
    rows = _fetch(cursor, _PARTNERSHIP_ROWS, [tol, tol])
    rows += [(k, None, a, b) for k, _, a, b in _fetch(cursor, _PARTNERSHIP_INITIALS, [tol])]
    cursor.execute(f"DROP TABLE {PAIRS_TABLE}")
    return [
        _problem("partnership", key, seq, no_table, no_grade)
        for key, seq, no_table, no_grade in rows
    ]


def _live(cursor, tol: float) -> list[str]:
    operation, graded = LedgerEntry.Operation.PROCESS.value, SessionVersion.State.GRADED.value
    problems = []
    for version, no_table, no_ledger in _fetch(cursor, _LIVE, [operation, graded]):
        if no_table:
            problems.append(f"version {version}: live in the ledger, not in the subject tables")
        elif no_ledger:
            problems.append(f"version {version}: live in the subject tables, not in the ledger")
        else:
            problems.append(f"version {version}: seq or date differs in the subject tables")
    return problems


# The comparisons, largest first (nationally about 59, 35, 11 and 0.2 s alone: docs/
# benchmarks.md, session 29): ``SubjectJobs`` hands them out from both ends. Their problems are
# listed in ``REPORTED``'s order, whichever connection ran them.
CHECKS: tuple[tuple[str, Callable[[Any, float], list[str]]], ...] = (
    ("partnerships", _partnerships),
    ("players", _players),
    ("player_initials", _player_initials),
    ("live", _live),
)
REPORTED = ("players", "player_initials", "partnerships", "live")


class SubjectJobs:
    """The comparisons shared by two connections in one snapshot: one takes them largest
    first (``run(first=True)``), the other, once its own work is done, smallest first; each
    comparison runs once, on whichever connection takes it."""

    def __init__(self, tol: float = CHECK_TOLERANCE) -> None:
        self.tol = tol
        self._left = list(CHECKS)
        self._done: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    def _take(self, first: bool) -> tuple[str, Callable[[Any, float], list[str]]] | None:
        with self._lock:
            if not self._left:
                return None
            return self._left.pop(0 if first else -1)

    def run(self, *, first: bool) -> None:
        """Run comparisons on this thread's connection until none is left."""
        with connection.cursor() as cursor:
            while (job := self._take(first)) is not None:
                name, compare = job
                self._done[name] = compare(cursor, self.tol)

    def problems(self) -> list[str]:
        """Every comparison's problems (each must have run)."""
        return [p for name in REPORTED for p in self._done[name]]


def subjects_check(tol: float = CHECK_TOLERANCE) -> list[str]:
    """Every difference between the subject tables and the stored session grades (see the
    module): an empty list, with the session grades equal to the fold's, means the next
    grading step reads what a whole fold would hold."""
    jobs = SubjectJobs(tol)
    jobs.run(first=True)
    return jobs.problems()


def _numbers(ids: set) -> dict:
    return dict(Member.objects.filter(pk__in=ids).values_list("pk", "national_number"))


def _fetch(cursor, template: str, params: list) -> list[tuple]:
    cursor.execute(_sql(template), params)
    return cursor.fetchall()


def _problem(name: str, subject, seq: int | None, no_table: bool, no_grade: bool) -> str:
    if seq is None:  # the subject and its initial grade
        if no_table:
            return f"{name} {subject}: graded, but not in the subject tables"
        if no_grade:
            return f"{name} {subject}: in the subject tables, never graded"
        return f"{name} {subject}: initial grade differs in the subject tables"
    where = f"{name} {subject} seq {seq}"
    if no_table:
        return f"{where}: a live session grade missing from the subject tables"
    if no_grade:
        return f"{where}: in the subject tables, not a live session grade"
    return f"{where}: history row in the subject tables differs from the stored session grade"
