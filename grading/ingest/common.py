"""Small normalisations every format needs: numbers, dates, adjusted-score codes, phantoms,
charge codes, event ids and the host-pair rule (S12, S14)."""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Protocol, TypeVar

from grading.engine.scoring import parse_adjusted_score
from grading.engine.types import Direction, PairEntry, Player
from grading.ingest.problems import ProblemLog

# The largest score one table can produce is 7600 (13 down, redoubled, vulnerable).
MAX_TABLE_SCORE = 7600

# S12: EBU charge codes that are stored but not graded, compared numerically (FORMATS 5.8).
NOT_GRADED_CHARGE_CODES = {
    11: "EBU charge code 11 (social or supervised session): the EBU does not grade it",
    22: "EBU charge code 22 (novice session with magazine points): the EBU does not grade it",
    4: "EBU charge code 04 (novice session without magazine points): the EBU does not grade it",
    2: (
        "EBU charge code 02: this is the overall-results file of a multi-session event; its "
        "sessions are graded from their own files, so grading it again would count them twice"
    ),
}

_PHANTOM_WORDS = re.compile(r"^\s*(phantom|sit[\s\-_]*out|sitout|bye|vacant|no\s*pair)\s*$", re.I)
_ADJUSTED_PERCENT = {"40": "A40", "50": "A50", "60": "A60"}


def parse_decimal(text: str | None) -> float | None:
    """A decimal number as files write it ("49.09", "-8.86", "+3", " 63.89 "), else None."""
    if text is None:
        return None
    cleaned = text.strip()
    if len(cleaned) > 30 or not re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)", cleaned):
        return None
    value = float(cleaned)
    return value if math.isfinite(value) else None


def parse_whole(text: str | None) -> int | None:
    """A whole number ("24", " 3 ", "+5"), else None."""
    if text is None:
        return None
    cleaned = text.strip()
    if not re.fullmatch(r"[+-]?\d{1,9}", cleaned):
        return None
    return int(cleaned)


_DATE_FORMATS = (
    (re.compile(r"^(\d{1,2})[/\-.](\d{1,2})[/\-.](\d{4})$"), ("d", "m", "y")),
    (re.compile(r"^(\d{4})[\-./](\d{1,2})[\-./](\d{1,2})$"), ("y", "m", "d")),
)


def parse_date(text: str | None) -> dt.date | None:
    """DD/MM/YYYY (USEBIO 1.0-1.2, never US order), DD-MM-YYYY, YYYY-MM-DD (USEBIO 1.3, CSV)
    and YYYY.MM.DD (PBN). Returns None for anything else or an impossible date."""
    if text is None:
        return None
    cleaned = text.strip()
    for pattern, order in _DATE_FORMATS:
        match = pattern.match(cleaned)
        if match:
            parts = dict(zip(order, (int(g) for g in match.groups()), strict=True))
            try:
                return dt.date(parts["y"], parts["m"], parts["d"])
            except ValueError:
                return None
    return None


def parse_adjusted_code(code: str) -> tuple[str, str] | None:
    """An artificial adjusted score on a traveller line (S2.4, S14.22) as the engine's (NS, EW)
    codes, in any of the forms programs write: USEBIO's ``A<NS%><EW%>`` (FORMATS 5.5,
    ``A6040``, ``A4050``), a code for NS alone whose other side is the complement (``A60``,
    ``AVE+``, ``A+``, ``A``, ``A-``: NS 60/50/40, EW 40/50/60), ``A60/40``. Only 40, 50 and 60
    percent exist (S2.4); anything else is None.
    """
    text = code.strip().upper().replace(" ", "")
    short = _SHORT_ADJUSTED.get(text)
    if short is not None:
        return short
    try:
        ns_percent, ew_percent = parse_adjusted_score(text)
    except ValueError:
        return None
    ew_percent = 100 - ns_percent if ew_percent is None else ew_percent
    ns_code, ew_code = (_ADJUSTED_PERCENT.get(str(p)) for p in (ns_percent, ew_percent))
    return None if ns_code is None or ew_code is None else (ns_code, ew_code)


