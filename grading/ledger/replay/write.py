"""The whole-ledger refold in bulk (issue 18; S5.4, S14.6, S14.11): the ledger read as columns
(``grading.ledger.replay.read``), folded by a producer that hands the writer one ``VersionOut`` per
processed operation and, at the end, every current grade, partnership grade and live history
(``grading.engine.ngs.foldout``), and everything written with PostgreSQL COPY in ONE
transaction under the ledger lock: an interrupted refold is rolled back whole, and pages read
the old rows until it commits (no TRUNCATE, no ACCESS EXCLUSIVE lock).

What is written, as the step-by-step refold (``run._refold_stepwise``) wrote it:

* session grades of every ledger entry (the fold's records; ``live`` false for a withdrawn
  version's); a not-graded version's rows (no ledger entry) are left as they are;
* each pair's figures (``PairResult``: score term, SOpp, par, excess);
* each processed version's state (graded, withdrawn, or not graded with the reason), SoF and
  pair counts;
* every current and partnership grade, all as of the ledger's reference date (what
  the national builder and the nightly refresh store; the step-by-step refold left each as of
  the last step that touched it);
* the subject tables a grading step reads (``LedgerSubject``, ``LedgerHistory``,
  ``LedgerLive``) and what they hold (``LedgerTables``).

The fold's rows go to staging tables by binary COPY as they come (a chunk at a time:
memory holds one chunk, not the ledger), on a second connection beside the fold where the
refold is a transaction of its own (``grading.ledger.replay.side``), then each table is merged
with them by set-based statements (``grading.ledger.replay.merge``): only a row that changed
is written, in place. A replay with the same set writes (nearly) nothing; a change of set
updates each row once.
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.conf import settings
from django.db import connection

from grading.common.pgcopy import (
    DATE_EPOCH,
    GatheredColumns,
    bulk_memory,
    copy_columns,
    gathered,
)
from grading.engine.ngs.foldout import (
    PAIR_FIGURES,
    REASONS,
    RECORD_FIGURES,
    CurrentOut,
    HistoriesOut,
    PartnershipsOut,
    VersionOut,
)
from grading.engine.ngs.params import NGSParams
from grading.ledger.replay.merge import (
    current_place,
    differs,
    float_columns,
    is_empty,
    merge,
    nan_none,
    partnerships_place,
    rewrite,
    tables_analyze,
)
from grading.ledger.replay.phases import PhaseTimes
from grading.ledger.replay.side import rows_written, stage_copier
from grading.ledger.replay.subjectsmerge import subjects_job, subjects_stage, subjects_write
from grading.ledger.subjects import HISTORY, tables_marked
from grading.models import (
    CurrentGrade,
    LedgerEntry,
    PairResult,
    PartnershipGrade,
    SessionGrade,
    SessionVersion,
)

__all__ = ["RefoldStats", "RefoldWriter", "ledger_entries"]

CHUNK_ROWS = 50_000  # records gathered before a COPY
GRADES = SessionGrade._meta.db_table
PAIRS = PairResult._meta.db_table
VERSIONS = SessionVersion._meta.db_table
CURRENT = CurrentGrade._meta.db_table
PARTNERSHIPS = PartnershipGrade._meta.db_table

# the fold's records and pair figures as their temporary tables' columns
_GRADE_LAYOUT = (
    gathered("const", "q", "entry"),
    gathered("const", "q", "version"),
    gathered("rows", "i", "member"),
    gathered("rows", "i", "partner"),  # -1: none
    gathered("const", "i", "date", sql="date"),
    gathered("rows", "i", "pair"),  # the pair id's code (RAW_PAIR_IDS)
    gathered("rows", "i", "boards"),
    gathered("rows", "b", "reported"),
    gathered("rows", "h", "reason"),
    gathered("const", "b", "live"),
    gathered("block", "d", *RECORD_FIGURES),
)
_PAIR_LAYOUT = (
    gathered("const", "q", "version"),
    gathered("rows", "i", "pair"),  # the pair id's code (RAW_PAIR_IDS)
    gathered("block", "d", *PAIR_FIGURES),
)

_GRADED = "t.entry_id IS NOT NULL"  # a not-graded version's rows are not the refold's
_GRADE_COLUMNS = (
    "entry_id",
    "version_id",
    "member_id",
    "partner_id",
    "date",
    "pair_id",
    "grade_before",
    "partner_grade",
    "sopp",
    "score_term",
    "excess",
    "regular_adjustment",
    "gain",
    "par",
    "boards",
    "boards_reported",
    "factor",
    "session_grade",
    "grade_after",
    "reason",
    "live",
)


_GRADE_KEY = ("version_id", "member_id")
_GRADE_VALUES = _GRADE_COLUMNS[:1] + _GRADE_COLUMNS[3:]


@dataclass
class RefoldStats(PhaseTimes):
    """What a bulk refold wrote, and where its time went (``seconds``)."""

    entries: int = 0
    versions: int = 0
    records: int = 0
    written: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class LedgerEntries:
    """Each ledger entry's primary key and its version's date of play, by sequence number,
    and the versions withdrawn: what a record needs that the fold does not carry."""

    pk: dict[int, int]
    date: dict[int, int]  # seq -> date ordinal
    withdrawn: set[int]
    last_seq: int
    count: int


def ledger_entries() -> LedgerEntries:
    """One read of the ledger entries (a tuple each, through a server-side cursor)."""
    pk: dict[int, int] = {}
    date: dict[int, int] = {}
    withdrawn: set[int] = set()
    last = 0
    rows = LedgerEntry.objects.order_by("seq").values_list(
        "seq", "pk", "operation", "version_id", "version__session__date"
    )
    for seq, entry, operation, version, day in rows.iterator(20_000):
        pk[seq] = entry
        date[seq] = day.toordinal()
        if operation == LedgerEntry.Operation.WITHDRAW:
            withdrawn.add(version)
        last = seq
    return LedgerEntries(pk, date, withdrawn, last, len(pk))


class RefoldWriter:
    """The sink of a bulk refold (a ``VersionSink``) and the statements that put its rows in
    place. PostgreSQL only: the caller holds the ledger lock in one transaction."""

    def __init__(
        self,
        params: NGSParams,
        entries: LedgerEntries,
        *,
        stats: RefoldStats,
        written_before: int | None = None,
    ) -> None:
        self.params, self.entries, self.stats = params, entries, stats
        self.grades = GatheredColumns(_GRADE_LAYOUT)
        self.pairs = GatheredColumns(_PAIR_LAYOUT)
        self.versions: list[tuple] = []
        # each distinct pair id (a few hundred nationally: "1" to "40", "3NS"...) by a code the
        # rows carry, so that a pair's id is found in an array of that size, not a join
        self.pair_codes: dict[str, int] = {}
        # whether this transaction has written nothing since it began (``written_before``:
        # ``rows_written()`` then), checked as the refold begins to read: what it reads is
        # what is committed, and the subject tables can be written beside it (subjectsmerge)
        self.pristine = written_before is not None and rows_written() == written_before
        # the fold's rows are taken in beside it, on a connection of their own (side.py)
        self.side = stage_copier()
        names = self.side.open(
            {"grades": self.grades.columns_sql(), "pairs": self.pairs.columns_sql()}
        )
        self.raw_grades, self.raw_pairs = names["grades"], names["pairs"]

    # ------------------------------------------------------------------ the sink

    def __call__(self, out: VersionOut) -> None:
        seq, version = out.seq, int(out.version)
        self.stats.versions += 1
        self.versions.append(
            (
                version,
                out.graded,
                out.reason,
                nan_none(out.sof),
                out.known_pairs,
                out.total_pairs,
            )
        )
        if not out.graded:
            return
        codes = self.pair_codes
        pairs = array("i", [codes.setdefault(pid, len(codes)) for pid in out.pair_ids])
        n = len(out.rec_member)
        live = 0 if version in self.entries.withdrawn else 1
        self.grades.add(
            n,
            self.entries.pk[seq],
            version,
            out.rec_member,
            out.rec_partner,
            self.entries.date[seq] - DATE_EPOCH,
            array("i", map(pairs.__getitem__, out.rec_pair)),
            out.rec_boards,
            out.rec_reported,
            out.rec_reason,
            live,
            out.rec_figures,
        )
        self.stats.records += n
        self.pairs.add(len(pairs), version, pairs, out.pair_figures)
        if self.grades.rows >= CHUNK_ROWS:
            self.flush()

    def flush(self) -> None:
        """Hand what is gathered to the side connection's COPY; the versions' states are
        written here, in the refold's transaction."""
        if self.grades.rows:
            self.side.submit(_columns_copy, self.raw_grades, self.grades.take(), rows=True)
        if self.pairs.rows:
            self.side.submit(_columns_copy, self.raw_pairs, self.pairs.take(), rows=True)
        if self.versions:
            with connection.cursor() as cursor:
                self._versions_copy(cursor)

    def close(self, *, cancel: bool = False) -> None:
        """Stop the side connection's thread (after ``finish``; ``cancel``: the refold
        failed, what the thread runs is cancelled)."""
        self.side.close(cancel=cancel)

    def _versions_copy(self, cursor) -> None:
        withdrawn = self.entries.withdrawn
        rows = [
            (
                v,
                SessionVersion.State.WITHDRAWN
                if v in withdrawn
                else (SessionVersion.State.GRADED if graded else SessionVersion.State.NOT_GRADED),
                reason[:255],
                sof,
                known,
                total,
            )
            for v, graded, reason, sof, known, total in self.versions
        ]
        self.versions = []
        _version_states(cursor, rows, self.stats)

    # ------------------------------------------------------------------ into place

    def finish(
        self,
        current: CurrentOut,
        partnerships: PartnershipsOut,
        histories: Iterable[HistoriesOut],
        numbers: list[str],
    ) -> None:
        """Everything into place: session grades, pair figures, current and partnership
        grades, the subject tables.

        Where the refold is a transaction of its own that had written nothing before it, the
        subject tables are written on the second connection, in a transaction of its own
        (``subjectsmerge.subjects_job``), while this one writes the pair figures, the current
        and partnership grades and the session grades (issue 31); it commits once those are
        written, just before this transaction."""
        self.flush()
        stats, written, seq = self.stats, self.stats.written, self.entries.last_seq
        t0 = time.perf_counter()
        # analysed by the connection that wrote them, in its transaction: an ANALYZE holds its
        # table until the transaction ends, so the refold's would keep the side's waiting
        self.side.submit(tables_analyze, (self.raw_grades, self.raw_pairs))
        committed = self.side.commit()
        # a change of set rewrites nearly every row (``rewrite``); otherwise few rows change
        rewrites = tables_marked()[1] != self.params.name
        mark = (seq, self.params.name)
        staged = subjects_stage(self.side, histories, numbers)
        with connection.cursor() as cursor:  # (a first fill stays here: docs/decisions.md)
            beside = self.side.beside and self.pristine and not is_empty(cursor, HISTORY)
        subjects: dict[str, int] = {}
        if beside:  # left uncommitted until this transaction's own writes are done
            self.side.submit(subjects_job, staged, rewrites, mark, subjects, stats.seconds)
        else:
            staged_committed = self.side.commit()  # the staging tables, for this connection
        with connection.cursor() as cursor:
            # the joins of millions of rows hash in memory, not in batches on disk (this
            # transaction only)
            bulk_memory(cursor, settings.LEDGER_REFOLD_WORK_MEM)
            self.side.wait(committed)  # the fold's records and pair figures are in
            t0 = stats.timed("copy_wait", t0)
            self._pair_figures(cursor)
            t0 = stats.timed("pair_figures", t0)
            for name, n in current_place(cursor, current, seq).items():
                written[f"current_{name}"] = n
            for name, n in partnerships_place(cursor, partnerships, seq).items():
                written[f"partnerships_{name}"] = n
            t0 = stats.timed("current_partnerships", t0)
            for name, n in self._grades_write(cursor, rewrites).items():
                written[f"session_grades_{name}"] = n
            t0 = stats.timed("session_grades", t0)
            if beside:
                # the job run, then committed just before this transaction: a snapshot taken
                # in between (a ``replay --check``) would see the new tables beside the old grades
                self.side.sync()
            else:
                self.side.wait(staged_committed)
                subjects = subjects_write(cursor, staged, rewrites=rewrites, mark=mark)
            written.update(subjects)
            t0 = stats.timed("subjects", t0)
            self.side.drop(cursor)

    def _converted(self) -> str:
        """The fold's records as SessionGrade's columns (NaN is None; the pair's id and the
        reason's words looked up), in the order the fold gave them."""
        figures = [
            f"NULLIF(r.{name}, 'NaN')" if name != "factor" else "r.factor"
            for name in RECORD_FIGURES
        ]
        f = dict(zip(RECORD_FIGURES, figures, strict=True))
        return (
            "SELECT r.entry, r.version, r.member, NULLIF(r.partner, -1), r.date, "
            "(%(pair_ids)s::text[])[r.pair + 1], "
            f"r.grade_before, {f['partner_grade']}, {f['sopp']}, {f['score_term']}, "
            f"{f['excess']}, r.regular_adjustment, %(gain)s::double precision, {f['par']}, "
            f"r.boards, r.reported, r.factor, {f['session_grade']}, {f['grade_after']}, "
            "(%(reasons)s::text[])[r.reason + 1], r.live "
            f"FROM {self.raw_grades} r"
        )

    def _grades_source(self) -> str:
        return f"(SELECT * FROM ({self._converted()}) AS c ({', '.join(_GRADE_COLUMNS)}))"

    def _grades_write(self, cursor, rewrites: bool) -> dict[str, int]:
        """The ledger's session grades made the fold's (a not-graded version's rows, which
        have no ledger entry, are not touched): merged, or rewritten on a change of set."""
        args = (cursor, GRADES, self._grades_source(), _GRADE_KEY, _GRADE_VALUES)
        if rewrites:
            return rewrite(*args, staged=self.stats.records, scope=_GRADED, params=self._params())
        return merge(*args, scope=_GRADED, params=self._params())

    def _params(self) -> dict:
        """The arrays the fold's codes index: the pair ids, the reasons' words; the gain."""
        ids = sorted(self.pair_codes, key=self.pair_codes.__getitem__)
        return {"gain": self.params.gain, "reasons": list(REASONS), "pair_ids": ids}

    def _pair_figures(self, cursor) -> None:
        names = ("score_term", "sopp", "par", "excess")
        # n: the fold's figures, NaN stored as NULL
        changed = differs("r", "n", names, float_columns(cursor, PAIRS))
        fold = ", ".join(f"NULLIF(t.{n}, 'NaN') AS {n}" for n in names)
        cursor.execute(
            f"UPDATE {PAIRS} r SET ({', '.join(names)}) = ({', '.join(f'n.{c}' for c in names)}) "
            f"FROM (SELECT t.version, (%(pair_ids)s::text[])[t.pair + 1] AS pair_id, {fold} "
            f"FROM {self.raw_pairs} t) n "
            f"WHERE r.version_id = n.version AND r.pair_id = n.pair_id AND {changed}",
            self._params(),
        )
        self.stats.written["pair_figures_updated"] = cursor.rowcount


