"""The EVENT header and the tree under it: event type and scoring (FORMATS 2.3), dates, and
where the sessions and sections are (FORMATS 2.2)."""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET
from collections.abc import Iterator

from grading.engine.types import (
    Scoring,
)
from grading.ingest import common, limits
from grading.ingest.usebio.shapes import (
    IMP_METHODS,
    PAIRS_EVENT_SCORING,
    PAIRS_METHOD_SCORING,
    SWISS_PAIRS_TYPES,
    TEAMS_EVENT_SCORING,
    Header,
    Unit,
    is_tag,
    program_of,
)
from grading.ingest.xmltext import attr, child_path, children, find, text


class TreeMixin:
    """The header and the tree, for :class:`~grading.ingest.usebio.reader.EventReader`, which
    provides ``log``, ``header``, ``path``, ``event`` and ``line()``."""

    def _read_header(self) -> Header:
        ev = self.event
        name = text(ev, "EVENT_DESCRIPTION") or text(ev, "TITLE") or ""
        raw_id = text(ev, "EVENT_IDENTIFIER", "EVENT_ID") or ""
        program = program_of(ev)
        date_text = text(ev, "DATE")
        return Header(
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
        held = self._participants_hold()
        if et == "INDIVIDUAL" or held == "individual":
            return "individual", Scoring.INDIVIDUAL
        if held == "teams" and et not in TEAMS_EVENT_SCORING and et not in SWISS_PAIRS_TYPES:
            et = "TEAMS"  # teams under a pairs event type: read as the teams they are
        if et in TEAMS_EVENT_SCORING:
            if "PAB" in (h.board_scoring, h.match_scoring):
                return "teams", Scoring.POINT_A_BOARD
            return "teams", TEAMS_EVENT_SCORING[et]
        if et in SWISS_PAIRS_TYPES:
            imps = et != "SWISS_PAIRS" or h.board_scoring in IMP_METHODS
            return "swiss", Scoring.SWISS_PAIRS_IMP if imps else Scoring.SWISS_PAIRS_MP
        if et == "PAIRS" or et in PAIRS_EVENT_SCORING:
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

    def _swiss_cross_imps(self) -> bool:
        """Whether a Swiss pairs event names cross-IMPs (S14.23): BOARD_SCORING_METHOD when it
        names a kind of IMPs, else the event type (SWISS_PAIRS_CROSS_IMPS)."""
        h = self.header
        if h.board_scoring in ("CROSS_IMPS", "CROSS_IMP"):
            return True
        if h.board_scoring in ("BUTLER_IMPS", "BUTLER"):
            return False
        return h.event_type == "SWISS_PAIRS_CROSS_IMPS"

    def _participants_hold(self) -> str:
        """What the PARTICIPANTS hold, whatever the event type says: "individual" (players
        with no pairs, or PARTICIPANTS@EVENT_TYPE INDIVIDUAL), "teams" (teams, no bare pairs),
        or "" (pairs, or nothing to tell)."""
        participants = [p for p in self.event.iter() if is_tag(p, "PARTICIPANTS")]
        if any(attr(p, "EVENT_TYPE").upper() == "INDIVIDUAL" for p in participants):
            return "individual"
        tags = {c.tag.upper() for p in participants for c in p if isinstance(c.tag, str)}
        if "PAIR" in tags:
            return ""
        if "TEAM" in tags:
            return "teams"
        return "individual" if "PLAYER" in tags else ""

    def _classify_pairs(self) -> tuple[str, Scoring] | None:
        h = self.header
        method = h.board_scoring
        if method in PAIRS_METHOD_SCORING:
            return "pairs", PAIRS_METHOD_SCORING[method]
        named = PAIRS_EVENT_SCORING.get(h.event_type)
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
            attr(p, "EVENT_TYPE").upper() for p in self.event.iter() if is_tag(p, "PARTICIPANTS")
        }
        for hint in sorted(participant_types):
            if hint in PAIRS_EVENT_SCORING and hint != h.event_type and h.event_type == "PAIRS":
                return "pairs", PAIRS_EVENT_SCORING[hint]
        if h.event_type == "PAIRS" and h.scoring_method in IMP_METHODS:
            self.log.problem(
                f"{self.path}/SCORING_METHOD",
                "The pairs event was scored by IMPs, but the file does not say whether by "
                "Butler or cross-IMPs. Export it again with BOARD_SCORING_METHOD set.",
                line=self.line(find(self.event, "SCORING_METHOD")),
                code="scoring-method",
            )
            return None
        return "pairs", PAIRS_EVENT_SCORING.get(h.event_type, Scoring.MP)

    def _date_problem(self, raw: str | None, path: str, element: ET.Element | None) -> None:
        shown = "missing" if raw is None else f'"{raw}"'
        self.log.problem(
            path,
            f"The date of play is {shown}; it must be a real date written DD/MM/YYYY (or "
            "YYYY-MM-DD). Set the session date in your scoring program and export again.",
            line=self.line(element) or self.line(self.event),
            code="date",
        )

    def _date_limit(self, date: dt.date | None, path: str, element: ET.Element | None) -> None:
        """A date before the earliest date of play accepted (issue 21)."""
        too_early = limits.date_problem(date, self.earliest) if date else None
        if too_early:
            self.log.problem(
                path,
                too_early,
                line=self.line(element) or self.line(self.event),
                code="date-too-early",
            )

    def _sessions_dated(self) -> bool:
        """Whether the file dates its SESSIONs (a DATE inside a SESSION overrides the
        event's, docs/decisions.md): then the EVENT's DATE may be left out."""
        return any(
            find(session, "DATE") is not None for _, session in children(self.event, "SESSION")
        )

    def _event_sections(self) -> list[tuple[str, str, ET.Element]]:
        """An event without SESSIONs is one session: its own PARTICIPANTS, its SECTIONs, or
        failing both whatever holds PARTICIPANTS deeper down (FORMATS 2.2: at any depth)."""
        sections = [
            (attr(sec, "SECTION_ID") or str(i), child_path(self.path, "SECTION", i), sec)
            for i, sec in children(self.event, "SECTION")
            if find(sec, "PARTICIPANTS") is not None
        ]
        if find(self.event, "PARTICIPANTS") is not None:
            sections.insert(0, ("", self.path, self.event))
        return sections or list(_holders(self.event, self.path, _MAX_DEPTH))

    def _units(self) -> list[Unit]:
        sessions = list(children(self.event, "SESSION"))
        if not sessions:
            sections = self._event_sections()
            if not sections:
                return []
            return [Unit(1, self.path, self.event, self.header.date, sections)]
        if find(self.event, "PARTICIPANTS") is not None:
            self.log.warn(
                f"{self.path}/PARTICIPANTS",
                "The file has results both directly under EVENT and inside SESSION elements; "
                "only the SESSION results were read.",
                line=self.line(find(self.event, "PARTICIPANTS")),
                code="mixed-nesting",
            )
        units: list[Unit] = []
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
                self._date_limit(date, f"{path}/DATE", find(session, "DATE"))
            elif self.header.date_text is None and self._sessions_dated():
                self._date_problem(None, f"{path}/DATE", session)  # dated sessions but this one
            sections = [
                (attr(sec, "SECTION_ID") or str(i), child_path(path, "SECTION", i), sec)
                for i, sec in children(session, "SECTION")
            ]
            if find(session, "PARTICIPANTS") is not None:
                sections.insert(0, ("", path, session))
            sections = sections or list(_holders(session, path, _MAX_DEPTH))
            if not sections:
                self.log.problem(
                    path,
                    f"Session {number} has no results (no PARTICIPANTS or SECTION). Export "
                    "the event again after every session has been scored.",
                    line=self.line(session),
                    code="empty-session",
                )
                continue
            units.append(Unit(number, path, session, date, sections))
        return units


_MAX_DEPTH = 6  # wrappers below EVENT searched for PARTICIPANTS (the deepest real one is 2)


def _holders(element: ET.Element, path: str, depth: int) -> Iterator[tuple[str, str, ET.Element]]:
    """Elements below ``element`` that hold PARTICIPANTS, with their paths, outermost first."""
    if depth <= 0:
        return
    counts: dict[str, int] = {}
    for child in element:
        if not isinstance(child.tag, str):
            continue
        tag = child.tag.upper()
        counts[tag] = counts.get(tag, 0) + 1
        if tag in ("HANDSET", "PARTICIPANTS", "BOARD", "MATCH", "SESSION"):
            continue
        child_at = child_path(path, tag, counts[tag])
        if find(child, "PARTICIPANTS") is not None:
            yield attr(child, "SECTION_ID") or str(counts[tag]), child_at, child
        else:
            yield from _holders(child, child_at, depth - 1)
