"""Every table of the two other schemes rebuilt at once from the stored ledger (S10, S11,
S14.17; issue 17 item 3, issue 18): the schemes' log, PPI (ratings and histories) and, at each
club that keeps it, Brambledown (club states, closed quarters and lists, ratings, grades and
grade histories).

A database graded step by step keeps these tables by one ORM step per upload
(``grading.schemes.after_step``); a national database built in bulk (``manage.py national``) has
none, and replaying 400,000 uploads one step at a time would take hours. ``schemes_rebuild``
reads the stored versions as columns (``grading.schemes.rebuild.read``), folds them with the
pure engines (PPI with the compiled fold ``grading.engine.ppi.cbulk.CPPIFold``, its pair rows
as columns, or :class:`~grading.engine.ppi.bulk.PPIBulkFold` when the library is not built: the
same figures; Brambledown club by club, ``clubfold``), and replaces every table with COPY, in one transaction under
the ledger lock. It is streamed (issue 31 item 4): PPI reads, folds and copies the history of
2,000 versions at a time, and each club keeping Brambledown has its own versions read when its
turn comes, so memory holds one chunk, the members' PPI tables and a club or two. With
``processes=2`` (the command's default on a machine with two cores) the clubs' folds run in a
second process beside PPI's. The result is the one the steps store
(tests/schemes/test_rebuild.py).

Brambledown's quarters: the steps close a quarter when a session of a later quarter is live
at the club (or by the quarterly regrade), and a closed quarter stays closed after a
withdrawal; the rebuild takes the last quarter closed from the club's log the same way (and
keeps a later one the regrade had closed, if the club's state row is still there).
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterator

from django.db import transaction
from django.utils import timezone

from grading.common.collector import collector_paused
from grading.common.stale import member_pages_invalidate
from grading.engine.ppi import ppi_suit
from grading.engine.ppi.bulk import PPIBulkFold
from grading.engine.ppi.cbulk import CPPIFold, ppi_bulk_fold
from grading.ledger.lock import ledger_head_lock
from grading.models import BrambledownClubState
from grading.schemes.log import scheme_head_lock
from grading.schemes.rebuild.clubfold import ClubRows, job_fold
from grading.schemes.rebuild.folder import READ_COUNTS, ClubFolder, brambledown_jobs
from grading.schemes.rebuild.read import (
    LogRow,
    PairsSpan,
    PairsVersion,
    SessionReader,
    log_derive,
    log_live,
    log_logged,
    log_mirrors_ledger,
    log_stored,
)
from grading.schemes.rebuild.write import (
    as_json,
    indexes_built_once,
    ppi_columns_write,
    ppi_points_write,
    table_write,
    tables_clear,
)
from members.models import Member

__all__ = ["CHUNK_SESSIONS", "schemes_rebuild"]

Progress = Callable[[str], None]
CHUNK_SESSIONS = 2_000  # live versions read, folded and written at a time (bounded memory)


class _Stages:
    """Wall and CPU seconds per stage, added up over the chunks (the stages interleave)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.cpu: dict[str, float] = {}
        self.stage = ""
        self.clock, self.cpu_clock = time.perf_counter(), time.process_time()

    def to(self, stage: str) -> None:
        """The time since the last call was spent on the stage then under way."""
        now, cpu_now = time.perf_counter(), time.process_time()
        if self.stage:
            self.seconds[self.stage] = self.seconds.get(self.stage, 0.0) + now - self.clock
            self.cpu[self.stage] = self.cpu.get(self.stage, 0.0) + cpu_now - self.cpu_clock
        self.stage, self.clock, self.cpu_clock = stage, now, cpu_now

    def rounded(self, table: dict[str, float]) -> dict[str, float]:
        return {name: round(value, 3) for name, value in table.items()}


