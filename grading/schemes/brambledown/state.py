"""Brambledown's engine state (S11) on the database, in two forms: the whole state as JSON (the
club's snapshot right after its last regrade, ``BrambledownClubState.snapshot``), and the state
now as rows, one per member and one per pair of the club (``BrambledownMemberState``,
``BrambledownPairState``), so that an upload reads and writes the rows of its own players only.
Both forms hold each member and pair alike (:func:`player_fields`, :func:`pair_fields`)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable

from django.db.models import Q

from clubs.models import Club
from grading.common.bulk import rows_upsert
from grading.engine.brambledown import (
    BrambledownPlayer,
    BrambledownState,
    GradePoint,
    PairRecord,
    Quarter,
)
from grading.models import BrambledownMemberState, BrambledownPairState

PLAYER_FIELDS = (
    "grade",
    "first_iprs",
    "quarter_iprs",
    "tournaments",
    "quarters",
    "partners",
    "history",
)
PAIR_FIELDS = ("tournaments", "quarters")
ROW_EXTRA = ("last_quarter",)  # written with the rows, not part of the engine's records


def quarter_of_text(text: str | None) -> Quarter | None:
    return Quarter.parse(text) if text else None


def _counts_out(items) -> list:
    return [[q.text, n] for q, n in items]


def _counts_in(items) -> tuple:
    return tuple((Quarter.parse(q), int(n)) for q, n in items)


def player_fields(p: BrambledownPlayer) -> dict:
    """A member's state as JSON values (the snapshot's entry; the row's fields)."""
    return {
        "number": p.number,
        "grade": p.grade,
        "first_iprs": list(p.first_iprs),
        "quarter_iprs": list(p.quarter_iprs),
        "tournaments": p.tournaments,
        "quarters": _counts_out(p.quarters),
        "partners": [[q.text, list(names)] for q, names in p.partners],
        "history": [[h.date.isoformat(), h.quarter.text, h.grade, h.reason] for h in p.history],
    }


def player_of(p: dict) -> BrambledownPlayer:
    return BrambledownPlayer(
        number=p["number"],
        grade=p["grade"],
        first_iprs=tuple(p["first_iprs"]),
        quarter_iprs=tuple(p["quarter_iprs"]),
        tournaments=p["tournaments"],
        quarters=_counts_in(p["quarters"]),
        partners=tuple((Quarter.parse(q), tuple(names)) for q, names in p["partners"]),
        history=tuple(
            GradePoint(dt.date.fromisoformat(d), Quarter.parse(q), g, r)
            for d, q, g, r in p["history"]
        ),
    )


def pair_fields(r: PairRecord) -> dict:
    """A pair's record as the row's fields."""
    return {
        "first": r.players[0],
        "second": r.players[1],
        "tournaments": r.tournaments,
        "quarters": _counts_out(r.quarters),
    }


def pair_of(r: dict) -> PairRecord:
    return PairRecord((r["first"], r["second"]), r["tournaments"], _counts_in(r["quarters"]))


def pair_json(r: PairRecord) -> dict:
    """A pair's record as the snapshot's entry (its two members under ``players``)."""
    return {
        "players": list(r.players),
        "tournaments": r.tournaments,
        "quarters": _counts_out(r.quarters),
    }


def pair_of_json(r: dict) -> PairRecord:
    key = (r["players"][0], r["players"][1])
    return PairRecord(key, r["tournaments"], _counts_in(r["quarters"]))


def state_dump(state: BrambledownState, player_json=player_fields) -> dict:
    """``player_json``: :func:`player_fields`, or a caller's memo of it."""
    return {
        "quarter": str(state.quarter) if state.quarter else "",
        "regraded": str(state.regraded) if state.regraded else "",
        "players": [player_json(state.players[n]) for n in sorted(state.players)],
        "pairs": [pair_json(state.pairs[k]) for k in sorted(state.pairs)],
    }  # (in the order of numbers: the same whichever way the state was reached)


def state_dump_text(
    state: BrambledownState,
    player_text: Callable[[BrambledownPlayer], str],
    pair_text: Callable[[PairRecord], str],
    encode: Callable[[object], str],
) -> str:
    """:func:`state_dump` as JSON text, each member's entry ``player_text(player)`` and each
    pair's ``pair_text(record)`` (a caller's memo of their texts, ``encode``'s compact form):
    a whole-ledger rebuild writes every member's text in its row too."""
    quarter = str(state.quarter) if state.quarter else ""
    regraded = str(state.regraded) if state.regraded else ""
    players = ",".join(player_text(state.players[n]) for n in sorted(state.players))
    pairs = ",".join(pair_text(state.pairs[k]) for k in sorted(state.pairs))
    return (
        f'{{"quarter":{encode(quarter)},"regraded":{encode(regraded)},'
        f'"players":[{players}],"pairs":[{pairs}]}}'
    )