# "A+", "A", "A-" (and "A=") for NS, EW the complement: the short forms scorers type.
_SHORT_ADJUSTED = {
    "A+": ("A60", "A40"),
    "A": ("A50", "A50"),
    "A=": ("A50", "A50"),
    "A-": ("A40", "A60"),
}


def line_figures(
    ns: float | None, ew: float | None, match_points: bool
) -> tuple[float, float] | None:
    """The two sides' own figures of a traveller line as the product compares them (S14.21):
    IMPs as written; match points as a percentage of the line's top, which is what the two
    sides' match points add up to (FORMATS 5.4: programs scale and factor their tops
    differently). None when the line does not give them, or gives no top (Ruter's centred
    match points)."""
    if ns is None or ew is None:
        return None
    if not match_points:
        return ns, ew
    top = ns + ew
    if top <= 0:
        return None
    return ns * 100 / top, ew * 100 / top


def looks_adjusted(code: str) -> bool:
    """Whether a traveller's score field holds an adjusted score rather than points: it starts
    with A (``A60``, ``A+``, ``AVE-``), possibly after a caret (PBN's mark of an artificial
    score)."""
    text = code.strip().lstrip("^").upper()
    return text[:1] == "A" and (len(text) == 1 or text[1] in "0123456789+-=V/")


_RELATIVE_TRICKS = re.compile(r"^(=|[+-]\d{1,2})$")


def parse_tricks(text: str | None, contract: str) -> int | None:
    """Tricks taken by declarer (informational): an absolute count 0-13, or a result written
    relative to the contract (``=``, ``+1``, ``-2``: S14.22), read against the contract's
    level (None when the contract gives no level or the result is impossible). Only an
    absolute count is checked later (0-13)."""
    if text is None:
        return None
    cleaned = text.strip()
    if not _RELATIVE_TRICKS.match(cleaned):
        return parse_whole(cleaned)  # an absolute count, as USEBIO defines it
    level = re.match(r"\s*([1-7])", contract or "")
    if level is None:
        return None
    tricks = int(level.group(1)) + 6 + (0 if cleaned == "=" else int(cleaned))
    return tricks if 0 <= tricks <= 13 else None


def plausible_table_score(value: int) -> bool:
    return abs(value) <= MAX_TABLE_SCORE and value % 10 == 0


# A traveller line's pair number that names no pair (S14.22, FORMATS 5.3): a bye, a sit-out or
# a phantom, as the USEBIO and PBN readers have met them; "?" is PBN's unknown value.
_BYE_NUMBERS = frozenset({"-", "0", "?", "BYE", "SITOUT", "SIT-OUT", "SIT OUT", "PHANTOM"})


def is_bye(number: str | None, *, blank: bool = False) -> bool:
    """Whether a traveller line's pair number is a bye or sit-out line rather than a pair.
    ``blank``: an empty or missing number is one too (a PBN ScoreTable row may leave the
    sit-out's id out); a USEBIO line names both pairs (FORMATS 2.6), so there a blank number
    is a damaged line, reported as such."""
    text = (number or "").strip().upper()
    return text in _BYE_NUMBERS or (blank and not text)


def is_phantom_name(name: str) -> bool:
    return bool(_PHANTOM_WORDS.match(name or ""))


def is_phantom_pair(players: Iterable[Player]) -> bool:
    """A sit-out or phantom pair: every player is named like a phantom, or there are no names
    and no numbers at all (FORMATS 5.3)."""
    listed = list(players)
    if not listed:
        return True
    if all(is_phantom_name(p.name) for p in listed):
        return True
    return all(not p.name.strip() and p.number is None for p in listed)


def clean_club_id(raw: str | None) -> str | None:
    """A national club number with spaces and leading zeros removed ("00458128" -> "458128")."""
    if raw is None:
        return None
    text = "".join(raw.split()).lstrip("0")
    return text or None


def charge_code_reason(raw: str) -> str:
    """Why a session with this EBU charge code is not graded, or "" when it is (S12)."""
    code = parse_whole(raw)
    if code is None:
        return ""
    return NOT_GRADED_CHARGE_CODES.get(code, "")


