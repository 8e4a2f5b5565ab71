"""A session version's payload as canonical JSON, fast (the national builder, issue 17).

``payload_json(session)`` is exactly ``grading.engine.codec.canonical_json(session)`` (the text
``codec.fingerprint`` hashes, and a payload PostgreSQL reads back as the same JSON value), written
by hand for the types of a pairs session: ``codec.dump`` walks every dataclass generically, which
was about a seventh of the old builder's time at national scale. A field this module does not
know (the engine's types grew) makes it fall back to ``codec.canonical_json``; a test compares
both on the synthetic ledger. Lab code: the product stores payloads with ``codec``.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
from json.encoder import encode_basestring
from typing import Any

from grading.engine import codec
from grading.engine.types import PairEntry, Player, SessionKey, SessionResult

__all__ = ["payload_json"]

# The fields written by hand below, in sorted order (sort_keys).
_KNOWN = {
    SessionResult: (
        "boards",
        "event_name",
        "extra",
        "graded_flag",
        "key",
        "matches",
        "movement",
        "not_graded_reason",
        "pairs",
        "scoring",
        "source",
        "start",
        "travellers",
        "weighting",
    ),
    SessionKey: ("club", "date", "event_id", "session"),
    PairEntry: (
        "boards",
        "direction",
        "direction_mean",
        "pair_id",
        "players",
        "score",
        "section",
        "team",
    ),
    Player: ("name", "number", "rateable"),
}
FAST = all(
    tuple(sorted(f.name for f in dataclasses.fields(cls))) == names for cls, names in _KNOWN.items()
)


def _generic(value: Any) -> str:
    return json.dumps(codec.dump(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _value(v: Any) -> str:
    """One scalar as ``json.dumps(codec.dump(v))`` writes it (anything else: generically)."""
    if v is None:
        return "null"
    t = type(v)
    if t is str:
        return encode_basestring(v)
    if t is bool:
        return "true" if v else "false"
    if t is int:
        return int.__repr__(v)
    if t is float:
        return float.__repr__(v) if math.isfinite(v) else json.dumps(v)
    if isinstance(v, enum.Enum):
        return _value(v.value)
    if v == ():
        return "[]"
    return _generic(v)


_players: dict[Player, str] = {}
_scalars: dict[Any, str] = {}  # enums, pair ids, small strings: written once


def _cached(v: Any) -> str:
    text = _scalars.get(v)
    if text is None:
        text = _scalars[v] = _value(v)
    return text


def _player(p: Player) -> str:
    text = _players.get(p)
    if text is None:
        text = _players[p] = (
            f'{{"name":{_value(p.name)},"number":{_value(p.number)},'
            f'"rateable":{_value(p.rateable)}}}'
        )
    return text


def _pair(p: PairEntry) -> str:
    a, b = p.players
    return (
        f'{{"boards":{_value(p.boards)},"direction":{_cached(p.direction)},'
        f'"direction_mean":{_value(p.direction_mean)},"pair_id":{_cached(p.pair_id)},'
        f'"players":[{_player(a)},{_player(b)}],"score":{_value(p.score)},'
        f'"section":{_cached(p.section)},"team":{_cached(p.team)}}}'
    )


def payload_json(s: SessionResult) -> str:
    """``codec.canonical_json(s)``, fast."""
    if not FAST:
        return codec.canonical_json(s)
    k = s.key
    key = (
        f'{{"club":{_value(k.club)},"date":"{k.date.isoformat()}",'
        f'"event_id":{_value(k.event_id)},"session":{_value(k.session)}}}'
    )
    pairs = ",".join([_pair(p) for p in s.pairs])
    return (
        f'{{"boards":{_value(s.boards)},"event_name":{_value(s.event_name)},'
        f'"extra":{_value(s.extra)},"graded_flag":{_value(s.graded_flag)},"key":{key},'
        f'"matches":{_value(s.matches)},"movement":{_cached(s.movement)},'
        f'"not_graded_reason":{_value(s.not_graded_reason)},"pairs":[{pairs}],'
        f'"scoring":{_cached(s.scoring)},"source":{_value(s.source)},'
        f'"start":{_value(s.start)},"travellers":{_value(s.travellers)},'
        f'"weighting":{_value(s.weighting)}}}'
    )
