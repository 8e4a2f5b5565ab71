"""USEBIO 1.0-1.3 results files (FORMATS 2, 5; SPEC S12).

Both nestings are read: PARTICIPANTS/BOARD/MATCH directly under EVENT (ScoreBridge, Compscore,
BriAn, RealBridge) or inside SESSION and SECTION (EBU examples, EBUScore). Each SESSION becomes
one :class:`SessionResult`; the sections of a session are one field, told apart by
``PairEntry.section``. Pair totals come from the file (FORMATS 7.5); travellers are kept for
display and for the cross-check.
"""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace

from grading.engine.types import (
    Direction,
    Movement,
    PairEntry,
    Player,
    Scoring,
    SessionKey,
    SessionResult,
    SwissMatch,
    TravellerLine,
    normalise_number,
)
from grading.ingest import common
from grading.ingest.problems import FileMeta, ProblemLog
from grading.ingest.xmlsafe import XmlDocument
from grading.ingest.xmltext import attr, child_path, children, find, text

KNOWN_VERSIONS = {"1.0", "1.1", "1.2", "1.3"}

_PAIRS_EVENT_SCORING = {
    "MP_PAIRS": Scoring.MP,
    "BUTLER_PAIRS": Scoring.BUTLER,
    "CROSS_IMP": Scoring.CROSS_IMP,
    "CROSS_IMPS": Scoring.CROSS_IMP,
    "AGGREGATE": Scoring.AGGREGATE,
}
_PAIRS_METHOD_SCORING = {
    "MATCH_POINTS": Scoring.MP,
    "MATCHPOINTS": Scoring.MP,
    "CROSS_IMPS": Scoring.CROSS_IMP,
    "CROSS_IMP": Scoring.CROSS_IMP,
    "BUTLER_IMPS": Scoring.BUTLER,
    "BUTLER": Scoring.BUTLER,
    "AGGREGATE": Scoring.AGGREGATE,
}
_TEAMS_EVENT_SCORING = {
    "TEAMS": Scoring.MULTIPLE_TEAMS,
    "SWISS_TEAMS": Scoring.SWISS_TEAMS,
    "TEAMS_OF_FOUR": Scoring.TEAM_LEAGUE,
    "LADDER": Scoring.TEAM_LEAGUE,
    "KO": Scoring.HEAD_TO_HEAD,
    "HEAD_TO_HEAD": Scoring.HEAD_TO_HEAD,
}
_SWISS_PAIRS_TYPES = {"SWISS_PAIRS", "SWISS_PAIRS_CROSS_IMPS", "SWISS_PAIRS_BUTLER_IMPS"}
_IMP_METHODS = {"IMPS", "IMP", "CROSS_IMPS", "CROSS_IMP", "BUTLER_IMPS", "BUTLER"}

# The per-line figure a pair's IMP total is the sum of, by scoring type.
_LINE_POINTS = {
    Scoring.MP: ("NS_MATCH_POINTS", "EW_MATCH_POINTS"),
    Scoring.BUTLER: ("NS_BUTLER_POINTS", "EW_BUTLER_POINTS"),
    Scoring.CROSS_IMP: ("NS_CROSS_IMP_POINTS", "EW_CROSS_IMP_POINTS"),
}
_TEAM_LINE_POINTS = ("NS_CROSS_IMP_POINTS", "EW_CROSS_IMP_POINTS")

REASON_INDIVIDUAL = "Individual events are not graded (S3.1)."
REASON_PAB = "Point-a-board teams events are not graded (S3.1)."
REASON_HEAD_TO_HEAD = (
    "Head-to-head teams matches, where each board is played at two tables only, are not "
    "graded (S3.1)."
)
REASON_TEAMS_V10 = (
    "Teams results in USEBIO 1.0 files have no pair line-ups, so the EBU does not grade them "
    "(FORMATS 5.7). Export the event as USEBIO 1.1 or later to have it graded."
)
REASON_NO_LINEUPS = (
    "The file lists team members but not which pairs played together, so the teams event "
    "cannot be graded per pair (S3.6). Export it with pair line-ups (TEAM_PAIRING_AVAILABLE Y)."
)


@dataclass
class _Header:
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
class _Unit:
    """One session: its number, where it is, and the containers holding its results."""

    number: int
    path: str
    element: ET.Element
    date: dt.date | None
    sections: list[tuple[str, str, ET.Element]]  # (label, path, element)


@dataclass
class _RawPair:
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
    team: str = ""
    pair_id: str = ""


@dataclass
class _Dropped:
    """The pairs left out (sit-outs, phantoms: FORMATS 5.3) by section, number and direction:
    in a Mitchell whose numbers repeat per direction (FORMATS 5.2), a phantom EW 3 is not the
    real NS 3, whose lines must stay."""

    directions: dict[tuple[str, str], set[Direction | None]] = field(default_factory=dict)

    def add(self, section: str, raw: _RawPair) -> None:
        self.directions.setdefault((section, raw.number), set()).add(raw.direction)

    def against(
        self, section: str, ns_num: str, ew_num: str, lookup: dict[tuple[str, str], list[_RawPair]]
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
class _Lines:
    """Traveller lines of a session and what was learned from them."""

    lines: list[TravellerLine] = field(default_factory=list)
    boards_by_pair: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))
    points_by_pair: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    sides_by_pair: dict[str, set[Direction]] = field(default_factory=lambda: defaultdict(set))
    board_numbers: set[int] = field(default_factory=set)
    tables_by_board: Counter[int] = field(default_factory=Counter)
    skipped: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))


# --------------------------------------------------------------------------------------------
# Entry point


