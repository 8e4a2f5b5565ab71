"""What a rebuild of the schemes (S10, S11, S14.17) reads: the schemes' log, derived from the
ledger and the versions the NGS stored not graded, and the live versions as the engines'
sessions, read as columns.

The log a step-by-step database holds is the record of the processing order; it is kept when
it mirrors the ledger (:func:`log_mirrors_ledger`). A database built in bulk (the national
builder) has none, and one is derived (:func:`log_derive`) exactly as the steps would have
appended it: versions are processed in the order stored (``versions_grade_pending`` takes them
by primary key), a graded version's ledger entries fix its place, a withdrawal through the
ledger keeps its place, and a version stored not graded (no ledger entry) falls between the
graded ones by its key, before a withdrawal made after it was stored.

Sessions are built from the pair rows written at upload (``PairResult``: players, score,
boards, direction, the file's non-rateable mark, in the file's order), never from one JSON
payload per session; only a version with travellers (PPI rates it board by board, and the
traveller table does not hold split or weighted scores) or one the NGS did not grade (its
graded flag and host request live in the payload) is decoded from its payload. They are read
a chunk of versions at a time (:class:`SessionReader`), never a nation's at once.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from array import array
from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate, compress
from operator import itemgetter

from django.db import connection

from clubs.models import Club
from clubs.selectors.planning import approved_host_pair
from grading.engine import codec
from grading.engine.ppi.bulk import PairRow
from grading.engine.ppi.cbulk import DIRECTION_CODES, RowBlock
from grading.engine.types import (
    Direction,
    Movement,
    PairEntry,
    Player,
    Scoring,
    SessionKey,
    SessionResult,
)
from grading.models import (
    Event,
    LedgerEntry,
    PairResult,
    Session,
    SessionVersion,
    TravellerLine,
)
from grading.models.schemes import SchemeEntry
from members.models import Member

PROCESS = SchemeEntry.Operation.PROCESS
WITHDRAW = SchemeEntry.Operation.WITHDRAW
CHUNK_ROWS = 20_000

__all__ = [
    "LogRow",
    "PairsSpan",
    "PairsVersion",
    "SessionReader",
    "Version",
    "log_derive",
    "log_live",
    "log_logged",
    "log_mirrors_ledger",
    "log_stored",
]


@dataclass(frozen=True, slots=True)
class LogRow:
    """One entry of the schemes' log (``SchemeEntry``)."""

    seq: int
    operation: str
    version_id: int
    host_pair: str


def _table(model) -> str:
    return model._meta.db_table


# --------------------------------------------------------------------------------------------
# The log


def log_stored() -> list[LogRow]:
    return [
        LogRow(*row)
        for row in SchemeEntry.objects.order_by("seq")
        .values_list("seq", "operation", "version_id", "host_pair")
        .iterator(CHUNK_ROWS)
    ]


def _ledger() -> list[tuple]:
    return list(
        LedgerEntry.objects.order_by("seq")
        .values_list("seq", "operation", "version_id", "host_pair", "created")
        .iterator(CHUNK_ROWS)
    )


def _stored_not_graded() -> dict[int, tuple]:
    """The versions the NGS processed and stored not graded (one it failed to grade never
    reached the schemes): id -> (session id, created)."""
    rows = (
        SessionVersion.objects.filter(state=SessionVersion.State.NOT_GRADED)
        .exclude(grading_failed=True)
        .values_list("pk", "session_id", "created")
    )
    return {pk: (session, created) for pk, session, created in rows.iterator(CHUNK_ROWS)}


def log_mirrors_ledger(log: list[LogRow]) -> bool:
    """Whether a stored log holds the ledger's operations in the ledger's order and every
    version stored not graded: then it is the record of the processing order and is kept."""
    if not log:
        return False
    ledger = [(op, vid) for _, op, vid, _, _ in _ledger()]
    graded = {vid for _, vid in ledger}
    mirrored = [(e.operation, e.version_id) for e in log if e.version_id in graded]
    logged = {e.version_id for e in log}
    return mirrored == ledger and logged >= _stored_not_graded().keys()