def slugify(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def derived_event_id(*parts: str) -> str:
    """A stable event id for a file that gives none (S14.1): ``auto-<slug>-<hash>`` from the
    event's name. The same name exported again (a correction) gives the same id."""
    label = next((p.strip() for p in parts if p and p.strip()), "")
    slug = slugify(label)[:40] or "event"
    digest = hashlib.sha256(label.casefold().encode("utf-8")).hexdigest()[:8]
    return f"auto-{slug}-{digest}"


def apply_first_host_rule(
    pairs: list[PairEntry], locations: dict[str, str], log: ProblemLog
) -> list[PairEntry]:
    """S14.4: only the first pair marked as host (RATEABLE="N", rateable=N) is honoured; the
    others are graded as usual, with a warning."""
    hosts = [p for p in pairs if not p.rateable]
    if len(hosts) <= 1:
        return pairs
    first = hosts[0]
    result = []
    for pair in pairs:
        if pair.rateable or pair is first:
            result.append(pair)
            continue
        log.warn(
            locations.get(pair.pair_id, f"pair {pair.pair_id}"),
            f"Pair {pair.pair_id} is also marked as a host pair, but only one host pair per "
            f"session is allowed and pair {first.pair_id} comes first. Pair {pair.pair_id} "
            "will be graded as usual; if it should not be, correct the file and upload it again.",
            code="second-host",
        )
        players = tuple(replace(p, rateable=True) for p in pair.players)
        result.append(replace(pair, players=(players[0], players[1])))
    return result


def suggested_weighting(scale: str, points_type: str, charge: str) -> int:
    """The event weighting the file suggests (S3.10); the club's event setting overrides it.

    EBU charge code 60 or green points above club scale: 3; another scale above club: 2;
    otherwise 1. Green points at club scale (Australian club files) stay 1.
    """
    scale_l, type_l = scale.strip().lower(), points_type.strip().lower()
    code = parse_whole(charge)
    above_club = bool(scale_l) and scale_l != "club"
    if code == 60 or (above_club and type_l == "green"):
        return 3
    if above_club:
        return 2
    return 1


# ---- pair numbers (FORMATS 5.2), shared by the USEBIO and PBN readers ------------------------


class NumberedPair(Protocol):
    number: str
    section: str
    direction: Direction | None


P = TypeVar("P", bound=NumberedPair)


def _with_direction(pair: NumberedPair) -> str:
    return pair.direction.value if pair.direction else ""


# The pair number, qualified by direction and section only as far as needed to be unique
# (Mitchell numbers are unique only with their direction, sections may repeat numbers).
_PAIR_ID_FORMS = (
    lambda p: p.number,
    lambda p: p.number + _with_direction(p),
    lambda p: p.section + p.number,
    lambda p: p.section + p.number + _with_direction(p),
)


def unique_pair_ids(pairs: Sequence[NumberedPair]) -> list[str] | None:
    """Each pair's id in the session, in order; None when even section, number and direction
    together repeat (a pair listed twice)."""
    for form in _PAIR_ID_FORMS:
        ids = [form(p) for p in pairs]
        if len(set(ids)) == len(ids):
            return ids
    return None


def pair_in_full(pair: NumberedPair) -> str:
    """Section, number and direction: what two listings of one pair share."""
    return _PAIR_ID_FORMS[-1](pair)


def pairs_by_number(pairs: Iterable[P]) -> dict[tuple[str, str], list[P]]:
    lookup: dict[tuple[str, str], list[P]] = defaultdict(list)
    for pair in pairs:
        lookup[(pair.section, pair.number.strip().upper())].append(pair)
    return lookup


def pair_of_line(
    lookup: dict[tuple[str, str], list[P]], section: str, number: str, side: Direction
) -> P | None:
    """The pair a traveller line names: in the line's section, else anywhere (numbers unique
    across sections); of several, the one sitting on the line's side (Mitchell)."""
    key = number.strip().upper()
    candidates = lookup.get((section, key)) or [
        p for (_section, num), found in lookup.items() if num == key for p in found
    ]
    if len(candidates) == 1:
        return candidates[0]
    on_side = [p for p in candidates if p.direction in (side, None)]
    return on_side[0] if len(on_side) == 1 else None
