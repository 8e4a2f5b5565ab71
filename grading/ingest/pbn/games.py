"""A PBN file as games: tags, tables and their rows, and the small readings every part needs
(PBN 2.1 sections 5.2, 5.9, 5.10; FORMATS 3)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from grading.engine.types import (
    Direction,
    Player,
    Scoring,
)
from grading.ingest import common

_TAG = re.compile(r'^\[\s*([A-Za-z0-9_]+)\s+"(.*)"\s*\]\s*$')
_META = re.compile(r'^%\s*<META\s+name=(\S+)\s+content="(.*)"\s*>', re.I)
_TOKEN = re.compile(r'"([^"]*)"|(\S+)')
_NAME_SPLIT = re.compile(r"\s+-\s+|\s*&\s*|\s+and\s+", re.I)


@dataclass
class Table:
    name: str
    columns: list[str]
    line: int
    rows: list[tuple[int, list[str]]] = field(default_factory=list)

    def records(self) -> list[tuple[int, dict[str, str]]]:
        return [(n, dict(zip(self.columns, tokens, strict=False))) for n, tokens in self.rows]


@dataclass
class Facts:
    """What the ScoreTables say per pair: boards seen and the sum of their MP/IMP column; the
    boards it sat out (lines against a bye, sit-out or phantom); each board's number of
    scores; the file's own MP/IMP figure of each (pair, board)."""

    boards: dict[str, set[int]] = field(default_factory=dict)
    points: dict[str, float] = field(default_factory=dict)
    skipped: bool = False
    sat_out: dict[str, set[int]] = field(default_factory=dict)
    scores_by_board: dict[int, int] = field(default_factory=dict)
    line_points: dict[tuple[str, int], float] = field(default_factory=dict)
    figures: dict[tuple[str, int], float] = field(default_factory=dict)  # as compared (S14.21)


@dataclass
class Game:
    tags: dict[str, str] = field(default_factory=dict)
    tag_lines: dict[str, int] = field(default_factory=dict)
    tables: list[Table] = field(default_factory=list)


def decode(data: bytes) -> tuple[str, str]:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace"), "cp1252"


def table_columns(spec: str) -> list[str]:
    """``"Rank\\1R;PairId\\2R"`` -> ["Rank", "PairId"] (PBN 5.2: sort sign, width, alignment)."""
    names = []
    for part in spec.split(";"):
        name = part.split("\\")[0].strip().lstrip("+-")
        names.append(name)
    return names


def read_games(text: str) -> tuple[list[Game], dict[str, str]]:
    games: list[Game] = []
    meta: dict[str, str] = {}
    game = Game()
    table: Table | None = None
    previous: dict[str, str] = {}
    in_comment = False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if in_comment:
            in_comment = "}" not in line
            continue
        if line.startswith("%"):
            found = _META.match(line)
            if found:
                meta[found.group(1).lower()] = found.group(2).strip()
            continue
        if line.startswith("{"):
            in_comment = "}" not in line
            continue
        if not line:
            if game.tags or game.tables:
                games.append(game)
                previous = {**previous, **game.tags}
            game, table = Game(), None
            continue
        tag = _TAG.match(line)
        if tag:
            name, value = tag.group(1), tag.group(2)
            if value == "#":  # PBN: same value as the previous game
                value = previous.get(name, "")
            game.tags[name] = value
            game.tag_lines[name] = number
            table = None
            if name.endswith("Table"):
                table = Table(name, table_columns(value), number)
                game.tables.append(table)
            continue
        if table is not None and not line.startswith("["):
            tokens = [
                m.group(1) if m.group(1) is not None else m.group(2) for m in _TOKEN.finditer(line)
            ]
            table.rows.append((number, tokens))
    if game.tags or game.tables:
        games.append(game)
    return games, meta


def scoring_of(text: str, columns: list[str]) -> Scoring | None:
    lowered = text.lower()
    if "butler" in lowered:
        return Scoring.BUTLER
    if "cross" in lowered:
        return Scoring.CROSS_IMP
    if lowered.startswith(("mp", "matchpoint")) or "matchpoints" in lowered:
        return Scoring.MP
    if not lowered and ("TotalPercentage" in columns or "MeanPercentage" in columns):
        return Scoring.MP
    return None


def direction_of(text: str) -> Direction | None:
    value = text.upper().replace("-", "").replace("/", "").strip()
    return Direction(value) if value in ("NS", "EW") else None


def creator_of(text: str) -> str:
    for line in text.splitlines()[:10]:
        if line.lower().startswith("%creator:"):
            return line.split(":", 1)[1].strip()
    return ""


@dataclass
class Row:
    """One line of a TotalScoreTable. ``pair_id`` is set once every pair kept is known
    (FORMATS 5.2); a sit-out or phantom has none."""

    number: str
    line: int
    section: str
    players: tuple[Player, Player]
    direction: Direction | None
    boards: int | None
    rank: str
    record: dict[str, str]
    score_column: str
    pair_id: str = ""
    table: int = 0  # the line of its TotalScoreTable

    @property
    def left_out(self) -> bool:
        """FORMATS 5.3: a sit-out or phantom pair (decisions: phantoms and sit-outs). Names
        may be the partnership's one name (PBN 5.9), so a player with neither name nor number
        beside a "PHANTOM" does not make the pair real."""
        named = [p for p in self.players if p.name.strip() or p.number is not None]
        return self.boards == 0 or common.is_phantom_pair(named)


def score_columns(scoring: Scoring) -> tuple[str, ...]:
    """The ranking columns a pair's score is read from, in order of preference (PBN 5.10,
    FORMATS 3.3 for Ruter's TotalScoreIMP)."""
    if scoring is Scoring.MP:
        return ("TotalPercentage", "MeanPercentage")
    return ("TotalIMP", "TotalScoreIMP", "MeanIMP")


def game_date(game: Game) -> dt.date | None:
    for tag in ("Date", "EventDate"):
        value = common.parse_date(game.tags.get(tag))
        if value is not None:
            return value
    return None


def pair_label(row: Row) -> str:
    """How a message names a pair: as the ranking writes it."""
    direction = f" {row.direction.value}" if row.direction else ""
    section = f" in section {row.section}" if row.section else ""
    return f"Pair {row.number}{direction}{section}"


def ns_score(rec: dict[str, str]) -> int | None:
    ns = common.parse_whole(rec.get("Score_NS"))
    if ns is None:
        ew = common.parse_whole(rec.get("Score_EW"))
        ns = -ew if ew is not None else None
    if ns is None and rec.get("Contract", "").lower() == "pass":
        ns = 0
    if ns is None or not common.plausible_table_score(ns):
        return None
    return ns