def parse_usebio(
    doc: XmlDocument, club: str, log: ProblemLog
) -> tuple[list[SessionResult], FileMeta]:
    root = doc.root
    version = attr(root, "Version")
    club_el = find(root, "CLUB")
    club_name = (text(club_el, "CLUB_NAME") or "") if club_el is not None else ""
    club_id = common.clean_club_id(text(club_el, "CLUB_ID_NUMBER")) if club_el is not None else None
    events = list(children(root, "EVENT"))
    first_event = events[0][1] if events else None
    meta = FileMeta(
        format="usebio",
        format_version=version,
        program=_program(first_event) if first_event is not None else "",
        national_club_id=club_id,
        club_name=club_name,
        event_type=attr(first_event, "EVENT_TYPE") if first_event is not None else "",
        charge_code=(text(first_event, "P2P_CHARGE_RATE", "EBU_CHARGE_CODE") or "")
        if first_event is not None
        else "",
        encoding=doc.encoding,
    )
    if version and version not in KNOWN_VERSIONS:
        log.warn(
            "USEBIO@Version",
            f'The file says it is USEBIO version "{version}"; the product knows 1.0 to 1.3 '
            "and read it as those. Check the results shown before grading them.",
            line=doc.line(root),
            code="usebio-version",
        )
    if doc.reencoded:
        log.warn(
            "file",
            "The file's text was not in the character set it declares; it was read as "
            "Windows-1252. Check that names with accents look right.",
            code="encoding",
        )
    if not events:
        log.problem(
            "USEBIO",
            "The file has no EVENT element, so it holds no results. Export the session's "
            "results from your scoring program again.",
            line=doc.line(root),
            code="no-event",
        )
        return [], meta
    sessions: list[SessionResult] = []
    multiple = len(events) > 1
    for index, event in events:
        path = child_path("", "EVENT", index) if multiple else "EVENT"
        sessions.extend(_EventReader(doc, event, path, club, version, log).read())
    return sessions, meta


def _program(event: ET.Element) -> str:
    parts = [text(event, "PROGRAM_NAME") or "", text(event, "PROGRAM_VERSION") or ""]
    return " ".join(p for p in parts if p)


# --------------------------------------------------------------------------------------------
# One EVENT