def schemes_rebuild(
    *, progress: Progress | None = None, chunk: int = CHUNK_SESSIONS, processes: int = 1
) -> dict:
    """Rebuild the schemes' log, PPI and Brambledown from the stored ledger and versions, in
    one transaction under the ledger lock. ``progress(line)`` is told of each stage. Returns
    what was written and the seconds each stage took.

    ``processes`` 2: the clubs' Brambledown folds run in a second process while this one reads
    and folds PPI (they are independent of PPI and pure: this process reads each club's
    sessions and writes its rows, in its transaction); the figures are the same
    (tests/schemes/test_rebuild.py).

    Streamed (issue 31): the live versions are read ``chunk`` at a time in the log's order,
    folded into PPI and their history points copied before the next chunk is read; each club
    keeping Brambledown has its own versions read when its turn comes (between PPI's chunks
    when a second process folds it), is folded and written. Neither a
    nation's sessions nor its PPI histories are held at once; the figures do not depend on
    ``chunk`` (tests/schemes/test_rebuild.py). The cycle collector is paused meanwhile
    (``collector_paused``) and run every 25 chunks."""
    say = progress or (lambda line: None)
    stages = _Stages()
    copy_seconds: dict[str, float] = {}  # per table
    with collector_paused() as collect, transaction.atomic():
        stages.to("read")
        ledger_head_lock()
        scheme_head_lock()  # no fold of the log meanwhile (it never asks for the ledger's)
        stored = log_stored()
        kept = log_mirrors_ledger(stored)
        log = stored if kept else log_derive()
        live = log_live(log)
        say(f"log: {len(log)} entries ({'kept' if kept else 'derived from the ledger'})")
        logged = log_logged(log)
        reader = SessionReader(logged, (e.version_id for e in live))
        members = dict(Member.objects.values_list("national_number", "pk").iterator(20_000))
        regraded = dict(  # (a quarter the regrade closed stays closed)
            BrambledownClubState.objects.exclude(regraded="").values_list("club_id", "regraded")
        )
        tables_clear()
        jobs = brambledown_jobs(log, live, logged, regraded)
        folder = ClubFolder(
            jobs,
            fold=job_fold,
            reader=reader,
            chunk=chunk,
            members=members,
            stages=stages,
            processes=processes,
        )
        with indexes_built_once(), folder as clubs:
            stages.to("write")
            counts = _write_log(log, copy_seconds)
            clubs.feed()  # a second process folds the first club while PPI is folded here
            ppi = _PPI(members)
            counts["ppi_points"] = 0
            for start in range(0, len(live), chunk):
                part = live[start : start + chunk]
                stages.to("read")
                versions = ppi.read(reader, [e.version_id for e in part])
                stages.to("ppi_fold")
                events: dict[int, tuple[int, dt.date]] = {}  # seq -> (version, date)
                for entry in part:
                    version = versions.get(entry.version_id)
                    if version is not None:
                        ppi.apply(entry, version)
                        events[entry.seq] = (entry.version_id, version.date)
                ppi.flush()
                stages.to("write")
                t0 = time.perf_counter()
                counts["ppi_points"] += ppi.points_write(events)
                _add(copy_seconds, "ppi_points", time.perf_counter() - t0)
                for club in clubs.folded():
                    _write_club(club, counts, copy_seconds)
                clubs.feed()
                if start // chunk % 25 == 24:
                    collect()  # (the little cyclic garbage, between chunks)
                if start // chunk % 50 == 49:
                    say(f"PPI: {start + len(part)} of {len(live)} sessions folded")
            # PPI's reads (Brambledown's clubs read theirs again: not counted twice)
            read = {name: getattr(reader, name) - clubs.read[name] for name in READ_COUNTS}
            read = {"sessions": read["by_columns"] + read["by_payload"], **read}
            say(f"read {read['sessions']} sessions ({read['pairs']} pairs)")
            say(f"PPI: {len(ppi.fold)} members rated")
            stages.to("write")
            t0 = time.perf_counter()
            counts["ppi_ratings"] = table_write("ppi_ratings", _ppi_rows(ppi.fold, members))
            _add(copy_seconds, "ppi_ratings", time.perf_counter() - t0)
            del ppi
            # The clubs left, each read while the one before it is folded.
            for club in clubs.rest():
                stages.to("write")
                _write_club(club, counts, copy_seconds)
            say(f"Brambledown: {len(jobs)} clubs")
            stages.to("indexes")
        member_pages_invalidate()
        stages.to("commit")
    stages.to("")
    say("written: " + ", ".join(f"{n} {name}" for name, n in counts.items()))
    return {
        "log_kept": kept,
        "entries": len(log),
        "live": len(live),
        **read,
        "rows": counts,
        "seconds": stages.rounded(stages.seconds),
        "cpu_seconds": stages.rounded(stages.cpu),
        "copy_seconds": stages.rounded(copy_seconds),
    }


def _add(table: dict[str, float], name: str, value: float) -> None:
    table[name] = table.get(name, 0.0) + value