def log_derive() -> list[LogRow]:
    """The schemes' log the steps would have appended for the stored ledger (see the module's
    text), numbered from 1."""
    ledger = _ledger()
    not_graded = _stored_not_graded()
    ids = {vid for _, _, vid, _, _ in ledger} | not_graded.keys()
    info = {
        pk: (session, created)
        for pk, session, created in SessionVersion.objects.values_list(
            "pk", "session_id", "created"
        ).iterator(CHUNK_ROWS)
        if pk in ids
    }  # every version read (no list of a nation's ids sent), those in the ledger kept
    by_session: dict[int, list[int]] = defaultdict(list)
    for pk in sorted(info):
        by_session[info[pk][0]].append(pk)
    # Each processed version's group: its ledger entries (a withdrawal its processing made,
    # then its process entry); other withdrawals stand alone.
    groups: dict[int, list[tuple]] = defaultdict(list)
    standalone: list[tuple] = []
    for row in ledger:
        seq, operation, vid, _, created = row
        if operation == PROCESS:
            groups[vid].append(row)
            continue
        later = [pk for pk in by_session[info[vid][0]] if pk > vid]
        if later and info[later[0]][1] <= created:  # the next version replaced it
            groups[later[0]].append(row)
        else:
            standalone.append(row)
    order = sorted(groups.keys() | not_graded.keys())
    hosts = _not_graded_hosts([pk for pk in order if pk not in groups])
    log: list[LogRow] = []
    live: dict[int, set[int]] = defaultdict(set)  # session -> versions live for the schemes

    def append(operation: str, vid: int, host: str = "") -> None:
        session = info[vid][0]
        if operation == WITHDRAW:
            if vid not in live[session]:
                return
            live[session].discard(vid)
        else:
            for other in sorted(live[session]):
                log.append(LogRow(len(log) + 1, WITHDRAW, other, ""))
            live[session] = {vid}
        log.append(LogRow(len(log) + 1, operation, vid, host))

    i = 0
    for vid in order:
        rows = groups.get(vid)
        while i < len(standalone) and (
            standalone[i][0] < rows[0][0] if rows else standalone[i][4] < info[vid][1]
        ):
            append(WITHDRAW, standalone[i][2])
            i += 1
        if rows:
            for _, operation, wid, host, _ in rows:
                append(operation, wid, host)
        else:
            append(PROCESS, vid, hosts.get(vid, ""))
    for row in standalone[i:]:
        append(WITHDRAW, row[2])
    return log


def _not_graded_hosts(version_ids: list[int]) -> dict[int, str]:
    """The approved host pair of each version stored not graded (``scheme_log_step``'s)."""
    hosts = {}
    versions = SessionVersion.objects.filter(pk__in=version_ids).select_related(
        "session__event__club"
    )
    for version in versions.iterator(1000):
        result = codec.load(SessionResult, version.payload)
        club = version.session.event.club
        hosts[version.pk] = approved_host_pair(club=club, result=result) or ""
    return hosts


def log_logged(log: list[LogRow]) -> dict[int, tuple[int, dt.date, str]]:
    """Every version in the log: its club, date of play and scoring."""
    ids = {e.version_id for e in log}
    rows = SessionVersion.objects.values_list(  # all: no list of a nation's ids to send
        "pk", "session__event__club_id", "session__date", "scoring"
    )
    return {
        pk: (club, date, scoring)
        for pk, club, date, scoring in rows.iterator(CHUNK_ROWS)
        if pk in ids
    }


def log_live(log: list[LogRow]) -> list[LogRow]:
    """The live versions' process entries in order (``grading.schemes.log.live_entries``)."""
    live: dict[int, LogRow] = {}
    for entry in log:
        live.pop(entry.version_id, None)
        if entry.operation == PROCESS:
            live[entry.version_id] = entry
    return sorted(live.values(), key=lambda e: e.seq)


