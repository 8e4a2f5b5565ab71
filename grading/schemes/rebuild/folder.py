"""The clubs' Brambledown for the schemes' rebuild (``run``): what each club is rebuilt from,
its sessions read, and the clubs folded in order, here or in a second process beside PPI's
fold (issue 31 item 4)."""

from __future__ import annotations

import datetime as dt
import gc
import multiprocessing
import os
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass

from clubs.models import Club
from grading.engine.brambledown import Quarter
from grading.engine.brambledown import why_not_rated as brambledown_why_not
from grading.schemes.brambledown.update import ClubSession, club_session_order
from grading.schemes.rebuild.read import PROCESS, LogRow, SessionReader

# Processes a whole rebuild uses by default (the command, the national builder): the second
# for the clubs' folds where the machine has a second core.
PROCESSES = min(2, os.cpu_count() or 1)


def closed_through(log: list[LogRow], sessions_dates: dict[int, dt.date], club_of: dict):
    """Per club, the last quarter the steps closed: after each step on a match-pointed
    version, the quarter before the latest live session's, once the live sessions span more
    than one quarter (``brambledown_club_update``); never lowered."""
    live: dict[int, set[int]] = defaultdict(set)  # club -> live versions
    quarters: dict[int, Counter] = defaultdict(Counter)  # club -> live versions per quarter
    through: dict[int, Quarter] = {}
    for entry in log:
        vid = entry.version_id
        club = club_of.get(vid)
        if club is None:
            continue
        quarter = Quarter.of(sessions_dates[vid])
        if entry.operation != PROCESS:
            if vid in live[club]:
                live[club].discard(vid)
                quarters[club][quarter] -= 1
                if not quarters[club][quarter]:
                    del quarters[club][quarter]
            continue
        if vid not in live[club]:
            live[club].add(vid)
            quarters[club][quarter] += 1
        first, last = min(quarters[club]), max(quarters[club])
        if last > first and (club not in through or last.previous() > through[club]):
            through[club] = last.previous()
    return through


@dataclass(frozen=True)
class ClubJob:
    """What one club's Brambledown is rebuilt from, besides its sessions: its live
    match-pointed entries in the log's order, the last quarter closed, its last entry in the
    log and its live sessions' latest date."""

    club_id: int
    entries: tuple[LogRow, ...]
    through: Quarter | None
    folded: int
    latest: dt.date | None


def brambledown_jobs(
    log: list[LogRow],
    live: list[LogRow],
    logged: dict[int, tuple[int, dt.date, str]],
    regraded: dict[int, str],
) -> list[ClubJob]:
    """Each club keeping Brambledown that has a log entry, in id order; ``regraded``: the
    last quarter closed at each club as stored before the rebuild."""
    keeping = set(Club.objects.filter(keeps_brambledown=True).values_list("pk", flat=True))
    mp = {  # every match-pointed version in the log, live or not: (club, date)
        vid: (club, date)
        for vid, (club, date, scoring) in logged.items()
        if scoring == "MP" and club in keeping
    }
    through = closed_through(
        log, {v: d for v, (_, d) in mp.items()}, {v: c for v, (c, _) in mp.items()}
    )
    for club, text in regraded.items():  # a quarter the regrade closed stays closed
        if club in keeping and (club not in through or Quarter.parse(text) > through[club]):
            through[club] = Quarter.parse(text)
    entries: dict[int, list[LogRow]] = defaultdict(list)  # club -> its live entries, in order
    for entry in live:
        if entry.version_id in mp:
            entries[mp[entry.version_id][0]].append(entry)
    folded: dict[int, int] = {}  # club -> its last entry (the steps fold every one)
    for entry in log:
        club = logged.get(entry.version_id, (None,))[0]
        if club in keeping:
            folded[club] = entry.seq
    latest: dict[int, dt.date] = {}  # club -> its live match-pointed versions' latest date
    for entry in live:
        club, day = mp.get(entry.version_id, (None, None))
        if club is not None and (club not in latest or day > latest[club]):
            latest[club] = day
    return [
        ClubJob(
            club, tuple(entries.get(club, ())), through.get(club), folded[club], latest.get(club)
        )
        for club in sorted(folded)
    ]