# --------------------------------------------------------------------------------------------
# PPI (S10): the compiled fold when its library is built, else PPIBulkFold (the same figures)


class _PPI:
    """PPI's fold for the rebuild: the compiled one when its library is built (the pair rows
    read as columns, the members as ids), else PPIBulkFold; the same figures."""

    def __init__(self, members: dict[str, int]) -> None:
        numbers = sorted(members)  # (the ids in the numbers' order: PPIBulkFold's points order)
        self.fold = ppi_bulk_fold(numbers)
        self.members = members
        self.ids = [-1] * (max(members.values(), default=0) + 1)  # by key; 0: an unknown player
        for i, number in enumerate(numbers):
            self.ids[members[number]] = i
        self.member_of = [members[number] for number in numbers]  # by id in the fold

    def read(self, reader: SessionReader, version_ids: list[int]) -> dict:
        """A chunk's versions, as the fold takes them."""
        if not isinstance(self.fold, CPPIFold):
            return reader.read_ppi(version_ids)
        versions, block = reader.read_ppi_columns(version_ids, self.ids)
        self.fold.use_block(block)
        return versions

    def apply(self, entry: LogRow, version) -> None:
        """One live version as the log's event ``entry.seq`` (rows, or a session to decode)."""
        host = entry.host_pair or None
        if isinstance(version, PairsSpan):
            assert isinstance(self.fold, CPPIFold)
            self.fold.add_session(
                entry.seq,
                version.date,
                version.two_winner,
                version.first,
                version.count,
                host,
                version.marked,
            )
        elif isinstance(version, PairsVersion):
            self.fold.apply_rows(entry.seq, version.date, version.two_winner, version.rows, host)
        else:
            self.fold.apply(entry.seq, version.session, host)

    def flush(self) -> None:
        if isinstance(self.fold, CPPIFold):
            self.fold.flush()  # (the chunk folded now, timed as the fold)

    def points_write(self, events: dict[int, tuple[int, dt.date]]) -> int:
        """The points of the chunk just folded."""
        fold = self.fold
        if not isinstance(fold, CPPIFold):
            return ppi_points_write(fold.points_take(), self.members, events, frozen=True)
        for number in fold.numbers[len(self.member_of) :]:  # (from a payload: maybe none)
            self.member_of.append(self.members.get(number, -1))
        return ppi_columns_write(fold.points_take(), self.member_of, events, frozen=True)


# --------------------------------------------------------------------------------------------
# The writes


def _ppi_rows(fold: CPPIFold | PPIBulkFold, members: dict[str, int]) -> Iterator[tuple]:
    """Each rated member's ``PPIRating`` (``ppi._ppi_fill``), from the fold's tables."""
    for number, player, (seq, as_of) in fold.rated():
        member = members.get(number)
        if member is None:
            continue
        yield (
            member,
            player.ppi,
            player.boards,
            as_json([list(pair) for pair in player.months]),
            player.recent_boards(as_of),
            player.shown,
            player.active(as_of),
            ppi_suit(player.ppi).value,
            as_of,
            seq,
        )


def _write_log(log: list[LogRow], seconds: dict[str, float]) -> dict[str, int]:
    """The schemes' log, and its head: both schemes have folded it all (``SchemeHead``)."""
    now = timezone.now()
    last = log[-1].seq if log else 0  # both schemes have folded the whole log
    tables = {
        "scheme_entries": ((e.seq, e.operation, e.version_id, e.host_pair, now) for e in log),
        "scheme_head": [(1, last, last)],
    }
    counts = {}
    for name, rows in tables.items():
        t0 = time.perf_counter()
        counts[name] = table_write(name, rows)
        _add(seconds, name, time.perf_counter() - t0)
    return counts


def _write_club(club: ClubRows, counts: dict[str, int], seconds: dict[str, float]) -> None:
    """One club's Brambledown rows."""
    for name, rows in (
        ("bd_clubs", [club.state]),
        ("bd_quarters", club.quarters),
        ("bd_lists", club.lists),
        ("bd_ratings", club.ratings),
        ("bd_grades", club.grades),
        ("bd_points", club.points),
        ("bd_members", club.members),
        ("bd_pairs", club.pairs),
    ):
        t0 = time.perf_counter()
        counts[name] = counts.get(name, 0) + (table_write(name, rows) if rows else 0)
        _add(seconds, name, time.perf_counter() - t0)
