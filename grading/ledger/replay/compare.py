"""``replay --check`` on the compiled kernel: the ledger folded from empty (read as columns,
``grading.ledger.replay.read``) and compared with every stored session grade, current grade and
partnership grade in sorted streams (S5.4, S14.11).

The fold hands each graded version's member records over in sequence order; the stored session
grades are read in the same order (``entry.seq``, then creation order) through a server-side
cursor, so the two are merged as they come: memory holds one version's rows, not the ledger's.
Current and partnership grades are then streamed and each compared with the fold's state.
"""

from __future__ import annotations

import math
import time
from array import array
from collections.abc import Iterator
from itertools import islice

from django.db import connection

from grading.common.pgcopy import GatheredColumns, copy_columns, gathered
from grading.engine.ngs.cfold import RECORD_PARTS, RecordsReplay
from grading.engine.ngs.params import NGSParams
from grading.engine.ngs.types import partnership_key
from grading.engine.ngs.windowrules import STATUS_CODES
from grading.ledger.replay.beside import SubjectsCheckBeside
from grading.ledger.replay.read import CHUNK_ROWS, FoldStats, Progress, fold_ledger, member_numbers
from grading.ledger.replay.tablecheck import subjects_check
from grading.models import CurrentGrade, LedgerEntry, PartnershipGrade, SessionGrade

__all__ = ["check_compiled", "last_stats"]

# par is in the session's own units (aggregate: points, up to tens of thousands), so it is
# compared relative to its size; every other part is a grade, compared absolutely
_PAR = RECORD_PARTS.index("par")
# the fold's records as the temporary table's columns: seq, version, member, the figures
_RECORD_LAYOUT = (
    gathered("const", "q", "seq"),
    gathered("const", "q", "version"),
    gathered("rows", "i", "member"),
    gathered("block", "d", *(f"v{k}" for k in range(len(RECORD_PARTS)))),
)
last_stats: dict[str, FoldStats] = {}


def _shown(value: float) -> float | None:
    return None if math.isnan(value) else value


class _SessionGradeMerge:
    """The stored session grades, merged with the fold's records as they come."""

    def __init__(self, numbers: list[str], tol: float) -> None:
        rows = (
            SessionGrade.objects.filter(entry__isnull=False)
            .order_by("entry__seq", "pk")
            .values_list("entry__seq", "version_id", "member_id", *RECORD_PARTS)
        )
        self.rows: Iterator[tuple] = rows.iterator(CHUNK_ROWS)
        self.pending = next(self.rows, None)
        self.numbers = numbers
        self.tol = tol
        self.problems: list[str] = []
        self._orphans: set[int] = set()

    def _orphan(self, row: tuple) -> None:
        if row[1] not in self._orphans:
            self._orphans.add(row[1])
            self.problems.append(f"version {row[1]}: session grades stored but not in the ledger")

    def _differ(self, seq: int, version: str, member: int, k: int, x, y: float) -> None:
        where = f"seq {seq} version {version} member {self.numbers[member]}"
        self.problems.append(f"{where}: {RECORD_PARTS[k]} stored {x} computed {_shown(y)}")

    def __call__(self, seq: int, version: str, ids: array[int], values: array[float]) -> None:
        mine: dict[int, tuple] = {}
        while self.pending is not None and self.pending[0] <= seq:
            row = self.pending
            if row[0] < seq:
                self._orphan(row)
            else:
                mine[row[2]] = row
            self.pending = next(self.rows, None)
        width = len(RECORD_PARTS)
        tol, par = self.tol, _PAR
        for j, member in enumerate(ids):
            row = mine.pop(member, None)
            if row is None:
                where = f"seq {seq} version {version} member {self.numbers[member]}"
                self.problems.append(f"{where}: session grade missing")
                continue
            at = width * j
            for k in range(width):  # (inline: this loop runs for every stored figure)
                x, y = row[3 + k], values[at + k]
                if x is None:
                    if y == y:  # not NaN: a figure where None is stored
                        self._differ(seq, version, member, k, x, y)
                elif not abs(x - y) <= (tol * max(1.0, abs(y)) if k == par else tol):
                    self._differ(seq, version, member, k, x, y)
        self.problems += [
            f"seq {seq}: member {self.numbers[m]} has a grade the fold does not give" for m in mine
        ]

    def finish(self) -> list[str]:
        while self.pending is not None:
            self._orphan(self.pending)
            self.pending = next(self.rows, None)
        return self.problems