def _columns_copy(cursor, table: str, columns: list[array], *, freeze: bool) -> None:
    copy_columns(cursor.cursor, table, columns, freeze=freeze)


def _version_states(cursor, rows: list[tuple], stats: RefoldStats) -> None:
    """Each processed version's state, SoF and pair counts (as ``store_step`` and, for a
    version the set would not grade, ``store_not_graded`` set them); written where they
    differ."""
    if not rows:
        return
    cursor.execute(
        f"UPDATE {VERSIONS} v SET state = t.state, sof = t.sof, known_pairs = t.known, "
        "total_pairs = t.total, not_graded_reason = CASE WHEN t.state = %s THEN t.reason "
        "ELSE v.not_graded_reason END "
        "FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::double precision[], "
        "%s::integer[], %s::integer[]) AS t(id, state, reason, sof, known, total) "
        "WHERE v.id = t.id AND ((v.state, v.known_pairs, v.total_pairs) IS DISTINCT FROM "
        "(t.state, t.known, t.total) OR " + differs("v", "t", ["sof"], frozenset({"sof"})) + ")",
        [SessionVersion.State.NOT_GRADED.value, *map(list, zip(*rows, strict=True))],
    )
    stats.written["versions_updated"] = stats.written.get("versions_updated", 0) + cursor.rowcount
