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
same figures; Brambledown club by club with ``brambledown_replay_bulk``), and replaces every table with COPY, in one transaction under
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
from collections import defaultdict
from collections.abc import Callable, Iterator

from django.db import transaction
from django.utils import timezone

from grading.common.collector import collector_paused
from grading.common.stale import member_pages_invalidate
from grading.engine.brambledown import (
    BrambledownPlayer,
    BrambledownState,
    PairRecord,
    Quarter,
    brambledown_apply,
)
from grading.engine.brambledown.bulk import brambledown_replay_bulk
from grading.engine.brambledown.replay import session_order
from grading.engine.ppi import ppi_suit
from grading.engine.ppi.bulk import PPIBulkFold
from grading.engine.ppi.cbulk import CPPIFold, ppi_bulk_fold
from grading.ledger.lock import ledger_head_lock
from grading.models import BrambledownClubState, BrambledownListEntry
from grading.schemes.brambledown.state import (
    member_rows,
    pair_fields,
    pair_json,
    pair_rows,
    player_fields,
    state_dump_text,
)
from grading.schemes.brambledown.tables import key_json
from grading.schemes.brambledown.update import ClubSession, club_host_pairs
from grading.schemes.log import scheme_head_lock
from grading.schemes.rebuild.folder import READ_COUNTS, ClubFolder, ClubJob, brambledown_jobs
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
    COLUMNS,
    JSON_COLUMNS,
    as_json,
    indexes_built_once,
    object_text,
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
            fold=_job_fold,
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
# Brambledown, club by club


class _Club:
    """One club's rebuilt Brambledown: the rows of every table."""

    def __init__(self, club_id: int) -> None:
        self.club_id = club_id
        self.state: tuple = ()
        self.quarters: list[tuple] = []
        self.lists: list[tuple] = []
        self.ratings: list[tuple] = []
        self.grades: list[tuple] = []
        self.points: list[tuple] = []
        self.members: list[tuple] = []  # the state now (``grading.schemes.brambledown.state``)
        self.pairs: list[tuple] = []


def _job_fold(job: ClubJob, items: list[ClubSession], members: dict[str, int]) -> _Club:
    """One club's rows (``ClubFolder``'s ``fold``: here, or in the second process)."""
    out = _club_fold(job.club_id, items, job.through, members)
    out.state = (*out.state, job.folded, job.latest)
    return out


def _club_fold(
    club_id: int, items: list[ClubSession], through: Quarter | None, members: dict[str, int]
) -> _Club:
    """One club's Brambledown as the steps leave it (``brambledown_club_update``)."""
    out = _Club(club_id)
    texts = _Texts()
    now = timezone.now()
    if through is None:  # nothing closed: the first quarter recorded from empty
        open_q = Quarter.of(items[0].session.date) if items else None
        state = BrambledownState(quarter=open_q)
        ratings = []
        for item in items:
            if item.session.date in open_q:
                step = brambledown_apply(state, item.session, host_pair=item.host_pair)
                state = step.state
                ratings.append((item, step.ratings))
        recorded = [item for item, _ in ratings]
        snapshot = as_json({})
        regraded = ""
        open_text = str(open_q) if open_q else ""
    else:
        open_q = through.next()
        items = [i for i in items if Quarter.of(i.session.date) <= open_q]
        result = brambledown_replay_bulk(
            [i.session for i in items], through, host_pairs=club_host_pairs(items)
        )
        by_quarter: dict[Quarter, list[ClubSession]] = defaultdict(list)
        for item in items:
            by_quarter[Quarter.of(item.session.date)].append(item)
        ratings = []
        for closed in result.quarters:
            ratings += list(zip(by_quarter.get(closed.quarter, []), closed.sessions, strict=True))
            _quarter_rows(out, closed, members, now)
        recorded = by_quarter.get(open_q, [])
        ratings += list(zip(recorded, result.open_sessions, strict=True))
        after = (
            result.quarters[-1].state
            if result.quarters
            else BrambledownState(quarter=open_q, regraded=through)
        )
        snapshot = state_dump_text(after, texts.player_entry, texts.pair_entry, as_json)
        state = result.state
        regraded, open_text = str(through), str(open_q)
    _rating_rows(out, ratings, members)
    last = key_json(session_order(recorded[-1].session) if recorded else None)
    out.state = (
        club_id,
        regraded,
        open_text,
        snapshot,
        _rated(out),
        now,
        as_json(last),
        len(recorded),
    )  # (the club's last entry and latest date follow: ``_brambledown``)
    _grade_rows(out, state, regraded, members)
    for name, rows in (  # (their JSON columns hold their texts)
        ("bd_members", member_rows(club_id, state.players.values(), texts.player_columns)),
        ("bd_pairs", pair_rows(club_id, state.pairs.values(), texts.pair_columns)),
    ):
        target = out.members if name == "bd_members" else out.pairs
        target += [tuple(r[c] for c in COLUMNS[name]) for r in rows]
    return out