class _SessionGradeTable:
    """PostgreSQL: the fold's records COPYed into a temporary table as they come, then
    compared with the stored session grades in one query that returns only the differences
    (the comparison runs in the database, not figure by figure in Python)."""

    TABLE = "ledger_check_records"

    def __init__(self, numbers: list[str], tol: float) -> None:
        self.numbers, self.tol = numbers, tol
        self.out = GatheredColumns(_RECORD_LAYOUT)
        self.seqs: set[int] = set()
        with connection.cursor() as cursor:
            cursor.execute(f"DROP TABLE IF EXISTS {self.TABLE}")
            cursor.execute(f"CREATE TEMPORARY TABLE {self.TABLE} ({self.out.columns_sql()})")

    def __call__(self, seq: int, version: str, ids: array[int], values: array[float]) -> None:
        self.seqs.add(seq)
        self.out.add(len(ids), seq, int(version), ids, values)
        if self.out.rows >= CHUNK_ROWS:
            self._write()

    def _write(self) -> None:
        """One binary COPY of the rows gathered (NaN stands for None)."""
        if not self.out.rows:
            return
        with connection.cursor() as cursor:
            copy_columns(cursor.connection.cursor(), self.TABLE, self.out.take())

    def finish(self) -> list[str]:
        self._write()
        grade = SessionGrade._meta.db_table
        entry = LedgerEntry._meta.db_table
        stored = [f"s.{part}" for part in RECORD_PARTS]
        computed = [f"NULLIF(r.v{k}, 'NaN')" for k in range(len(RECORD_PARTS))]
        tests = []
        for k, part in enumerate(RECORD_PARTS):
            s, c = stored[k], computed[k]
            tol = f"%s * GREATEST(1, abs({c}))" if part == "par" else "%s"
            tests.append(f"({s} IS NULL) <> ({c} IS NULL) OR abs({s} - {c}) > {tol}")
        sql = (
            f"SELECT COALESCE(s.seq, r.seq), COALESCE(s.version_id, r.version), "
            f"COALESCE(s.member_id, r.member), s.member_id IS NULL, r.member IS NULL, "
            f"{', '.join(stored)}, {', '.join(computed)} "
            f"FROM (SELECT g.*, e.seq FROM {grade} g JOIN {entry} e ON e.id = g.entry_id) s "
            f"FULL OUTER JOIN {self.TABLE} r ON r.seq = s.seq AND r.member = s.member_id "
            f"WHERE s.member_id IS NULL OR r.member IS NULL OR "
            + " OR ".join(f"({test})" for test in tests)
            + " ORDER BY 1, 3"
        )
        params = [self.tol] * len(tests)
        problems: list[str] = []
        orphans: set[int] = set()
        width = len(RECORD_PARTS)
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            found = cursor.fetchall()
            cursor.execute(f"DROP TABLE {self.TABLE}")
        for seq, version, member, no_stored, no_computed, *figures in found:
            number = self.numbers[member]
            where = f"seq {seq} version {version} member {number}"
            if no_stored:
                problems.append(f"{where}: session grade missing")
            elif no_computed:
                if seq in self.seqs:
                    problems.append(
                        f"seq {seq}: member {number} has a grade the fold does not give"
                    )
                elif version not in orphans:
                    orphans.add(version)
                    problems.append(
                        f"version {version}: session grades stored but not in the ledger"
                    )
            else:
                for k, part in enumerate(RECORD_PARTS):
                    x, y = figures[k], figures[width + k]
                    scale = max(1.0, abs(y)) if part == "par" and y is not None else 1.0
                    if (x is None) != (y is None) or (
                        x is not None and abs(x - y) > self.tol * scale
                    ):
                        problems.append(f"{where}: {part} stored {x} computed {y}")
        return problems