def club_items(job: ClubJob, reader: SessionReader, chunk: int) -> list[ClubSession]:
    """The club's rateable sessions, read ``chunk`` versions at a time, in the engine's order."""
    items = []
    for start in range(0, len(job.entries), chunk):
        part = job.entries[start : start + chunk]
        versions = reader.read(e.version_id for e in part)
        for entry in part:
            version = versions.get(entry.version_id)
            if version is not None and not brambledown_why_not(version.session):
                items.append(
                    ClubSession(entry.version_id, version.session, entry.host_pair or None)
                )
    return sorted(items, key=club_session_order)


# The second process's members (national number -> id), set as it starts: inherited by the
# fork, never pickled.
_MEMBERS: dict[str, int] = {}
READ_COUNTS = ("by_columns", "by_payload", "pairs")  # the reader's counters (``SessionReader``)


def _remember(members: dict[str, int]) -> None:
    global _MEMBERS
    _MEMBERS = members
    gc.enable()  # (forked from a rebuild that paused it: the clubs' folds collect as usual)


def _fold_there(fold: Callable, job: ClubJob, items: list[ClubSession]):
    return fold(job, items, _MEMBERS)


class ClubFolder:
    """The clubs' Brambledown folded in order by ``fold(job, items, members)``: here
    (``processes`` 1) or in a second process, forked once and handed one club at a time. This
    process reads each club's sessions (its database connection is its own: the second process
    never touches it, and it leaves by ``os._exit``, which closes nothing) and gets the club's
    rows back to write. Memory holds at most two clubs' sessions: one being folded, the next
    read. ``read`` counts what the clubs' reads added to the reader's counters."""

    def __init__(self, jobs, *, fold, reader, chunk, members, stages, processes: int) -> None:
        self.jobs = deque(jobs)
        self.fold, self.reader, self.chunk = fold, reader, chunk
        self.members, self.stages = members, stages
        self.pending: deque[Future] = deque()
        self.read: Counter = Counter()
        self.pool = None
        if processes > 1 and self.jobs:
            self.pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("fork"),
                initializer=_remember,
                initargs=(members,),
            )

    def feed(self) -> None:
        """With a second process: the next club's sessions read and handed to it, unless one is
        waiting there already. Without one, nothing: ``rest`` folds the clubs here after PPI
        (memory then holds the one or the other)."""
        if self.pool is not None:
            self._feed(ahead=1)

    def _feed(self, ahead: int) -> None:
        while self.jobs and len(self.pending) < ahead:
            job = self.jobs.popleft()
            self.stages.to("read")
            before = {name: getattr(self.reader, name) for name in READ_COUNTS}
            items = club_items(job, self.reader, self.chunk)
            self.read.update({name: getattr(self.reader, name) - before[name] for name in before})
            if self.pool is not None:
                self.pending.append(self.pool.submit(_fold_there, self.fold, job, items))
                continue
            self.stages.to("brambledown_fold")
            done: Future = Future()
            done.set_result(self.fold(job, items, self.members))
            self.pending.append(done)

    def folded(self) -> Iterator:
        """The clubs folded so far, in order, without waiting."""
        while self.pending and self.pending[0].done():
            yield self.pending.popleft().result()

    def rest(self) -> Iterator:
        """Every club left, in order: the next read while the one before is folded."""
        while self.pending or self.jobs:
            self._feed(ahead=1 if self.pool is None else 2)
            if self.pool is not None:
                self.stages.to("brambledown_wait")
            yield self.pending.popleft().result()

    def __enter__(self) -> ClubFolder:
        return self

    def __exit__(self, *exc) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None
