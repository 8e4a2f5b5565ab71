"""What the USEBIO reader passes between its parts: event types, reasons, the raw pairs and
traveller lines of a session, and small helpers on elements (FORMATS 2)."""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from grading.engine.types import (
    Direction,
    Player,
    Scoring,
    TravellerLine,
)
from grading.ingest import common
from grading.ingest.xmltext import child_path, children, text

KNOWN_VERSIONS = {"1.0", "1.1", "1.2", "1.3"}

PAIRS_EVENT_SCORING = {
    "MP_PAIRS": Scoring.MP,
    "BUTLER_PAIRS": Scoring.BUTLER,
    "CROSS_IMP": Scoring.CROSS_IMP,
    "CROSS_IMPS": Scoring.CROSS_IMP,
    "AGGREGATE": Scoring.AGGREGATE,
}
PAIRS_METHOD_SCORING = {
    "MATCH_POINTS": Scoring.MP,
    "MATCHPOINTS": Scoring.MP,
    "CROSS_IMPS": Scoring.CROSS_IMP,
    "CROSS_IMP": Scoring.CROSS_IMP,
    "BUTLER_IMPS": Scoring.BUTLER,
    "BUTLER": Scoring.BUTLER,
    "AGGREGATE": Scoring.AGGREGATE,
}
TEAMS_EVENT_SCORING = {
    "TEAMS": Scoring.MULTIPLE_TEAMS,
    "SWISS_TEAMS": Scoring.SWISS_TEAMS,
    "TEAMS_OF_FOUR": Scoring.TEAM_LEAGUE,
    "LADDER": Scoring.TEAM_LEAGUE,
    "KO": Scoring.HEAD_TO_HEAD,
    "HEAD_TO_HEAD": Scoring.HEAD_TO_HEAD,
}
SWISS_PAIRS_TYPES = {"SWISS_PAIRS", "SWISS_PAIRS_CROSS_IMPS", "SWISS_PAIRS_BUTLER_IMPS"}
IMP_METHODS = {"IMPS", "IMP", "CROSS_IMPS", "CROSS_IMP", "BUTLER_IMPS", "BUTLER"}

# The per-line figure a pair's IMP total is the sum of, by scoring type.
LINE_POINTS = {
    Scoring.MP: ("NS_MATCH_POINTS", "EW_MATCH_POINTS"),
    Scoring.BUTLER: ("NS_BUTLER_POINTS", "EW_BUTLER_POINTS"),
    Scoring.CROSS_IMP: ("NS_CROSS_IMP_POINTS", "EW_CROSS_IMP_POINTS"),
}
TEAM_LINE_POINTS = ("NS_CROSS_IMP_POINTS", "EW_CROSS_IMP_POINTS")

# Why a session is stored but not graded (S3.1, S3.6; FORMATS 5.7), in a scorer's words.
REASON_INDIVIDUAL = (
    "Individual events (each player with changing partners) are not graded: grades are worked "
    "out for pairs."
)
REASON_PAB = "Point-a-board teams events are not graded."
REASON_HEAD_TO_HEAD = (
    "This is a head-to-head teams match (each board played at two tables only): such matches "
    "are not graded."
)
REASON_SWISS_TWO_TABLES = (
    "Every board of this Swiss teams session was played at two tables only (each match had "
    "its own boards), so a pair is compared only with the other pair of its own match: such "
    "sessions are not graded."
)
REASON_TEAMS_V10 = (
    "Teams results in USEBIO 1.0 files have no pair line-ups, so the EBU does not grade them. "
    "Export the event as USEBIO 1.1 or later to have it graded."
)
REASON_NO_LINEUPS = (
    "The file lists team members but not which pairs played together, so the teams event "
    "cannot be graded per pair. Export it with pair line-ups (TEAM_PAIRING_AVAILABLE Y)."
)


@dataclass
class Header:
    event_type: str
    board_scoring: str
    scoring_method: str
    match_scoring: str
    name: str
    event_id: str
    derived_id: bool
    program: str
    date: dt.date | None
    date_text: str | None
    winner_type: str
    boards_played: int | None
    charge: str
    scale: str
    points_type: str
    version: str
    team_pairing: str


@dataclass
class Unit:
    """One session: its number, where it is, and the containers holding its results."""

    number: int
    path: str
    element: ET.Element
    date: dt.date | None
    sections: list[tuple[str, str, ET.Element]]  # (label, path, element)


@dataclass
class RawPair:
    number: str
    section: str
    direction: Direction | None
    players: tuple[Player, ...]
    path: str
    line: int | None
    percentage: str | None = None
    total: str | None = None
    pair_imps: str | None = None
    boards_played: str | None = None
    handicap: str | None = None  # HANDICAP: the score is after handicaps (S14.15)
    team: str = ""
    pair_id: str = ""