def state_load(data: dict) -> BrambledownState:
    if not data:
        return BrambledownState()
    players = {p["number"]: player_of(p) for p in data["players"]}
    pairs = {record.players: record for record in map(pair_of_json, data["pairs"])}
    return BrambledownState(
        players, pairs, quarter_of_text(data.get("quarter")), quarter_of_text(data.get("regraded"))
    )


# --------------------------------------------------------------------------------------------
# The state now, as rows


def _last_quarter(counts) -> str:
    """The latest quarter of a sorted table: the rows of those who played in the open
    quarter are found by it when it closes (``open_quarter_close``)."""
    return str(counts[-1][0]) if counts else ""


def member_rows(
    club_id: int, players: Iterable[BrambledownPlayer], player_json=player_fields
) -> list[dict]:
    """``player_json``: :func:`player_fields`, or a caller's memo of it."""
    return [
        {"club_id": club_id, **player_json(p), "last_quarter": _last_quarter(p.quarters)}
        for p in players
    ]


def pair_rows(club_id: int, pairs: Iterable[PairRecord], fields=pair_fields) -> list[dict]:
    """``fields``: :func:`pair_fields`, or a caller's memo of it."""
    return [
        {"club_id": club_id, **fields(r), "last_quarter": _last_quarter(r.quarters)} for r in pairs
    ]


def rows_store(*, club: Club, state: BrambledownState) -> int:
    """The club's rows become ``state``'s members and pairs; only the rows that differ are
    written. Returns the rows written."""
    written = _sync(
        BrambledownMemberState,
        club,
        ("number",),
        PLAYER_FIELDS + ROW_EXTRA,
        member_rows(club.pk, state.players.values()),
    )
    return written + _sync(
        BrambledownPairState,
        club,
        ("first", "second"),
        PAIR_FIELDS + ROW_EXTRA,
        pair_rows(club.pk, state.pairs.values()),
    )


def _sync(model, club: Club, key: tuple[str, ...], fields: tuple[str, ...], rows) -> int:
    """``rows_sync`` for rows with JSON values (lists, which it cannot hash): by ``key``."""
    stored = {
        tuple(row[k] for k in key): row
        for row in model.objects.filter(club=club).values("pk", *key, *fields)
    }
    changed = []
    for row in rows:
        have = stored.pop(tuple(row[k] for k in key), None)
        if have is None or any(have[f] != row[f] for f in fields):
            changed.append(model(**row))
    if stored:
        model.objects.filter(pk__in=[row["pk"] for row in stored.values()]).delete()
    rows_upsert(model, changed, unique_fields=["club", *key], update_fields=list(fields))
    return len(stored) + len(changed)


Records = tuple[dict[str, BrambledownPlayer], dict[tuple[str, str], PairRecord]]


def _records(members: Q, pairs: Q | None) -> Records:
    """The member and pair rows chosen as the engine's records (no pair read for None)."""
    players = {
        row["number"]: player_of(row)
        for row in BrambledownMemberState.objects.filter(members).values("number", *PLAYER_FIELDS)
    }
    records = {}
    if pairs is not None:
        rows = BrambledownPairState.objects.filter(pairs).values("first", "second", *PAIR_FIELDS)
        records = {record.players: record for record in map(pair_of, rows)}
    return players, records


def rows_load(*, club: Club, numbers: Iterable[str], pairs: Iterable[tuple[str, str]]) -> Records:
    """The rows of these members and pairs (those that have one) as the engine's records."""
    wanted = Q()
    for first, second in set(pairs):  # (the club in each: one index lookup per pair)
        wanted |= Q(club=club, first=first, second=second)
    return _records(Q(club=club, number__in=set(numbers)), wanted or None)


def rows_played(*, club: Club, quarter: Quarter) -> Records:
    """The rows of the members and pairs whose latest tournament lies in ``quarter``: those
    who played in the open quarter, when it closes."""
    played = Q(club=club, last_quarter=str(quarter))
    return _records(played, played)


def rows_write(
    *, club: Club, players: Iterable[BrambledownPlayer], pairs: Iterable[PairRecord]
) -> None:
    """These members' and pairs' rows written (inserted or updated in place)."""
    rows_upsert(
        BrambledownMemberState,
        [BrambledownMemberState(**row) for row in member_rows(club.pk, players)],
        unique_fields=["club", "number"],
        update_fields=list(PLAYER_FIELDS + ROW_EXTRA),
    )
    rows_upsert(
        BrambledownPairState,
        [BrambledownPairState(**row) for row in pair_rows(club.pk, pairs)],
        unique_fields=["club", "first", "second"],
        update_fields=list(PAIR_FIELDS + ROW_EXTRA),
    )