class _EventReader:
    def __init__(
        self,
        doc: XmlDocument,
        event: ET.Element,
        path: str,
        club: str,
        version: str,
        log: ProblemLog,
    ) -> None:
        self.doc = doc
        self.event = event
        self.path = path
        self.club = club
        self.version = version
        self.log = log
        self.header = self._read_header()

    def line(self, element: ET.Element | None) -> int | None:
        return self.doc.line(element)

    # ---- header ----------------------------------------------------------------------------

    def _read_header(self) -> _Header:
        ev = self.event
        name = text(ev, "EVENT_DESCRIPTION") or text(ev, "TITLE") or ""
        raw_id = text(ev, "EVENT_IDENTIFIER", "EVENT_ID") or ""
        program = _program(ev)
        date_text = text(ev, "DATE")
        return _Header(
            event_type=attr(ev, "EVENT_TYPE").upper(),
            board_scoring=(text(ev, "BOARD_SCORING_METHOD") or "").upper(),
            scoring_method=(text(ev, "SCORING_METHOD") or "").upper(),
            match_scoring=(text(ev, "MATCH_SCORING_METHOD") or "").upper(),
            name=name,
            event_id=raw_id or common.derived_event_id(name, text(ev, "PROGRAM_NAME") or ""),
            derived_id=not raw_id,
            program=program,
            date=common.parse_date(date_text),
            date_text=date_text,
            winner_type=text(ev, "WINNER_TYPE") or "",
            boards_played=common.parse_whole(text(ev, "BOARDS_PLAYED")),
            charge=text(ev, "P2P_CHARGE_RATE", "EBU_CHARGE_CODE") or "",
            scale=text(ev, "MASTER_POINT_SCALE", "EVENT_RATING") or "",
            points_type=text(ev, "MASTER_POINT_TYPE") or "",
            version=self.version,
            team_pairing=(text(ev, "TEAM_PAIRING_AVAILABLE") or "").upper(),
        )

    def _classify(self) -> tuple[str, Scoring] | None:
        """(kind, scoring) from EVENT_TYPE and the scoring methods (FORMATS 2.3)."""
        h = self.header
        et = h.event_type
        where = f"{self.path}@EVENT_TYPE"
        if et == "INDIVIDUAL":
            return "individual", Scoring.INDIVIDUAL
        if et in _TEAMS_EVENT_SCORING:
            if "PAB" in (h.board_scoring, h.match_scoring):
                return "teams", Scoring.POINT_A_BOARD
            return "teams", _TEAMS_EVENT_SCORING[et]
        if et in _SWISS_PAIRS_TYPES:
            imps = et != "SWISS_PAIRS" or h.board_scoring in _IMP_METHODS
            return "swiss", Scoring.SWISS_PAIRS_IMP if imps else Scoring.SWISS_PAIRS_MP
        if et == "PAIRS" or et in _PAIRS_EVENT_SCORING:
            return self._classify_pairs()
        shown = et or "(none)"
        self.log.problem(
            where,
            f'The event type "{shown}" is not one the product can read. It reads pairs '
            "(PAIRS, MP_PAIRS, BUTLER_PAIRS, CROSS_IMP, AGGREGATE), Swiss pairs, teams "
            "(TEAMS, SWISS_TEAMS) and individual events. Check that the file is a results "
            "file from your scoring program, or export the event again choosing one of those.",
            line=self.line(self.event),
            code="event-type",
        )
        return None

    def _classify_pairs(self) -> tuple[str, Scoring] | None:
        h = self.header
        method = h.board_scoring
        if method in _PAIRS_METHOD_SCORING:
            return "pairs", _PAIRS_METHOD_SCORING[method]
        named = _PAIRS_EVENT_SCORING.get(h.event_type)
        if method in ("IMPS", "IMP") and named in (Scoring.BUTLER, Scoring.CROSS_IMP):
            return "pairs", named  # FORMATS 2.3: the event type says which IMPs
        if method:
            if method in ("IMPS", "IMP"):
                detail = "by IMPs, without saying whether Butler or cross-IMPs"
            else:
                detail = f'by "{method}"'
            self.log.problem(
                f"{self.path}/BOARD_SCORING_METHOD",
                f"The pairs event was scored {detail}; the product grades match-pointed, "
                "Butler, cross-IMP and aggregate pairs. Export the event again with one of "
                "those scoring methods.",
                line=self.line(find(self.event, "BOARD_SCORING_METHOD")),
                code="scoring-method",
            )
            return None
        participant_types = {
            attr(p, "EVENT_TYPE").upper() for p in self.event.iter() if _is(p, "PARTICIPANTS")
        }
        for hint in sorted(participant_types):
            if hint in _PAIRS_EVENT_SCORING and hint != h.event_type and h.event_type == "PAIRS":
                return "pairs", _PAIRS_EVENT_SCORING[hint]
        if h.event_type == "PAIRS" and h.scoring_method in _IMP_METHODS:
            self.log.problem(
                f"{self.path}/SCORING_METHOD",
                "The pairs event was scored by IMPs, but the file does not say whether by "
                "Butler or cross-IMPs. Export it again with BOARD_SCORING_METHOD set.",
                line=self.line(find(self.event, "SCORING_METHOD")),
                code="scoring-method",
            )
            return None
        return "pairs", _PAIRS_EVENT_SCORING.get(h.event_type, Scoring.MP)

    # ---- sessions ----------------------------------------------------------------------------

    def read(self) -> list[SessionResult]:
        classified = self._classify()
        if self.header.date is None and (
            self.header.date_text is not None or not self._sessions_dated()
        ):
            self._date_problem(self.header.date_text, f"{self.path}/DATE", find(self.event, "DATE"))
        if classified is None:
            return []
        if self.header.derived_id:
            self.log.warn(
                f"{self.path}/EVENT_IDENTIFIER",
                "The file has no event identifier, so the event is identified by its name "
                f'("{self.header.name or self.header.program or "unnamed"}") and date: another '
                "upload with the same name and date will be treated as a correction of it.",
                line=self.line(self.event),
                code="derived-event-id",
            )
        kind, scoring = classified
        units = self._units()
        if not units:
            self.log.problem(
                self.path,
                "The event has no PARTICIPANTS, so it holds no results. Export the results "
                "again after the session has been scored.",
                line=self.line(self.event),
                code="no-participants",
            )
            return []
        sessions = []
        for unit in units:
            session = self._read_unit(unit, kind, scoring)
            if session is not None:
                sessions.append(session)
        return sessions

    def _date_problem(self, raw: str | None, path: str, element: ET.Element | None) -> None:
        shown = "missing" if raw is None else f'"{raw}"'
        self.log.problem(
            path,
            f"The date of play is {shown}; it must be a real date written DD/MM/YYYY (or "
            "YYYY-MM-DD). Set the session date in your scoring program and export again.",
            line=self.line(element) or self.line(self.event),
            code="date",
        )

    def _sessions_dated(self) -> bool:
        """Whether the file dates its SESSIONs (a DATE inside a SESSION overrides the
        event's, docs/decisions.md): then the EVENT's DATE may be left out."""
        return any(
            find(session, "DATE") is not None for _, session in children(self.event, "SESSION")
        )

    def _units(self) -> list[_Unit]:
        sessions = list(children(self.event, "SESSION"))
        if not sessions:
            if find(self.event, "PARTICIPANTS") is None:
                return []
            return [
                _Unit(1, self.path, self.event, self.header.date, [("", self.path, self.event)])
            ]
        if find(self.event, "PARTICIPANTS") is not None:
            self.log.warn(
                f"{self.path}/PARTICIPANTS",
                "The file has results both directly under EVENT and inside SESSION elements; "
                "only the SESSION results were read.",
                line=self.line(find(self.event, "PARTICIPANTS")),
                code="mixed-nesting",
            )
        units: list[_Unit] = []
        seen: dict[int, str] = {}
        for index, session in sessions:
            path = child_path(self.path, "SESSION", index)
            number = common.parse_whole(attr(session, "SESSION_ID")) or index
            if number in seen:
                self.log.problem(
                    path,
                    f"Session {number} appears twice in the file (also at {seen[number]}). "
                    "Each SESSION needs its own SESSION_ID; export the event again.",
                    line=self.line(session),
                    code="duplicate-session",
                )
                continue
            seen[number] = path
            date = self.header.date
            date_text = text(session, "DATE")
            if date_text is not None:
                date = common.parse_date(date_text)
                if date is None:
                    self._date_problem(date_text, f"{path}/DATE", find(session, "DATE"))
            elif self.header.date_text is None and self._sessions_dated():
                self._date_problem(None, f"{path}/DATE", session)  # dated sessions but this one
            sections = [
                (attr(sec, "SECTION_ID") or str(i), child_path(path, "SECTION", i), sec)
                for i, sec in children(session, "SECTION")
            ]
            if find(session, "PARTICIPANTS") is not None:
                sections.insert(0, ("", path, session))
            if not sections:
                self.log.problem(
                    path,
                    f"Session {number} has no results (no PARTICIPANTS or SECTION). Export "
                    "the event again after every session has been scored.",
                    line=self.line(session),
                    code="empty-session",
                )
                continue
            units.append(_Unit(number, path, session, date, sections))
        return units

    def _read_unit(self, unit: _Unit, kind: str, scoring: Scoring) -> SessionResult | None:
        if unit.date is None:
            return None
        reader = {
            "pairs": self._pairs_session,
            "teams": self._teams_session,
            "swiss": self._swiss_pairs_session,
            "individual": self._individual_session,
        }[kind]
        return reader(unit, scoring)

    def _session(
        self,
        unit: _Unit,
        scoring: Scoring,
        movement: Movement,
        pairs: list[PairEntry],
        *,
        boards: int | None = None,
        travellers: tuple[TravellerLine, ...] = (),
        matches: tuple[SwissMatch, ...] = (),
        reason: str = "",
    ) -> SessionResult:
        h = self.header
        reason = reason or common.charge_code_reason(h.charge)
        assert unit.date is not None
        extra = [
            ("usebio_version", h.version),
            ("event_type", h.event_type),
            ("board_scoring_method", h.board_scoring),
            ("charge_code", h.charge),
            ("winner_type", h.winner_type),
            ("master_point_scale", h.scale),
            ("master_point_type", h.points_type),
        ]
        return SessionResult(
            key=SessionKey(self.club, h.event_id, unit.number, unit.date),
            event_name=h.name,
            scoring=scoring,
            movement=movement,
            pairs=tuple(pairs),
            weighting=common.suggested_weighting(h.scale, h.points_type, h.charge),
            boards=boards,
            travellers=travellers,
            matches=matches,
            graded_flag=not reason,
            not_graded_reason=reason,
            source=h.program,
            extra=tuple((k, v) for k, v in extra if v),
        )

    # ---- players and pairs -----------------------------------------------------------------------

    def _player(self, element: ET.Element, path: str) -> Player:
        name = text(element, "PLAYER_NAME") or ""
        raw = text(element, "NATIONAL_ID_NUMBER")
        number = normalise_number(raw)
        if number is not None and not number.isdigit():
            self.log.warn(
                f"{path}/NATIONAL_ID_NUMBER",
                f'{name or "A player"}\'s membership number "{raw}" is not a number, so the '
                "player is treated as unknown. Correct it in your scoring program's player "
                "list if the player is a member.",
                line=self.line(find(element, "NATIONAL_ID_NUMBER")),
                code="bad-number",
            )
            number = None
        rateable = attr(element, "RATEABLE").upper() != "N"
        return Player(number=number, name=name, rateable=rateable)

    def _raw_pair(self, element: ET.Element, path: str, section: str, team: str = "") -> _RawPair:
        number = text(element, "PAIR_NUMBER") or ""
        players = tuple(
            self._player(p, child_path(path, "PLAYER", i)) for i, p in children(element, "PLAYER")
        )
        return _RawPair(
            number=number,
            section=section,
            direction=_direction(text(element, "DIRECTION"), number),
            players=players,
            path=path,
            line=self.line(element),
            percentage=text(element, "PERCENTAGE"),
            total=text(element, "TOTAL_SCORE"),
            pair_imps=text(element, "PAIR_IMPS"),
            boards_played=text(element, "BOARDS_PLAYED"),
            team=team,
        )

    def _keep_pair(self, raw: _RawPair, what: str = "Pair") -> bool:
        """False for sit-outs and phantoms (noted) and for pairs that cannot be read (problem)."""
        label = _pair_label(raw, what)
        if common.is_phantom_pair(raw.players):
            self.log.warn(
                raw.path,
                f"{label} is a sit-out or phantom pair; it is left out of grading and its "
                "opponents' boards against it are not counted.",
                line=raw.line,
                code="phantom",
            )
            return False
        if not raw.number:
            self.log.problem(
                f"{raw.path}/PAIR_NUMBER",
                f"{label} has no pair number, so its results cannot be matched to the "
                "travellers. Export the results again from your scoring program.",
                line=raw.line,
                code="pair-number",
            )
            return False
        if len(raw.players) != 2:
            self.log.problem(
                raw.path,
                f"{label} lists {len(raw.players)} players; a pair needs exactly two. Correct "
                "the pair in your scoring program and export again.",
                line=raw.line,
                code="pair-players",
            )
            return False
        return True

    def _assign_pair_ids(self, raws: list[_RawPair]) -> bool:
        """Unique ids within the session (FORMATS 5.2). False (with a problem) on true
        duplicates."""
        ids = common.unique_pair_ids(raws)
        if ids is not None:
            for raw, pair_id in zip(raws, ids, strict=True):
                raw.pair_id = pair_id
            return True
        counts = Counter(common.pair_in_full(r) for r in raws)
        for raw in raws:
            if counts[common.pair_in_full(raw)] > 1:
                self.log.problem(
                    f"{raw.path}/PAIR_NUMBER",
                    f"{_pair_label(raw)} appears more than once in the session. Each pair "
                    "needs its own number; correct the movement in your scoring program and "
                    "export again.",
                    line=raw.line,
                    code="duplicate-pair",
                )
        return False

    # ---- travellers -----------------------------------------------------------------------

    def _read_lines(
        self,
        containers: list[tuple[str, str, ET.Element]],
        lookup: dict[tuple[str, str], list[_RawPair]],
        dropped: _Dropped,
        points: tuple[str, str] | None,
    ) -> _Lines:
        """Every TRAVELLER_LINE under the containers' BOARDs (and MATCH/BOARDs for teams)."""
        result = _Lines()
        for section, path, container in containers:
            for board_el, board_path in _boards(container, path):
                board = common.parse_whole(text(board_el, "BOARD_NUMBER"))
                if board is None or board <= 0:
                    result.skipped["board number missing or not a number"].append(
                        _where(board_path, self.line(board_el))
                    )
                    continue
                for i, line_el in children(board_el, "TRAVELLER_LINE"):
                    line_path = child_path(board_path, "TRAVELLER_LINE", i)
                    self._read_line(
                        line_el, line_path, section, board, lookup, dropped, points, result
                    )
        return result

    def _read_line(
        self,
        element: ET.Element,
        path: str,
        section: str,
        board: int,
        lookup: dict[tuple[str, str], list[_RawPair]],
        dropped: _Dropped,
        points: tuple[str, str] | None,
        result: _Lines,
    ) -> None:
        where = _where(path, self.line(element))
        ns_num = text(element, "NS_PAIR_NUMBER") or ""
        ew_num = text(element, "EW_PAIR_NUMBER") or ""
        if dropped.against(section, ns_num, ew_num, lookup):
            return  # against a sit-out or phantom: not a comparison
        ns = common.pair_of_line(lookup, section, ns_num, Direction.NS)
        ew = common.pair_of_line(lookup, section, ew_num, Direction.EW)
        if ns is None or ew is None:
            result.skipped["pair number not among the participants"].append(where)
            return
        score_text = text(element, "SCORE") or ""
        contract = text(element, "CONTRACT") or ""
        ns_score: int | None = None
        adjusted: tuple[str, str] | None = None
        if common.looks_adjusted(score_text):
            adjusted = common.parse_adjusted_code(score_text)
            if adjusted is None:
                result.skipped[f'unknown adjusted score "{score_text[:12]}"'].append(where)
                return
        else:
            ns_score = common.parse_whole(score_text)
            if ns_score is None and contract.upper() in ("PASS", "P", "ALL PASS"):
                ns_score = 0
            if ns_score is None or not common.plausible_table_score(ns_score):
                result.skipped["score missing or not a possible bridge score"].append(where)
                return
        line = TravellerLine(
            board=board,
            ns_pair=ns.pair_id,
            ew_pair=ew.pair_id,
            ns_score=ns_score,
            ns_adjusted=adjusted[0] if adjusted else None,
            ew_adjusted=adjusted[1] if adjusted else None,
            contract=contract,
            declarer=text(element, "PLAYED_BY") or "",
            lead=text(element, "LEAD") or "",
            tricks=common.parse_whole(text(element, "TRICKS")),
        )
        result.lines.append(line)
        result.board_numbers.add(board)
        result.tables_by_board[board] += 1
        for pair, side in ((ns, Direction.NS), (ew, Direction.EW)):
            result.boards_by_pair[pair.pair_id].add(board)
            result.sides_by_pair[pair.pair_id].add(side)
        if points is not None:
            for pair, tag in ((ns, points[0]), (ew, points[1])):
                value = common.parse_decimal(text(element, tag))
                if value is not None:
                    result.points_by_pair[pair.pair_id] += value

    def _report_skipped(self, lines: _Lines) -> None:
        for reason, places in lines.skipped.items():
            shown = "; ".join(places[:5]) + (
                f"; and {len(places) - 5} more" if len(places) > 5 else ""
            )
            self.log.warn(
                places[0].split(" (line")[0],
                f"{len(places)} traveller line(s) were left out of the travellers ({reason}): "
                f"{shown}. Pair totals come from the file, so grading is not affected.",
                code="traveller-line",
            )

    def _travellers_complete(self, lines: _Lines, path: str) -> bool:
        """Travellers count boards only if they cover the boards the file says were played."""
        if not lines.lines:
            return False
        expected = self.header.boards_played
        if expected is not None and len(lines.board_numbers) < expected:
            self.log.warn(
                path,
                f"The file has travellers for {len(lines.board_numbers)} boards but says "
                f"{expected} boards were played, so the travellers look incomplete: they are "
                "not used, and boards per pair are recorded as not reported (24 assumed, S3.7).",
                code="travellers-incomplete",
            )
            return False
        return True

    # ---- pairs events ---------------------------------------------------------------------------

    def _identified_pairs(self, unit: _Unit):
        """The unit's pairs with their ids, the pairs dropped, and the id lookup; None (with
        the problem logged) when there are no pairs or their ids cannot be assigned."""
        raws, dropped = self._collect_pairs(unit)
        if not raws:
            self._no_pairs(unit)
            return None
        if not self._assign_pair_ids(raws):
            return None
        return raws, dropped, common.pairs_by_number(raws)

    def _pairs_session(self, unit: _Unit, scoring: Scoring) -> SessionResult | None:
        problems_before = len(self.log.problems)
        pairs = self._identified_pairs(unit)
        if pairs is None:
            return None
        raws, dropped, lookup = pairs
        lines = self._read_lines(unit.sections, lookup, dropped, _LINE_POINTS.get(scoring))
        self._report_skipped(lines)
        complete = self._travellers_complete(lines, unit.path)
        movement = self._movement(raws, lines)
        reason = common.charge_code_reason(self.header.charge)
        entries = []
        locations = {}
        full = max((len(b) for b in lines.boards_by_pair.values()), default=0)
        for raw in raws:
            entry = self._pair_entry(raw, scoring, movement, lines, complete, full, bool(reason))
            if entry is not None:
                entries.append(entry)
                locations[entry.pair_id] = raw.path
        if len(self.log.problems) > problems_before:
            return None
        entries = common.apply_first_host_rule(entries, locations, self.log)
        return self._session(
            unit,
            scoring,
            movement,
            entries,
            boards=len(lines.board_numbers) if complete else None,
            travellers=tuple(lines.lines) if complete else (),
        )

    def _collect_pairs(self, unit: _Unit) -> tuple[list[_RawPair], _Dropped]:
        raws: list[_RawPair] = []
        dropped = _Dropped()
        for section, path, container in unit.sections:
            for p_index, participants in children(container, "PARTICIPANTS"):
                p_path = child_path(path, "PARTICIPANTS", p_index)
                for i, pair_el in children(participants, "PAIR"):
                    raw = self._raw_pair(pair_el, child_path(p_path, "PAIR", i), section)
                    if self._keep_pair(raw):
                        raws.append(raw)
                    else:
                        dropped.add(section, raw)
        return raws, dropped

    def _no_pairs(self, unit: _Unit) -> None:
        self.log.problem(
            unit.path,
            f"Session {unit.number} has no pairs with results. Export the results again "
            "after the session has been scored.",
            line=self.line(unit.element),
            code="no-pairs",
        )

    def _movement(self, raws: list[_RawPair], lines: _Lines) -> Movement:
        winner = self.header.winner_type
        if winner == "1":
            return Movement.ONE_WINNER
        if winner == "2":
            return Movement.TWO_WINNER
        directions = {_pair_direction(r, lines) for r in raws}
        if None not in directions and len(directions) == 2:
            return Movement.TWO_WINNER
        return Movement.ONE_WINNER

    def _pair_entry(
        self,
        raw: _RawPair,
        scoring: Scoring,
        movement: Movement,
        lines: _Lines,
        complete: bool,
        full_boards: int,
        not_graded: bool,
    ) -> PairEntry | None:
        label = _pair_label(raw)
        direction = None
        if movement is Movement.TWO_WINNER:
            direction = _pair_direction(raw, lines)
            if direction is None and not not_graded:
                self.log.problem(
                    f"{raw.path}/DIRECTION",
                    f"{label} has no direction (NS or EW), which a two-winner movement needs. "
                    "Export the results again from your scoring program.",
                    line=raw.line,
                    code="direction",
                )
                return None
        boards = self._pair_boards(raw, lines, complete)
        if boards == 0:
            self.log.warn(
                raw.path,
                f"{label} played no boards; it is left out as a sit-out.",
                line=raw.line,
                code="phantom",
            )
            return None
        score = self._pair_score(raw, scoring, lines, complete, full_boards, boards, not_graded)
        if score is _FAILED:
            return None
        assert not isinstance(score, _Failed)
        return PairEntry(
            pair_id=raw.pair_id,
            players=(raw.players[0], raw.players[1]),
            score=score,
            direction=direction,
            boards=boards,
            section=raw.section,
            team=raw.team,
        )

    def _pair_boards(self, raw: _RawPair, lines: _Lines, complete: bool) -> int | None:
        if raw.boards_played:
            value = common.parse_whole(raw.boards_played)
            if value is not None and value >= 0:
                return value
            self.log.warn(
                f"{raw.path}/BOARDS_PLAYED",
                f'{_pair_label(raw)}\'s boards played "{raw.boards_played}" is not a number; '
                "it is counted from the travellers instead, or taken as not reported.",
                line=raw.line,
                code="boards",
            )
        if complete:
            return len(lines.boards_by_pair.get(raw.pair_id, ()))
        return None

    def _pair_score(
        self,
        raw: _RawPair,
        scoring: Scoring,
        lines: _Lines,
        complete: bool,
        full_boards: int,
        boards: int | None,
        not_graded: bool,
    ) -> float | None | _Failed:
        label = _pair_label(raw)
        if scoring is Scoring.MP:
            tag, written = "PERCENTAGE", raw.percentage
        else:
            tag, written = "TOTAL_SCORE", raw.total
        value = common.parse_decimal(written)
        if value is None:
            if scoring is not Scoring.MP and complete and raw.pair_id in lines.points_by_pair:
                total = round(lines.points_by_pair[raw.pair_id], 2)
                self.log.warn(
                    f"{raw.path}/{tag}",
                    f"{label} has no total in the file; the sum of its traveller lines, "
                    f"{total}, is used.",
                    line=raw.line,
                    code="score-from-travellers",
                )
                return total
            if not_graded:
                return None
            shown = "no score" if not written else f'the score "{written}", which is not a number'
            self.log.problem(
                f"{raw.path}/{tag}",
                f"{label} has {shown} ({raw.path}/{tag}). Re-export the results from your "
                "scoring program after the session is complete.",
                line=raw.line,
                code="score",
            )
            return _FAILED
        if scoring is Scoring.MP and not 0 <= value <= 100:
            self.log.problem(
                f"{raw.path}/{tag}",
                f"{label}'s percentage {written} is not between 0 and 100. Re-export the "
                "results from your scoring program.",
                line=raw.line,
                code="score",
            )
            return _FAILED
        if scoring in (Scoring.BUTLER, Scoring.CROSS_IMP) and complete and boards:
            return self._unfactored(raw, value, lines, full_boards, boards)
        return value

    def _unfactored(
        self, raw: _RawPair, total: float, lines: _Lines, full_boards: int, boards: int
    ) -> float:
        """FORMATS 5.6: some programs scale an IMP total up to the full number of boards. The
        NGS divides by the boards actually played (S3.3), so scale such a total back down."""
        summed = lines.points_by_pair.get(raw.pair_id)
        if summed is None or boards >= full_boards:
            return total
        factored = summed * full_boards / boards
        if abs(total - factored) >= abs(total - summed):
            return total
        used = round(total * boards / full_boards, 2)
        self.log.warn(
            f"{raw.path}/TOTAL_SCORE",
            f"{_pair_label(raw)}'s total of {total:g} IMPs is scaled up to {full_boards} "
            f"boards, but the pair played {boards}; {used:g} IMPs over {boards} boards is used.",
            line=raw.line,
            code="factored-total",
        )
        return used

    # ---- individual events ------------------------------------------------------------------

    def _individual_session(self, unit: _Unit, scoring: Scoring) -> SessionResult | None:
        return self._session(unit, scoring, Movement.ONE_WINNER, [], reason=REASON_INDIVIDUAL)

    # ---- teams events -----------------------------------------------------------------------------

    def _teams_session(self, unit: _Unit, scoring: Scoring) -> SessionResult | None:
        problems_before = len(self.log.problems)
        raws, dropped, team_names, bare_players = self._collect_team_pairs(unit)
        reason = self._teams_reason(scoring, bare_players, raws)
        if not raws:
            if reason:
                return self._session(unit, scoring, Movement.TWO_WINNER, [], reason=reason)
            self._no_pairs(unit)
            return None
        if not self._assign_pair_ids(raws):
            return None
        lookup = common.pairs_by_number(raws)
        lines = self._read_lines(unit.sections, lookup, dropped, _TEAM_LINE_POINTS)
        self._report_skipped(lines)
        complete = bool(lines.lines)
        if (
            not reason
            and scoring is not Scoring.SWISS_TEAMS
            and (len(team_names) == 2 or (complete and max(lines.tables_by_board.values()) <= 2))
        ):
            scoring, reason = Scoring.HEAD_TO_HEAD, REASON_HEAD_TO_HEAD
        reason = reason or common.charge_code_reason(self.header.charge)
        directions = {r.pair_id: _pair_direction(r, lines) for r in raws}
        two_winner = None not in directions.values()
        entries, locations = [], {}
        for raw in raws:
            entry = self._team_pair_entry(raw, lines, complete, bool(reason))
            if entry is not None:
                entry = replace(entry, direction=directions[raw.pair_id] if two_winner else None)
                entries.append(entry)
                locations[entry.pair_id] = raw.path
        if len(self.log.problems) > problems_before:
            return None
        entries = common.apply_first_host_rule(entries, locations, self.log)
        matches = self._team_matches(unit, lookup, dropped) if complete else ()
        return self._session(
            unit,
            scoring,
            Movement.TWO_WINNER if two_winner else Movement.ONE_WINNER,
            entries,
            boards=len(lines.board_numbers) if complete else None,
            travellers=tuple(lines.lines),
            matches=matches,
            reason=reason,
        )

    def _teams_reason(self, scoring: Scoring, bare_players: bool, raws: list[_RawPair]) -> str:
        if scoring is Scoring.POINT_A_BOARD:
            return REASON_PAB
        if scoring is Scoring.HEAD_TO_HEAD:
            return REASON_HEAD_TO_HEAD
        if self.header.version == "1.0":
            return REASON_TEAMS_V10
        if bare_players and not raws:
            return REASON_NO_LINEUPS
        return ""

    def _collect_team_pairs(self, unit: _Unit) -> tuple[list[_RawPair], _Dropped, set[str], bool]:
        raws: list[_RawPair] = []
        dropped = _Dropped()
        teams: set[str] = set()
        bare_players = False
        for section, path, container in unit.sections:
            for p_index, participants in children(container, "PARTICIPANTS"):
                p_path = child_path(path, "PARTICIPANTS", p_index)
                for t_index, team in children(participants, "TEAM"):
                    t_path = child_path(p_path, "TEAM", t_index)
                    team_id = attr(team, "TEAM_ID") or text(team, "TEAM_ID") or str(t_index)
                    team_name = attr(team, "TEAM_NAME") or text(team, "TEAM_NAME") or team_id
                    teams.add(team_id)
                    if find(team, "PAIR") is None and find(team, "PLAYER") is not None:
                        bare_players = True
                    for i, pair_el in children(team, "PAIR"):
                        raw = self._raw_pair(
                            pair_el, child_path(t_path, "PAIR", i), section, team_name
                        )
                        if self._keep_pair(raw, "Team pair"):
                            raws.append(raw)
                        else:
                            dropped.add(section, raw)
        return raws, dropped, teams, bare_players

    def _team_pair_entry(
        self, raw: _RawPair, lines: _Lines, complete: bool, not_graded: bool
    ) -> PairEntry | None:
        label = _pair_label(raw, "Team pair")
        boards = self._pair_boards(raw, lines, complete)
        score = common.parse_decimal(raw.pair_imps)
        if score is None and complete and raw.pair_id in lines.points_by_pair:
            score = round(lines.points_by_pair[raw.pair_id], 2)
            self.log.warn(
                f"{raw.path}/PAIR_IMPS",
                f"{label} has no PAIR_IMPS; its cross-IMPs were added up from the travellers "
                f"({score:g}) as S3.6 allows.",
                line=raw.line,
                code="score-from-travellers",
            )
        if score is None and not not_graded:
            self.log.problem(
                f"{raw.path}/PAIR_IMPS",
                f"{label} has no cross-IMP score (PAIR_IMPS) and the file has no travellers to "
                "work it out from. Export the teams results with pair line-ups and cross-IMPs "
                "per pair (PAIRWISE_SCORING_METHOD CROSS_IMPS).",
                line=raw.line,
                code="score",
            )
            return None
        return PairEntry(
            pair_id=raw.pair_id,
            players=(raw.players[0], raw.players[1]),
            score=score,
            boards=boards,
            section=raw.section,
            team=raw.team,
        )

    def _team_matches(
        self,
        unit: _Unit,
        lookup: dict[tuple[str, str], list[_RawPair]],
        dropped: _Dropped,
    ) -> tuple[SwissMatch, ...]:
        """Per pair and match: the pairs met at the table, boards and cross-IMPs (S3.2)."""
        found: list[SwissMatch] = []
        for section, path, container in unit.sections:
            for m_index, match in children(container, "MATCH"):
                m_path = child_path(path, "MATCH", m_index)
                round_no = common.parse_whole(text(match, "ROUND_NUMBER")) or m_index
                lines = self._read_lines(
                    [(section, m_path, match)], lookup, dropped, _TEAM_LINE_POINTS
                )
                for pair_id, board_set in sorted(lines.boards_by_pair.items()):
                    opponents = sorted(
                        {ln.ew_pair for ln in lines.lines if ln.ns_pair == pair_id}
                        | {ln.ns_pair for ln in lines.lines if ln.ew_pair == pair_id}
                    )
                    found.append(
                        SwissMatch(
                            pair_id=pair_id,
                            round=round_no,
                            opponents=tuple(opponents),
                            boards=len(board_set),
                            score=round(lines.points_by_pair.get(pair_id, 0.0), 2),
                        )
                    )
        return tuple(found)

    # ---- Swiss pairs -------------------------------------------------------------------------

    def _swiss_pairs_session(self, unit: _Unit, scoring: Scoring) -> SessionResult | None:
        """Swiss pairs (FORMATS 2.7, inferred: no real sample). Each MATCH names its NS and EW
        pairs and their NS_SCORE/EW_SCORE before VPs; a pair's score is the sum of its match
        IMPs (IMP Swiss) or the board-weighted mean of its match percentages (MP Swiss)."""
        problems_before = len(self.log.problems)
        pairs = self._identified_pairs(unit)
        if pairs is None:
            return None
        raws, dropped, lookup = pairs
        matches = self._swiss_matches(unit, lookup, dropped)
        lines = self._read_lines(unit.sections, lookup, dropped, None)
        self._report_skipped(lines)
        by_pair: dict[str, list[SwissMatch]] = defaultdict(list)
        for match in matches:
            by_pair[match.pair_id].append(match)
        entries, locations = [], {}
        for raw in raws:
            played = by_pair.get(raw.pair_id, [])
            if not played:
                self.log.problem(
                    raw.path,
                    f"{_pair_label(raw)} appears in no MATCH, so its Swiss results are missing. "
                    "Export the event again after every round has been scored.",
                    line=raw.line,
                    code="swiss-matches",
                )
                continue
            boards = sum(m.boards for m in played)
            score: float | None
            if scoring is Scoring.SWISS_PAIRS_IMP:
                score = round(sum(m.score for m in played), 2)
            else:
                score = (
                    round(sum(m.score * m.boards for m in played) / boards, 2) if boards else None
                )
            entries.append(
                PairEntry(
                    pair_id=raw.pair_id,
                    players=(raw.players[0], raw.players[1]),
                    score=score,
                    boards=boards or None,
                    section=raw.section,
                )
            )
            locations[raw.pair_id] = raw.path
        if len(self.log.problems) > problems_before:
            return None
        entries = common.apply_first_host_rule(entries, locations, self.log)
        return self._session(
            unit,
            scoring,
            Movement.ONE_WINNER,
            entries,
            travellers=tuple(lines.lines),
            matches=tuple(matches),
        )

    def _swiss_matches(
        self,
        unit: _Unit,
        lookup: dict[tuple[str, str], list[_RawPair]],
        dropped: _Dropped,
    ) -> list[SwissMatch]:
        found: list[SwissMatch] = []
        for section, path, container in unit.sections:
            for m_index, match in children(container, "MATCH"):
                m_path = child_path(path, "MATCH", m_index)
                ns_num = text(match, "NS_PAIR_NUMBER") or ""
                ew_num = text(match, "EW_PAIR_NUMBER") or ""
                if dropped.against(section, ns_num, ew_num, lookup):
                    continue
                ns = common.pair_of_line(lookup, section, ns_num, Direction.NS)
                ew = common.pair_of_line(lookup, section, ew_num, Direction.EW)
                ns_score = common.parse_decimal(text(match, "NS_SCORE"))
                ew_score = common.parse_decimal(text(match, "EW_SCORE"))
                boards = _match_boards(match)
                if ns is None or ew is None or ns_score is None or ew_score is None or not boards:
                    self.log.problem(
                        m_path,
                        "This match does not name two known pairs with their scores and "
                        "boards (NS_PAIR_NUMBER, EW_PAIR_NUMBER, NS_SCORE, EW_SCORE, BOARD). "
                        "Export the event again from your scoring program.",
                        line=self.line(match),
                        code="swiss-match",
                    )
                    continue
                round_no = common.parse_whole(text(match, "ROUND_NUMBER")) or m_index
                found.append(SwissMatch(ns.pair_id, round_no, (ew.pair_id,), boards, ns_score))
                found.append(SwissMatch(ew.pair_id, round_no, (ns.pair_id,), boards, ew_score))
        return found


