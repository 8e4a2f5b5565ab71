"""JSON for the engine's frozen dataclasses, so a session version can be stored and replayed.

``dump`` turns a dataclass into plain JSON values; ``load`` rebuilds it from its type hints, so
fields added to the types later are carried without changes here. ``fingerprint`` is the
SHA-256 of the canonical JSON: two versions of a session with equal content have equal
fingerprints (S14.9, "unchanged").
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import functools
import hashlib
import json
import types
import typing
from fractions import Fraction
from typing import Any, TypeVar

T = TypeVar("T")


def dump(value: Any) -> Any:
    """Plain JSON values (dicts, lists, strings, numbers, None) for an engine value."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: dump(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (dt.date, dt.time)):  # datetime is a date too
        return value.isoformat()
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, (tuple, list)):
        return [dump(item) for item in value]
    if isinstance(value, dict):
        return {str(k): dump(v) for k, v in value.items()}
    return value


def load(cls: type[T], data: Any) -> T:
    """Rebuild a value of type ``cls`` from what :func:`dump` produced."""
    return _decode(cls, data)


def canonical_json(value: Any) -> str:
    return json.dumps(dump(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def fingerprint(value: Any) -> str:
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()


def _decode(hint: Any, data: Any) -> Any:
    if data is None:
        return None
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return _decode_union(typing.get_args(hint), data)
    if origin is tuple:
        return _decode_tuple(typing.get_args(hint), data)
    if origin is list:
        (item,) = typing.get_args(hint)
        return [_decode(item, x) for x in data]
    if origin is dict:
        key_type, value_type = typing.get_args(hint)
        return {_decode(key_type, k): _decode(value_type, v) for k, v in data.items()}
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return _decode_dataclass(hint, data)
    return _decode_scalar(hint, data)


@functools.cache
def _init_hints(cls: type) -> dict[str, Any]:
    """The type hints of a dataclass's init fields (resolving them is slow: done once)."""
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls) if f.init}


def _decode_dataclass(cls: type, data: dict) -> Any:
    hints = _init_hints(cls)
    return cls(
        **{name: _decode(hints[name], value) for name, value in data.items() if name in hints}
    )


def _decode_union(options: tuple, data: Any) -> Any:
    for option in options:
        if option is type(None):
            continue
        try:
            return _decode(option, data)
        except (TypeError, ValueError):
            continue
    raise ValueError(f"{data!r} matches none of {options}")


def _decode_tuple(args: tuple, data: list) -> tuple:
    if len(args) == 2 and args[1] is Ellipsis:
        return tuple(_decode(args[0], item) for item in data)
    return tuple(_decode(arg, item) for arg, item in zip(args, data, strict=True))


def _decode_scalar(hint: Any, data: Any) -> Any:
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return hint(data)
    if hint is dt.datetime:
        return dt.datetime.fromisoformat(data)
    if hint is dt.date:
        return dt.date.fromisoformat(data)
    if hint is dt.time:
        return dt.time.fromisoformat(data)
    if hint is Fraction:
        return Fraction(data)
    if hint is float:
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            raise TypeError(f"{data!r} is not a number")
        return float(data)
    if hint is int:
        if isinstance(data, bool) or not isinstance(data, int):
            raise TypeError(f"{data!r} is not an integer")
        return data
    if hint is str:
        if not isinstance(data, str):
            raise TypeError(f"{data!r} is not a string")
        return data
    if hint is bool:
        if not isinstance(data, bool):
            raise TypeError(f"{data!r} is not a boolean")
        return data
    return data