class _Texts:
    """Each member's and pair's JSON made once, as the columns of its row (``player_fields``,
    ``pair_fields``, the JSON columns as their texts) and as its entry in the snapshot
    (``state_dump``'s): the state now shares with the snapshot every member and pair who has
    not played since the last regrade (most of a club's), and the row and the entry hold the
    same texts."""

    def __init__(self) -> None:
        self.players: dict[int, tuple] = {}  # id(record) -> (record, columns, entry)
        self.pairs: dict[int, tuple] = {}

    def player_columns(self, player: BrambledownPlayer) -> dict:
        return self._player(player)[1]

    def player_entry(self, player: BrambledownPlayer) -> str:
        return self._player(player)[2]

    def pair_columns(self, record: PairRecord) -> dict:
        return self._pair(record)[1]

    def pair_entry(self, record: PairRecord) -> str:
        return self._pair(record)[2]

    def _player(self, player: BrambledownPlayer) -> tuple:
        found = self.players.get(id(player))
        if found is None:
            columns = _texts_of(player_fields(player))
            found = self.players[id(player)] = (player, columns, object_text(columns, JSON_COLUMNS))
        return found

    def _pair(self, record: PairRecord) -> tuple:
        found = self.pairs.get(id(record))
        if found is None:
            columns = _texts_of(pair_fields(record))
            entry = {**pair_json(record), "quarters": columns["quarters"]}
            found = self.pairs[id(record)] = (record, columns, object_text(entry, JSON_COLUMNS))
        return found


def _texts_of(fields: dict) -> dict:
    return {k: as_json(v) if k in JSON_COLUMNS else v for k, v in fields.items()}


def _rated(out: _Club) -> int:
    return len({row[1] for row in out.ratings})


def _quarter_rows(out: _Club, closed, members: dict[str, int], now) -> None:
    quarter = str(closed.quarter)
    changes = [[c.number, c.old, c.new, len(c.iprs)] for c in closed.changes]
    out.quarters.append((out.club_id, quarter, len(closed.sessions), as_json(changes), now))
    for kind, entries in (
        (BrambledownListEntry.Kind.A, closed.a_list),
        (BrambledownListEntry.Kind.B, closed.b_list),
    ):
        out.lists += [
            (
                out.club_id,
                quarter,
                kind.value,
                rank,
                members[e.number],
                None,
                e.grade,
                e.grade,
                None,
                e.tournaments,
                e.in_quarter,
                e.partners,
            )
            for rank, e in enumerate(entries, start=1)
            if e.number in members
        ]
    out.lists += [
        (
            out.club_id,
            quarter,
            BrambledownListEntry.Kind.PAIRS.value,
            rank,
            members[e.players[0]],
            members[e.players[1]],
            e.grade,
            e.grades[0],
            e.grades[1],
            e.tournaments,
            e.in_quarter,
            None,
        )
        for rank, e in enumerate(closed.pairs_list, start=1)
        if e.players[0] in members and e.players[1] in members
    ]


def _rating_rows(out: _Club, ratings, members: dict[str, int]) -> None:
    for item, rated in ratings:
        pairs = {pair.pair_id: pair for pair in rated.pairs}
        for p in rated.players:
            member = members.get(p.number)
            if member is None:
                continue
            pair = pairs[p.pair_id]
            out.ratings.append(
                (
                    out.club_id,
                    item.version_id,
                    member,
                    members.get(p.partner),
                    rated.date,
                    p.pair_id,
                    pair.percent,
                    rated.field_average,
                    pair.ppr,
                    p.own,
                    p.partner_grade,
                    p.ipr,
                )
            )


def _grade_rows(out: _Club, state: BrambledownState, regraded: str, members) -> None:
    on_list = {row[4]: row[2] for row in out.lists if row[1] == regraded and row[2] != "pairs"}
    last_dates: dict[int, dt.date] = {}
    for row in out.ratings:
        if row[2] not in last_dates or row[4] > last_dates[row[2]]:
            last_dates[row[2]] = row[4]
    for number, player in sorted(state.players.items()):
        member = members.get(number)
        if member is None:
            continue
        out.grades.append(
            (
                out.club_id,
                member,
                player.grade,
                min(len(player.first_iprs), 3),
                len(player.quarter_iprs),
                player.tournaments,
                regraded,
                on_list.get(member) == "A",
                on_list.get(member) == "B",
                last_dates.get(member),
            )
        )
        out.points += [
            (out.club_id, member, h.date, str(h.quarter), h.grade, h.reason) for h in player.history
        ]


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
            return ppi_points_write(fold.points_take(), self.members, events)
        for number in fold.numbers[len(self.member_of) :]:  # (from a payload: maybe none)
            self.member_of.append(self.members.get(number, -1))
        return ppi_columns_write(fold.points_take(), self.member_of, events)


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


def _write_club(club: _Club, counts: dict[str, int], seconds: dict[str, float]) -> None:
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
