"""The product's own CSV format (S12.1, S14.12): one row per pair per session.

A file with any invalid row is refused whole, with every problem listed by line and column.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import TypeVar

from grading.engine.types import (
    Direction,
    Movement,
    PairEntry,
    Player,
    Scoring,
    SessionKey,
    SessionResult,
    normalise_number,
)
from grading.ingest import common, limits
from grading.ingest.limits import EARLIEST_PLAY_DATE
from grading.ingest.problems import FileMeta, ParseResult, ProblemLog

REQUIRED = (
    "event_id",
    "session",
    "date",
    "scoring",
    "movement",
    "pair",
    "player1_number",
    "player2_number",
    "score",
)
OPTIONAL = (
    "event_name",
    "start",
    "weighting",
    "direction",
    "player1_name",
    "player2_name",
    "direction_mean",
    "boards",
    "rateable",
)
CSV_SCORING = {
    s.value: s for s in (Scoring.MP, Scoring.BUTLER, Scoring.CROSS_IMP, Scoring.AGGREGATE)
}
_T = TypeVar("_T")
_TIME = re.compile(r"^(\d{1,2}):(\d{2})$")
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass
class _Row:
    line: int
    session_key: tuple[str, int, dt.date]
    event_name: str
    start: dt.time | None
    scoring: Scoring
    movement: Movement
    weighting: int
    entry: PairEntry


class _RowReader:
    """Validates one row, reporting every bad cell (S14.12)."""

    def __init__(self, line: int, row: dict[str, str], log: ProblemLog, earliest: dt.date) -> None:
        self.line, self.row, self.log = line, row, log
        self.earliest = earliest
        self.ok = True

    def bad(self, column: str, message: str, code: str = "csv-row") -> None:
        self.ok = False
        self.log.problem(f"line {self.line}, column {column}", message, line=self.line, code=code)

    def cell(self, column: str) -> str:
        return (self.row.get(column) or "").strip()

    def required(self, column: str) -> str:
        value = self.cell(column)
        if not value:
            self.bad(column, f"{column} is empty; every row needs it.")
        return value

    def read(self) -> _Row | None:
        event_id = self.required("event_id")
        session = self._session()
        date = self._date()
        start = self._start()
        scoring = self._choice("scoring", CSV_SCORING)
        movement = self._choice("movement", {m.value: m for m in Movement})
        weighting = self._weighting()
        pair = self.required("pair")
        direction = self._direction(movement)
        players = (self._player(1), self._player(2))
        score = self._score(scoring)
        boards = self._boards()
        mean = self._direction_mean(scoring)
        if not self.ok or None in (session, date, scoring, movement, score):
            return None
        assert session is not None and date is not None and scoring is not None
        assert movement is not None
        return _Row(
            line=self.line,
            session_key=(event_id, session, date),
            event_name=self.cell("event_name"),
            start=start,
            scoring=scoring,
            movement=movement,
            weighting=weighting,
            entry=PairEntry(
                pair_id=pair,
                players=players,
                score=score,
                direction=direction,
                boards=boards,
                direction_mean=mean,
            ),
        )

    def _session(self) -> int | None:
        raw = self.required("session")
        value = common.parse_whole(raw)
        if raw and (value is None or value < 1):
            self.bad("session", f'session "{raw}" must be a whole number from 1 (1 if one).')
            return None
        return value

    def _date(self) -> dt.date | None:
        raw = self.required("date")
        value = common.parse_date(raw) if _ISO_DATE.match(raw) else None
        if raw and value is None:
            self.bad("date", f'date "{raw}" must be a real date written YYYY-MM-DD.')
        too_early = limits.date_problem(value, self.earliest) if value else None
        if too_early:
            self.bad("date", too_early, code="date-too-early")
            return None
        return value

    def _start(self) -> dt.time | None:
        raw = self.cell("start")
        if not raw:
            return None
        match = _TIME.match(raw)
        if match and int(match.group(1)) < 24 and int(match.group(2)) < 60:
            return dt.time(int(match.group(1)), int(match.group(2)))
        self.bad("start", f'start "{raw}" must be a time written HH:MM, or empty.')
        return None

    def _choice(self, column: str, allowed: dict[str, _T]) -> _T | None:
        raw = self.required(column)
        value = allowed.get(raw.upper())
        if raw and value is None:
            self.bad(column, f'{column} "{raw}" must be one of {", ".join(allowed)}.')
        return value

    def _weighting(self) -> int:
        raw = self.cell("weighting")
        if not raw:
            return 1
        if raw in ("1", "2", "3"):
            return int(raw)
        self.bad("weighting", f'weighting "{raw}" must be 1, 2 or 3, or empty for 1.')
        return 1

    def _direction(self, movement: Movement | None) -> Direction | None:
        raw = self.cell("direction").upper()
        if movement is Movement.TWO_WINNER:
            if raw in ("NS", "EW"):
                return Direction(raw)
            self.bad("direction", "direction must be NS or EW in a two-winner movement.")
            return None
        if raw and raw not in ("NS", "EW"):
            self.bad("direction", f'direction "{raw}" must be NS, EW or empty.')
        return None  # one-winner: a direction, if given, does not matter

    def _player(self, index: int) -> Player:
        column = f"player{index}_number"
        raw = self.cell(column)
        number = normalise_number(raw)
        if number is not None and not number.isdigit():
            self.bad(column, f'membership number "{raw}" must contain digits only, or be empty.')
            number = None
        rateable = self.cell("rateable").upper()
        if rateable not in ("", "Y", "N"):
            if index == 1:
                self.bad("rateable", f'rateable "{rateable}" must be Y, N or empty.')
            rateable = ""
        return Player(
            number=number, name=self.cell(f"player{index}_name"), rateable=rateable != "N"
        )

    def _score(self, scoring: Scoring | None) -> float | None:
        raw = self.required("score")
        value = common.parse_decimal(raw)
        if raw and value is None:
            self.bad("score", f'score "{raw}" must be a number, with a point for decimals.')
            return None
        if value is not None and scoring is Scoring.MP:
            bad = limits.percent_problem(f"Pair {self.cell('pair')}", value)
            if bad is not None:
                self.bad("score", bad)
                return None
        return value

    def _boards(self) -> int | None:
        raw = self.cell("boards")
        if not raw:
            return None  # S3.7: not reported, 24 assumed
        value = common.parse_whole(raw)
        if value is None or value < 1:
            self.bad("boards", f'boards "{raw}" must be a whole number of at least 1, or empty.')
            return None
        return value

    def _direction_mean(self, scoring: Scoring | None) -> float | None:
        raw = self.cell("direction_mean")
        if not raw:
            return None
        value = common.parse_decimal(raw)
        if value is None:
            self.bad("direction_mean", f'direction_mean "{raw}" must be a number, or empty.')
        elif scoring is not Scoring.AGGREGATE:
            self.bad(
                "direction_mean", "direction_mean is for aggregate scoring only; leave it empty."
            )
            return None
        return value


def _decode(data: bytes, log: ProblemLog) -> str | None:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        log.problem(
            f"line {line}",
            'The CSV file is not UTF-8 text. Save it again choosing "CSV UTF-8".',
            line=line,
            code="csv-encoding",
        )
        return None


def _header(reader: csv.DictReader[str], log: ProblemLog) -> bool:
    names = [n.strip().lower() for n in (reader.fieldnames or [])]
    reader.fieldnames = names
    missing = [c for c in REQUIRED if c not in names]
    for column in missing:
        log.problem(
            "line 1",
            f'The header row has no "{column}" column, which the product\'s CSV format needs.',
            line=1,
            code="csv-header",
        )
    duplicated = sorted({n for n in names if names.count(n) > 1 and n})
    for column in duplicated:
        log.problem("line 1", f'The header row has "{column}" twice.', line=1, code="csv-header")
    unknown = [n for n in names if n and n not in REQUIRED and n not in OPTIONAL]
    if unknown:
        log.warn(
            "line 1",
            f"Columns the product's CSV format does not have were ignored: {', '.join(unknown)}.",
            line=1,
        )
    return not missing and not duplicated


def parse_csv(data: bytes, club: str, *, earliest: dt.date = EARLIEST_PLAY_DATE) -> ParseResult:
    log = ProblemLog()
    meta = FileMeta(format="csv", encoding="utf-8")
    text = _decode(data, log)
    if text is None:
        return log.result([], meta)
    reader = csv.DictReader(io.StringIO(text, newline=""), restkey="__extra__")
    try:
        if not _header(reader, log):
            return log.result([], meta)
        rows = _rows(reader, log, earliest)
    except csv.Error as exc:
        log.problem(
            f"line {reader.line_num}",
            f"The CSV cannot be read here ({exc}); check the quotes on this line.",
            line=reader.line_num,
            code="csv-syntax",
        )
        return log.result([], meta)
    if not rows and not log.problems:
        log.problem("file", "The CSV file has a header row but no results rows.", code="csv-empty")
    sessions = _sessions(rows, club, log)
    return log.result(sessions, meta)


def _rows(reader: csv.DictReader[str], log: ProblemLog, earliest: dt.date) -> list[_Row]:
    rows = []
    for record in reader:
        line = reader.line_num
        if not any((v or "").strip() for k, v in record.items() if k != "__extra__"):
            continue  # a blank line
        if record.get("__extra__"):
            log.problem(
                f"line {line}",
                "This row has more cells than the header row has columns; check for a comma "
                "inside a name that is not in quotes.",
                line=line,
                code="csv-row",
            )
            continue
        row = _RowReader(line, record, log, earliest).read()
        if row is not None:
            rows.append(row)
    return rows


def _sessions(rows: list[_Row], club: str, log: ProblemLog) -> list[SessionResult]:
    grouped: dict[tuple[str, int, dt.date], list[_Row]] = defaultdict(list)
    for row in rows:
        grouped[row.session_key].append(row)
    sessions = []
    for (event_id, number, date), members in grouped.items():
        first = members[0]
        for row in members[1:]:
            for attr in ("event_name", "start", "scoring", "movement", "weighting"):
                if getattr(row, attr) != getattr(first, attr):
                    log.problem(
                        f"line {row.line}, column {attr}",
                        f"{attr} differs from line {first.line} of the same session (event "
                        f"{event_id}, session {number}, {date}); one session has one {attr}.",
                        line=row.line,
                        code="csv-session",
                    )
        seen: dict[tuple[str, Direction | None], int] = {}
        for row in members:
            key = (row.entry.pair_id, row.entry.direction)
            if key in seen:
                log.problem(
                    f"line {row.line}, column pair",
                    f"pair {row.entry.pair_id} appears twice in the session (also line "
                    f"{seen[key]}).",
                    line=row.line,
                    code="csv-duplicate-pair",
                )
            seen[key] = row.line
        entries = _unique_pair_ids([r.entry for r in members], first.movement)
        locations = {e.pair_id: f"line {r.line}" for e, r in zip(entries, members, strict=True)}
        entries = common.apply_first_host_rule(entries, locations, log)
        sessions.append(
            SessionResult(
                key=SessionKey(club, event_id, number, date),
                event_name=first.event_name,
                scoring=first.scoring,
                movement=first.movement,
                pairs=tuple(entries),
                weighting=first.weighting,
                start=first.start,
                source="CSV",
            )
        )
    return sessions


def _unique_pair_ids(entries: list[PairEntry], movement: Movement) -> list[PairEntry]:
    """In a Mitchell, pair 1 NS and pair 1 EW are different pairs: give them distinct ids."""
    ids = [e.pair_id for e in entries]
    if len(set(ids)) == len(ids) or movement is not Movement.TWO_WINNER:
        return entries
    return [
        replace(e, pair_id=e.pair_id + (e.direction.value if e.direction else "")) for e in entries
    ]


CSV_COLUMNS = (
    REQUIRED[:1]
    + ("event_name",)
    + REQUIRED[1:3]
    + (
        "start",
        "scoring",
        "movement",
        "weighting",
        "pair",
        "direction",
        "player1_number",
        "player1_name",
        "player2_number",
        "player2_name",
        "score",
        "direction_mean",
        "boards",
        "rateable",
    )
)


def write_csv(sessions: list[SessionResult]) -> bytes:
    """The S12.1 CSV of match-pointed, Butler, cross-IMP and aggregate pairs sessions.

    The inverse of :func:`parse_csv` for what the format can hold (no travellers or matches).
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for session in sessions:
        if session.scoring.value not in CSV_SCORING:
            raise ValueError(f"the CSV format cannot hold {session.scoring.value} sessions")
        for pair in session.pairs:
            writer.writerow(_csv_row(session, pair))
    return out.getvalue().encode("utf-8")


def _csv_row(session: SessionResult, pair: PairEntry) -> list:
    first, second = pair.players
    return [
        session.key.event_id,
        session.event_name,
        session.key.session,
        session.date.isoformat(),
        session.start.strftime("%H:%M") if session.start else "",
        session.scoring.value,
        session.movement.value,
        session.weighting,
        pair.pair_id,
        pair.direction.value if pair.direction else "",
        first.number or "",
        first.name,
        second.number or "",
        second.name,
        "" if pair.score is None else repr(pair.score),
        "" if pair.direction_mean is None else repr(pair.direction_mean),
        "" if pair.boards is None else pair.boards,
        "" if pair.rateable else "N",
    ]
