"""Brambledown (S11): the open quarter closed from the rows of those who played in it, when an
upload's session is the first of a later quarter (``add_session``), instead of the club's replay.

The club's full update would replay every session (``brambledown_club_update``): the quarters
closed before come out as they are stored, the open quarter and the one before the new
session's (the quarters between have no sessions and are passed over) are regraded, and the
new session opens its quarter. Regrading reads and changes only the members with IPRs in the
quarter, and only those who played in it, and the pairs who did, can be on its lists
(``brambledown_regrade``); they are the rows whose ``last_quarter`` is the open quarter. What
the quarter's close changes for everyone, the club's snapshot after the regrade and each
grade's last quarter and list flags, is written in whole (a few statements), but nothing is
replayed and no session is decoded. tests/schemes/test_brambledown_from_rows.py holds it equal to the
replay.
"""

from __future__ import annotations

import json
from dataclasses import replace

from django.db import connection

from clubs.models import Club
from grading.common.bulk import rows_upsert
from grading.common.stale import member_pages_invalidate
from grading.engine.brambledown import BrambledownState, Quarter, brambledown_regrade
from grading.models import (
    BrambledownClubState,
    BrambledownGrade,
    BrambledownListEntry,
    BrambledownPoint,
    BrambledownQuarter,
)
from grading.schemes.brambledown.state import (
    pair_json,
    player_fields,
    quarter_of_text,
    rows_played,
    rows_write,
)
from grading.schemes.brambledown.tables import GRADE_FIELDS, grade_row, point_rows, quarter_store
from grading.schemes.log import members_by_number


def open_quarter_close(
    *, club: Club, row: BrambledownClubState, through: Quarter
) -> tuple[str, ...]:
    """Close the club's open quarter and every quarter up to ``through`` (the replay's way:
    the open quarter if it rated sessions, and ``through``) from the rows, and leave ``row``
    open at the quarter after ``through`` (its snapshot written; the rest for the caller to
    save). Returns the quarters closed."""
    open_q = Quarter.parse(row.open_quarter)
    players, pairs = rows_played(club=club, quarter=open_q)
    state = BrambledownState(players, pairs, open_q, quarter_of_text(row.regraded))
    if row.regraded:  # a quarter closed without sessions is kept only while the last one
        BrambledownQuarter.objects.filter(club=club, quarter=row.regraded, sessions=0).delete()
    closing = [open_q] if row.recorded else []
    if through not in closing:
        closing.append(through)
    results = []
    for quarter in closing:
        if state.quarter != quarter:  # (a quarter without sessions, as the replay)
            state = replace(state, quarter=quarter, regraded=quarter.previous())
        result = brambledown_regrade(state, quarter)
        quarter_store(club, result, sessions=row.recorded if quarter == open_q else 0)
        results.append(result)
        state = result.state
    regraded = [n for n in state.players if state.players[n] != players[n]]
    rows_write(club=club, players=[state.players[n] for n in regraded], pairs=[])
    _snapshot_write(row, state)
    row.regraded, row.open_quarter = str(through), str(through.next())
    row.recorded, row.last_key = 0, []
    _grades(club, state, players, results[-1], str(through))
    return tuple(str(q) for q in closing)


# The snapshot patched where it lies (PostgreSQL): megabytes at a large club, neither read nor
# sent again. Members and pairs in the order of numbers, as ``state_dump`` (bytes: "C").
_PATCH = """
UPDATE {table} SET snapshot = jsonb_build_object(
  'quarter', %(quarter)s::text,
  'regraded', %(regraded)s::text,
  'players', COALESCE((
    SELECT jsonb_agg(p ORDER BY (p->>'number') COLLATE "C") FROM (
      SELECT p FROM jsonb_array_elements(snapshot->'players') p
      WHERE NOT (p->>'number' = ANY(%(numbers)s::text[]))
      UNION ALL SELECT jsonb_array_elements(%(players)s::jsonb)
    ) t(p)), '[]'::jsonb),
  'pairs', COALESCE((
    SELECT jsonb_agg(p ORDER BY (p->'players'->>0) COLLATE "C", (p->'players'->>1) COLLATE "C")
    FROM (
      SELECT p FROM jsonb_array_elements(snapshot->'pairs') p
      WHERE NOT (p->'players' = ANY(%(keys)s::jsonb[]))
      UNION ALL SELECT jsonb_array_elements(%(pairs)s::jsonb)
    ) t(p)), '[]'::jsonb))
WHERE id = %(id)s
"""


def _snapshot_write(row: BrambledownClubState, state: BrambledownState) -> None:
    """The club's snapshot becomes the state after the regrade: the old snapshot's members
    and pairs, those who played in the quarter as they are now (``state``)."""
    if connection.vendor != "postgresql":
        BrambledownClubState.objects.filter(pk=row.pk).update(
            snapshot=_snapshot(row.snapshot, state)
        )
        return
    pairs = [pair_json(record) for record in state.pairs.values()]
    with connection.cursor() as cursor:
        cursor.execute(
            _PATCH.format(table=BrambledownClubState._meta.db_table),
            {
                "quarter": str(state.quarter),
                "regraded": str(state.regraded),
                "numbers": list(state.players),
                "players": json.dumps([player_fields(p) for p in state.players.values()]),
                "keys": [json.dumps(list(key)) for key in state.pairs],
                "pairs": json.dumps(pairs),
                "id": row.pk,
            },
        )


def _snapshot(old: dict, state: BrambledownState) -> dict:
    """The state after the regrade (``state_dump``'s form): the old snapshot's members and
    pairs, those who played in the quarter as they are now."""
    players = {p["number"]: p for p in old.get("players", ())}
    players.update((n, player_fields(p)) for n, p in state.players.items())
    pairs = {tuple(r["players"]): r for r in old.get("pairs", ())}
    pairs.update((key, pair_json(record)) for key, record in state.pairs.items())
    return {
        "quarter": str(state.quarter),
        "regraded": str(state.regraded),
        "players": [players[n] for n in sorted(players)],
        "pairs": [pairs[k] for k in sorted(pairs)],
    }


def _grades(club: Club, state: BrambledownState, before: dict, last, quarter: str) -> None:
    """Every grade's last quarter and list flags (the last quarter closed's lists), the
    grades of those who played in the open quarter, and the points their regrade added."""
    grades = BrambledownGrade.objects.filter(club=club)
    grades.update(quarter=quarter, on_a_list=False, on_b_list=False)
    kinds = (
        (BrambledownListEntry.Kind.A, last.a_list, "on_a_list"),
        (BrambledownListEntry.Kind.B, last.b_list, "on_b_list"),
    )
    listed: dict[str, str] = {}
    for kind, entries, flag in kinds:
        numbers = [e.number for e in entries]
        listed.update((n, kind) for n in numbers)
        if numbers:
            grades.filter(member__national_number__in=numbers).update(**{flag: True})
    members = members_by_number(state.players)
    stored = dict(
        grades.filter(member_id__in=[m.pk for m in members.values()]).values_list(
            "member_id", "last_date"
        )
    )
    rows, points = [], []
    for number, member in members.items():
        player = state.players[number]
        data = grade_row(club, member, player, quarter, listed.get(number), stored.get(member.pk))
        rows.append(BrambledownGrade(**data))
        points += point_rows(club, member, player.history[len(before[number].history) :])
    rows_upsert(
        BrambledownGrade, rows, unique_fields=["club", "member"], update_fields=GRADE_FIELDS
    )
    BrambledownPoint.objects.bulk_create([BrambledownPoint(**p) for p in points])
    member_pages_invalidate(member_ids=grades.values_list("member_id", flat=True))