def check_compiled(
    params: NGSParams,
    tol: float,
    progress: Progress | None,
    *,
    in_database: bool | None = None,
    snapshot: str | None = None,
) -> list[str]:
    """Every stored figure the compiled fold of the ledger does not reproduce. The session
    grades are compared in the database on PostgreSQL (``in_database``: the default), else
    merged in Python. ``snapshot``: the check's exported snapshot, when it has one; the subject
    tables are then compared on a second connection in that snapshot, beside the fold
    (``grading.ledger.replay.beside``), else after it."""
    t0 = time.perf_counter()
    beside = SubjectsCheckBeside(snapshot, tol) if snapshot else None
    numbers = member_numbers()
    if in_database is None:
        in_database = connection.vendor == "postgresql"
    merge = (_SessionGradeTable if in_database else _SessionGradeMerge)(numbers, tol)
    fold = RecordsReplay(params, sink=merge)
    fold.register(numbers)
    # the check's phases go with the fold's figures (the bench prints them)
    last_stats["check"] = stats = fold_ledger(fold, progress=progress)
    t0 = stats.timed("fold", t0)
    problems = merge.finish()
    t0 = stats.timed("session_grades", t0)
    problems += _current_grades(fold, tol)
    t0 = stats.timed("current", t0)
    problems += _partnerships(fold, tol)
    t0 = stats.timed("partnerships", t0)
    problems += beside.result() if beside is not None else subjects_check(tol)
    stats.timed("subjects_left" if beside is not None else "subjects", t0)
    return problems


def _current_grades(fold: RecordsReplay, tol: float) -> list[str]:
    problems = []
    numbers = fold.numbers
    rows = CurrentGrade.objects.values_list(
        "member_id", "grade", "status", "boards_in_window", "as_of"
    ).iterator(CHUNK_ROWS)
    for member, grade, status, boards, as_of in rows:
        number = numbers[member]
        computed = fold.grade(number, as_of.toordinal())
        if computed is None:
            problems.append(f"member {number}: current grade stored but never graded")
            continue
        value, code, window, _ = computed
        if abs(grade - value) > tol or (status, boards) != (STATUS_CODES[code].value, window):
            problems.append(
                f"member {number}: stored {grade} {status} {boards}, "
                f"computed {value} {STATUS_CODES[code].value} {window}"
            )
    return problems


def _partnerships(fold: RecordsReplay, tol: float) -> list[str]:
    """Every stored partnership grade against the fold's, a chunk of rows per call into the
    kernel (``partnership_grades_of``): 1.3 million nationally, asked one by one through ctypes
    they took 9 s of the check (docs/benchmarks.md, session 29). The stored ends are member
    keys, which are the fold's ids (``register``)."""
    rows = PartnershipGrade.objects.values_list("member_a_id", "member_b_id", "grade", "as_of")
    stored = rows.iterator(CHUNK_ROWS)
    problems: list[str] = []
    while chunk := list(islice(stored, CHUNK_ROWS)):
        problems += _partnerships_chunk(fold, chunk, tol)
    return problems


def _partnerships_chunk(fold: RecordsReplay, rows: list[tuple], tol: float) -> list[str]:
    a = array("i", [row[0] for row in rows])
    b = array("i", [row[1] for row in rows])
    days = array("i", [row[3].toordinal() for row in rows])
    computed, found = fold.partnership_grades_of(a, b, days)
    problems = []
    for j, (x, y, grade, _) in enumerate(rows):
        # (a NaN computed is never "differs": as the grades were compared one by one)
        if found[j] and not abs(grade - computed[j]) > tol:
            continue
        key = partnership_key(fold.numbers[x], fold.numbers[y])
        if not found[j]:
            problems.append(f"partnership {key}: stored but never graded")
        else:
            problems.append(f"partnership {key}: stored {grade}, computed {computed[j]}")
    return problems