# --------------------------------------------------------------------------------------------
# The sessions, a chunk at a time


@dataclass(frozen=True, slots=True)
class Version:
    """A live version as the schemes read it."""

    pk: int
    club_id: int
    scoring: str
    date: dt.date
    session: SessionResult


@dataclass(frozen=True, slots=True)
class PairsVersion:
    """A live version PPI rates from its pair rows alone (graded, match-pointed, without
    travellers): what ``PPIBulkFold.apply_rows`` takes."""

    pk: int
    date: dt.date
    two_winner: bool
    rows: list[PairRow]


@dataclass(frozen=True, slots=True)
class PairsSpan:
    """:class:`PairsVersion` for the compiled fold: the rows ``first .. first+count`` of its
    chunk's :class:`RowBlock`, and the pairs the file marks non-rateable (the host's)."""

    pk: int
    date: dt.date
    two_winner: bool
    first: int
    count: int
    marked: tuple[str, ...]


_DIRECTIONS = {"NS": Direction.NS, "EW": Direction.EW}
TWO_WINNER = Movement.TWO_WINNER.value


def _in(column: str, ids: list[int]) -> tuple[str, list]:
    """``column`` among ``ids`` (a chunk's, never a nation's): one array parameter on
    PostgreSQL, a list of parameters elsewhere (SQLite)."""
    if connection.vendor == "postgresql":
        return f"{column} = ANY(%s)", [ids]
    return f"{column} IN ({', '.join(['%s'] * len(ids))})", list(ids)


