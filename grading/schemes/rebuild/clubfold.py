"""One club's Brambledown rebuilt (S11; the schemes' rebuild, ``run``): the club's sessions
folded from empty with ``brambledown_replay_bulk`` (or, before any quarter closed, step by
step), and the rows of every table the steps keep, as the steps leave them
(``brambledown_club_update``). Pure of the database: it runs in the rebuild's second process
(``folder.ClubFolder``), which hands the rows back to be written."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

from django.utils import timezone

from grading.engine.brambledown import (
    BrambledownPlayer,
    BrambledownState,
    PairRecord,
    Quarter,
    brambledown_apply,
)
from grading.engine.brambledown.bulk import brambledown_replay_bulk
from grading.engine.brambledown.replay import session_order
from grading.models import BrambledownListEntry
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
from grading.schemes.rebuild.folder import ClubJob
from grading.schemes.rebuild.write import COLUMNS, JSON_COLUMNS, as_json, object_text

__all__ = ["ClubRows", "JsonTexts", "job_fold"]


class ClubRows:
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


def job_fold(job: ClubJob, items: list[ClubSession], members: dict[str, int]) -> ClubRows:
    """One club's rows (``ClubFolder``'s ``fold``: here, or in the second process)."""
    out = _club_fold(job.club_id, items, job.through, members)
    out.state = (*out.state, job.folded, job.latest)
    return out


def _club_fold(
    club_id: int, items: list[ClubSession], through: Quarter | None, members: dict[str, int]
) -> ClubRows:
    """One club's Brambledown as the steps leave it (``brambledown_club_update``)."""
    out = ClubRows(club_id)
    texts = JsonTexts()
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
    )  # (the club's last entry and latest date follow: ``job_fold``)
    _grade_rows(out, state, regraded, members)
    for name, rows in (  # (their JSON columns hold their texts)
        ("bd_members", member_rows(club_id, state.players.values(), texts.player_columns)),
        ("bd_pairs", pair_rows(club_id, state.pairs.values(), texts.pair_columns)),
    ):
        target = out.members if name == "bd_members" else out.pairs
        target += [tuple(r[c] for c in COLUMNS[name]) for r in rows]
    return out


class JsonTexts:
    """Each member's and pair's JSON made once, as the columns of its row (``player_fields``,
    ``pair_fields``, the JSON columns as their texts) and as its entry in the snapshot
    (``state_dump``'s): the state now shares with the snapshot every member and pair who has
    not played since the last regrade (most of a club's), and the row and the entry hold the
    same texts."""

    def __init__(self) -> None:
        # id(record) -> (record, columns, entry): by identity (hashing a frozen record hashes
        # its whole history), the record kept so that its id is never another's
        self.players: dict[int, tuple] = {}
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


def _rated(out: ClubRows) -> int:
    return len({row[1] for row in out.ratings})


def _quarter_rows(out: ClubRows, closed, members: dict[str, int], now) -> None:
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


def _rating_rows(out: ClubRows, ratings, members: dict[str, int]) -> None:
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


def _grade_rows(out: ClubRows, state: BrambledownState, regraded: str, members) -> None:
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