# --------------------------------------------------------------------------------------------
# Helpers


class _Failed:
    pass


_FAILED = _Failed()


def _is(element: ET.Element, tag: str) -> bool:
    return isinstance(element.tag, str) and element.tag.upper() == tag


def _where(path: str, line: int | None) -> str:
    return f"{path} (line {line})" if line else path


def _direction(written: str | None, number: str) -> Direction | None:
    value = (written or "").strip().upper().replace("-", "").replace("/", "")
    if value in ("NS", "EW"):
        return Direction(value)
    upper = number.upper()
    if upper.endswith("NS"):
        return Direction.NS
    if upper.endswith("EW"):
        return Direction.EW
    return None


def _pair_direction(raw: _RawPair, lines: _Lines) -> Direction | None:
    if raw.direction is not None:
        return raw.direction
    sides = lines.sides_by_pair.get(raw.pair_id, set())
    return next(iter(sides)) if len(sides) == 1 else None


def _pair_label(raw: _RawPair, what: str = "Pair") -> str:
    shown = raw.number or "(no number)"
    return f"{what} {shown}" + (f" in section {raw.section}" if raw.section else "")


def _boards(container: ET.Element, path: str) -> list[tuple[ET.Element, str]]:
    """BOARDs of a section or session, and those inside its MATCHes (teams)."""
    found = [(b, child_path(path, "BOARD", i)) for i, b in children(container, "BOARD")]
    for m_index, match in children(container, "MATCH"):
        m_path = child_path(path, "MATCH", m_index)
        found.extend((b, child_path(m_path, "BOARD", i)) for i, b in children(match, "BOARD"))
    return found


def _match_boards(match: ET.Element) -> int:
    listed = sum(1 for _ in children(match, "BOARD"))
    if listed:
        return listed
    start = common.parse_whole(text(match, "START_BOARD_NUMBER"))
    end = common.parse_whole(text(match, "END_BOARD_NUMBER"))
    if start is not None and end is not None and end >= start:
        return end - start + 1
    return 0