class SessionReader:
    """The live match-pointed versions' sessions, read a chunk of versions at a time (issue
    31: a nation's sessions are never held at once). ``logged``: every version in the log,
    ``(club, date of play, scoring)``; ``live``: the live versions' ids.

    :meth:`read` gives the sessions of the versions asked for that are match-pointed (neither
    scheme rates another), each built as the module's text says; the counters add up what
    every call read."""

    def __init__(self, logged: dict[int, tuple[int, dt.date, str]], live: Iterable[int]):
        self.numbers = dict(
            Member.objects.values_list("pk", "national_number").iterator(CHUNK_ROWS)
        )
        self.clubs = dict(Club.objects.values_list("pk", "slug"))
        self.players: dict[tuple[int | None, bool], Player] = {}
        self.by_columns = self.by_payload = self.pairs = 0
        # The versions sharing a club and a day of play with another live one: their key's
        # club is read from the payload (``SessionKey.club`` orders a club's sessions of one
        # day, S11).
        days: dict[tuple[int, dt.date], list[int]] = defaultdict(list)
        for vid in live:
            club, date, scoring = logged[vid]
            if scoring == Scoring.MP.value:
                days[(club, date)].append(vid)
        self.shared = {vid for ids in days.values() if len(ids) > 1 for vid in ids}

    def _player(self, pk: int | None, rateable: bool) -> Player:
        found = self.players.get((pk, rateable))
        if found is None:
            number = None if pk is None else self.numbers[pk]
            found = self.players[(pk, rateable)] = Player(number, rateable=rateable)
        return found

    def read(self, version_ids: Iterable[int]) -> dict[int, Version]:
        heads, decode = self._heads(version_ids)
        out: dict[int, Version] = {}
        player = self._player
        cached = self.players.get  # (the usual case: a player already made)
        for vid, rows in self._pair_groups(sorted(heads.keys() - set(decode))):
            pairs = []
            for _, pair_id, p1, p2, score, boards, direction, host in rows:
                rateable = not host
                pairs.append(
                    PairEntry(
                        pair_id,
                        (
                            cached((p1, rateable)) or player(p1, rateable),
                            cached((p2, rateable)) or player(p2, rateable),
                        ),
                        score,
                        _DIRECTIONS.get(direction),
                        boards,
                    )
                )
            _, scoring, movement, weighting, _, date, number, event_id, club_id, _ = heads[vid]
            key = SessionKey(self.clubs.get(club_id, ""), event_id, number, date)
            session = SessionResult(
                key, "", Scoring(scoring), Movement(movement), tuple(pairs), weighting
            )
            out[vid] = Version(vid, club_id, scoring, date, session)
        self._decode(decode, heads, out)
        self._file_club_keys(out)
        return out

    def read_ppi(self, version_ids: Iterable[int]) -> dict[int, Version | PairsVersion]:
        """:meth:`read` for PPI's fold: a version rated from its pair rows alone comes as its
        rows (:class:`PairsVersion`), without an object per pair or player; the others (with
        travellers, or not graded) as :meth:`read` gives them. The sessions' keys are not
        read (PPI does not order a club's sessions of a day)."""
        heads, decode = self._heads(version_ids)
        out: dict[int, Version | PairsVersion] = {}
        numbers, directions = self.numbers, _DIRECTIONS
        for vid, rows in self._pair_groups(sorted(heads.keys() - set(decode))):
            head = heads[vid]
            out[vid] = PairsVersion(
                vid,
                head[5],
                head[2] == TWO_WINNER,
                [
                    (
                        pair_id,
                        None if p1 is None else numbers[p1],
                        None if p2 is None else numbers[p2],
                        score,
                        boards,
                        directions.get(direction),
                        not host,
                    )
                    for _, pair_id, p1, p2, score, boards, direction, host in rows
                ],
            )
        self._decode(decode, heads, out)
        return out

    def read_ppi_columns(
        self, version_ids: Iterable[int], ids: Sequence[int]
    ) -> tuple[dict[int, Version | PairsSpan], RowBlock]:
        """:meth:`read_ppi` for the compiled fold (``grading.engine.ppi.cbulk``): the versions
        rated from their pair rows come as spans of one :class:`RowBlock` of the chunk's rows,
        made column by column at C speed (``map``, ``itemgetter``, ``array``; no object per
        row, but the rows the database gives).
        ``ids``: each member's id in the fold by its key, and -1 at 0 (an unknown player)."""
        heads, decode = self._heads(version_ids)
        out: dict[int, Version | PairsSpan] = {}
        vids = sorted(heads.keys() - set(decode))
        rows = self._pair_columns(vids)
        columns = (map(itemgetter(i), rows) for i in range(8))  # (a pass per column)
        version, pair_ids, p1, p2, score, boards, direction, host = columns
        scores = list(score)
        if None in scores:  # (no score: NaN)
            scores = [math.nan if s is None else s for s in scores]
        pair_ids = list(pair_ids)
        block = RowBlock(
            array("i", map(ids.__getitem__, p1)),
            array("i", map(ids.__getitem__, p2)),
            array("d", scores),
            array("i", boards),
            array("b", direction),
            pair_ids,
        )
        counts = Counter(version)  # (the rows come by version)
        firsts = list(accumulate((counts.get(vid, 0) for vid in vids), initial=0))
        marked: dict[int, list[str]] = defaultdict(list)
        for row in compress(range(len(rows)), host):  # (rare: the file's non-rateable marks)
            marked[vids[bisect_right(firsts, row) - 1]].append(pair_ids[row])
        for i, vid in enumerate(vids):
            head = heads[vid]
            first, two_winner = firsts[i], head[2] == TWO_WINNER
            span = (first, firsts[i + 1] - first, tuple(marked.get(vid, ())))
            out[vid] = PairsSpan(vid, head[5], two_winner, *span)
        self.pairs += len(rows)
        self.by_columns += len(vids)
        self._decode(decode, heads, out)
        return out, block

    def _pair_columns(self, version_ids: list[int]) -> list[tuple]:
        """The versions' pair rows (version, pair, players (0: unknown), score, boards (-1:
        not reported), direction (``DIRECTION_CODES``), host mark), by version, each in the
        file's order."""
        if not version_ids:
            return []
        where, params = _in("p.version_id", version_ids)
        ns, ew = DIRECTION_CODES[Direction.NS], DIRECTION_CODES[Direction.EW]
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT p.version_id, p.pair_id, COALESCE(p.player1_id, 0), "
                f"COALESCE(p.player2_id, 0), p.score, COALESCE(p.boards, -1), "
                f"CASE p.direction WHEN 'NS' THEN {ns} WHEN 'EW' THEN {ew} ELSE 0 END, p.host "
                f"FROM {_table(PairResult)} p WHERE {where} ORDER BY p.version_id, p.id",
                params,
            )
            return cursor.fetchall()

    def _heads(self, version_ids: Iterable[int]) -> tuple[dict[int, tuple], list[int]]:
        """The match-pointed versions among those asked for: each one's head (scoring,
        movement, weighting, state, date, session number, event, club, has travellers), and
        those decoded from their payload."""
        ids = sorted(set(version_ids))
        heads: dict[int, tuple] = {}
        decode: list[int] = []
        if not ids:
            return heads, decode
        v, s, e = _table(SessionVersion), _table(Session), _table(Event)
        trav = _table(TravellerLine)
        where, params = _in("v.id", ids)
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT v.id, v.scoring, v.movement, v.weighting, v.state, s.date, s.number, "
                f"e.event_id, e.club_id, "
                f"EXISTS (SELECT 1 FROM {trav} t WHERE t.version_id = v.id) "
                f"FROM {v} v JOIN {s} s ON s.id = v.session_id JOIN {e} e ON e.id = s.event_id "
                f"WHERE {where} AND v.scoring = %s",
                [*params, Scoring.MP.value],
            )
            for row in cursor.fetchall():
                heads[row[0]] = row
                if row[9] or row[4] == SessionVersion.State.NOT_GRADED:
                    decode.append(row[0])
        return heads, decode

    def _pair_groups(self, version_ids: list[int]) -> Iterator[tuple[int, list[tuple]]]:
        """Each version's pair rows (version, pair, players, score, boards, direction, host
        mark), in the file's order; a version without any, with none."""
        if not version_ids:
            return
        where, params = _in("p.version_id", version_ids)
        p = _table(PairResult)
        groups: dict[int, list[tuple]] = {}
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT p.version_id, p.pair_id, p.player1_id, p.player2_id, p.score, "
                f"p.boards, p.direction, p.host FROM {p} p WHERE {where} "
                f"ORDER BY p.version_id, p.id",
                params,
            )
            while rows := cursor.fetchmany(CHUNK_ROWS):
                for row in rows:
                    found = groups.get(row[0])
                    if found is None:
                        found = groups[row[0]] = []
                    found.append(row)
                self.pairs += len(rows)
        self.by_columns += len(version_ids)
        for vid in version_ids:
            yield vid, groups.get(vid, [])

    def _decode(self, decode: list[int], heads: dict[int, tuple], out: dict) -> None:
        """The versions read from their payload."""
        if not decode:
            return
        versions = SessionVersion.objects.filter(pk__in=decode).only("pk", "payload")
        for version in versions.iterator(500):
            head = heads[version.pk]
            session = codec.load(SessionResult, version.payload)
            out[version.pk] = Version(version.pk, head[8], head[1], head[5], session)
            self.by_payload += 1

    def _file_club_keys(self, out: dict[int, Version]) -> None:
        """A session's key names its club as the file did (``SessionKey.club``), which orders
        a club's sessions of one day (Brambledown, S11). Read from the payload only for the
        sessions sharing a club and a date with another (two sessions in a day)."""
        shared = [vid for vid in out if vid in self.shared]
        if not shared:
            return
        rows = SessionVersion.objects.filter(pk__in=shared).values_list("pk", "payload__key__club")
        for vid, club in rows:
            version = out[vid]
            session = version.session
            if session.key.club != club:
                key = SessionKey(
                    club or "", session.key.event_id, session.key.session, session.date
                )
                fixed = dataclasses.replace(session, key=key)
                out[vid] = dataclasses.replace(version, session=fixed)
