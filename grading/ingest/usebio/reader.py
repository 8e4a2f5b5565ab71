"""One EVENT read into sessions (FORMATS 2; S12)."""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET

from grading.engine.ngs.terms import CROSS_IMPS, IMPS_NAMED
from grading.engine.types import (
    Movement,
    PairEntry,
    Scoring,
    SessionKey,
    SessionResult,
    SwissMatch,
    TravellerLine,
)
from grading.ingest import common
from grading.ingest.problems import ProblemLog
from grading.ingest.usebio.handicap import ScratchMixin
from grading.ingest.usebio.pairs import PairsMixin
from grading.ingest.usebio.participants import ParticipantsMixin
from grading.ingest.usebio.shapes import (
    REASON_INDIVIDUAL,
    Unit,
    hand_record_boards,
    hand_record_message,
)
from grading.ingest.usebio.teams import TeamsMixin
from grading.ingest.usebio.travellers import TravellersMixin
from grading.ingest.usebio.tree import TreeMixin
from grading.ingest.xmlsafe import XmlDocument
from grading.ingest.xmltext import find

# --------------------------------------------------------------------------------------------
# One EVENT


class EventReader(
    TreeMixin, ParticipantsMixin, TravellersMixin, PairsMixin, ScratchMixin, TeamsMixin
):
    """Reads one EVENT: the header, then each session by its kind (pairs, teams, Swiss pairs,
    individual)."""

    def __init__(
        self,
        doc: XmlDocument,
        event: ET.Element,
        path: str,
        club: str,
        version: str,
        log: ProblemLog,
        earliest: dt.date,
    ) -> None:
        self.earliest = earliest
        self.doc = doc
        self.event = event
        self.path = path
        self.club = club
        self.version = version
        self.log = log
        self.header = self._read_header()

    def line(self, element: ET.Element | None) -> int | None:
        return self.doc.line(element)

    # ---- sessions ----------------------------------------------------------------------------

    def read(self) -> list[SessionResult]:
        deals = hand_record_boards(self.doc.root)
        if deals:
            self.log.problem(
                self.path,
                hand_record_message(deals),
                line=self.line(self.event),
                code="hand-record",
            )
            return []
        classified = self._classify()
        if self.header.date is None and (
            self.header.date_text is not None or not self._sessions_dated()
        ):
            self._date_problem(self.header.date_text, f"{self.path}/DATE", find(self.event, "DATE"))
        self._date_limit(self.header.date, f"{self.path}/DATE", find(self.event, "DATE"))
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

    def _read_unit(self, unit: Unit, kind: str, scoring: Scoring) -> SessionResult | None:
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
        unit: Unit,
        scoring: Scoring,
        movement: Movement,
        pairs: list[PairEntry],
        *,
        boards: int | None = None,
        travellers: tuple[TravellerLine, ...] = (),
        matches: tuple[SwissMatch, ...] = (),
        reason: str = "",
        notes: tuple[tuple[str, str], ...] = (),
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
        if scoring is Scoring.SWISS_PAIRS_IMP and self._swiss_cross_imps():
            extra.append((IMPS_NAMED, CROSS_IMPS))  # S14.23: graded with the cross-IMP factor
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
            extra=tuple((k, v) for k, v in extra if v) + notes,
        )

    # ---- individual events ------------------------------------------------------------------

    def _individual_session(self, unit: Unit, scoring: Scoring) -> SessionResult | None:
        return self._session(unit, scoring, Movement.ONE_WINNER, [], reason=REASON_INDIVIDUAL)