@dataclass
class Dropped:
    """The pairs left out (sit-outs, phantoms: FORMATS 5.3) by section, number and direction:
    in a Mitchell whose numbers repeat per direction (FORMATS 5.2), a phantom EW 3 is not the
    real NS 3, whose lines must stay."""

    directions: dict[tuple[str, str], set[Direction | None]] = field(default_factory=dict)

    def add(self, section: str, raw: RawPair) -> None:
        self.directions.setdefault((section, raw.number), set()).add(raw.direction)

    def against(
        self, section: str, ns_num: str, ew_num: str, lookup: dict[tuple[str, str], list[RawPair]]
    ) -> bool:
        """Whether a line (or match) is against a pair left out: not a comparison."""
        return self._sits(section, ns_num, Direction.NS, lookup) or self._sits(
            section, ew_num, Direction.EW, lookup
        )

    def _sits(self, section: str, number: str, side: Direction, lookup) -> bool:
        directions = self.directions.get((section, number))
        if directions is None:
            return False
        if None in directions or side in directions:
            return True
        return not lookup.get((section, number.strip().upper()))  # no kept pair has the number


@dataclass
class Lines:
    """Traveller lines of a session and what was learned from them."""

    lines: list[TravellerLine] = field(default_factory=list)
    boards_by_pair: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))
    points_by_pair: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    sides_by_pair: dict[str, set[Direction]] = field(default_factory=lambda: defaultdict(set))
    board_numbers: set[int] = field(default_factory=set)
    tables_by_board: Counter[int] = field(default_factory=Counter)
    skipped: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    sat_out: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))
    figures: dict[tuple[str, int], float] = field(default_factory=dict)  # the file's, per board


class Failed:
    pass


FAILED = Failed()


def is_tag(element: ET.Element, tag: str) -> bool:
    return isinstance(element.tag, str) and element.tag.upper() == tag


def located(path: str, line: int | None) -> str:
    return f"{path} (line {line})" if line else path


def written_direction(written: str | None, number: str) -> Direction | None:
    value = (written or "").strip().upper().replace("-", "").replace("/", "")
    if value in ("NS", "EW"):
        return Direction(value)
    upper = number.upper()
    if upper.endswith("NS"):
        return Direction.NS
    if upper.endswith("EW"):
        return Direction.EW
    return None


def pair_direction(raw: RawPair, lines: Lines) -> Direction | None:
    if raw.direction is not None:
        return raw.direction
    sides = lines.sides_by_pair.get(raw.pair_id, set())
    return next(iter(sides)) if len(sides) == 1 else None


def pair_label(raw: RawPair, what: str = "Pair") -> str:
    shown = raw.number or "(no number)"
    return f"{what} {shown}" + (f" in section {raw.section}" if raw.section else "")


def boards_of(container: ET.Element, path: str) -> list[tuple[ET.Element, str]]:
    """BOARDs of a section or session, and those inside its MATCHes (teams)."""
    found = [(b, child_path(path, "BOARD", i)) for i, b in children(container, "BOARD")]
    for m_index, match in children(container, "MATCH"):
        m_path = child_path(path, "MATCH", m_index)
        found.extend((b, child_path(m_path, "BOARD", i)) for i, b in children(match, "BOARD"))
    return found


def match_boards(match: ET.Element) -> int:
    listed = sum(1 for _ in children(match, "BOARD"))
    if listed:
        return listed
    start = common.parse_whole(text(match, "START_BOARD_NUMBER"))
    end = common.parse_whole(text(match, "END_BOARD_NUMBER"))
    if start is not None and end is not None and end >= start:
        return end - start + 1
    return 0


def hand_record_boards(element: ET.Element) -> int:
    """How many deals an element holds when it is a hand record: HANDSET boards or boards with
    HANDs, and no PARTICIPANTS anywhere (FORMATS 2.8). 0 when it is not one."""
    deals = 0
    for node in element.iter():
        if is_tag(node, "PARTICIPANTS"):
            return 0
        if is_tag(node, "BOARD") and any(is_tag(child, "HAND") for child in node):
            deals += 1
    return deals


def hand_record_message(deals: int) -> str:
    return (
        f"This file is a hand record: it holds the deals of {deals} board(s) but no results "
        "(no pairs and no scores), so there is nothing to grade. Upload the results file your "
        "scoring program writes once the session has been scored (the USEBIO XML file with "
        "the pairs' scores)."
    )


def program_of(event: ET.Element) -> str:
    parts = [text(event, "PROGRAM_NAME") or "", text(event, "PROGRAM_VERSION") or ""]
    return " ".join(p for p in parts if p)
