"""Teams and Swiss pairs sessions (FORMATS 2.7, 5.7; S3.1, S3.6)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from grading.engine.types import (
    Direction,
    Movement,
    PairEntry,
    Scoring,
    SessionResult,
    SwissMatch,
)
from grading.ingest import common
from grading.ingest.usebio.shapes import (
    REASON_HEAD_TO_HEAD,
    REASON_NO_LINEUPS,
    REASON_PAB,
    REASON_SWISS_TWO_TABLES,
    REASON_TEAMS_V10,
    TEAM_LINE_POINTS,
    Dropped,
    Lines,
    RawPair,
    Unit,
    match_boards,
    pair_direction,
    pair_label,
)
from grading.ingest.xmltext import attr, child_path, children, find, text


class TeamsMixin:
    """Teams and Swiss pairs sessions, for :class:`~grading.ingest.usebio.reader.EventReader`, which
    provides ``log``, ``header``, ``path``, ``event`` and ``line()``."""

    def _teams_session(self, unit: Unit, scoring: Scoring) -> SessionResult | None:
        problems_before = len(self.log.problems)
        raws, dropped, team_names, bare_players = self._collect_team_pairs(unit)
        reason = self._teams_reason(scoring, bare_players, raws, len(team_names))
        if reason == REASON_HEAD_TO_HEAD:
            scoring = Scoring.HEAD_TO_HEAD
        if not raws:
            if reason:
                return self._session(unit, scoring, Movement.TWO_WINNER, [], reason=reason)
            self._no_pairs(unit)
            return None
        if not self._assign_pair_ids(raws):
            return None
        lookup = common.pairs_by_number(raws)
        lines = self._read_lines(unit.sections, lookup, dropped, TEAM_LINE_POINTS)
        self._report_skipped(lines)
        complete = bool(lines.lines)
        two_tables = len(team_names) == 2 or (complete and max(lines.tables_by_board.values()) <= 2)
        if not reason and two_tables:
            # S14.24: whatever the file calls the event; a Swiss teams session keeps its name
            # and says why (its boards were not shared across the room)
            if scoring is Scoring.SWISS_TEAMS:
                reason = REASON_SWISS_TWO_TABLES
            else:
                scoring, reason = Scoring.HEAD_TO_HEAD, REASON_HEAD_TO_HEAD
        reason = reason or common.charge_code_reason(self.header.charge)
        directions = {r.pair_id: pair_direction(r, lines) for r in raws}
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

    def _teams_reason(
        self, scoring: Scoring, bare_players: bool, raws: list[RawPair], teams: int
    ) -> str:
        """Why the teams session is not graded, or "". What the event is comes first: a match
        between two teams is head-to-head whatever else the file lacks (S3.1)."""
        if scoring is Scoring.POINT_A_BOARD:
            return REASON_PAB
        if scoring is Scoring.HEAD_TO_HEAD or (scoring is not Scoring.SWISS_TEAMS and teams == 2):
            return REASON_HEAD_TO_HEAD
        if self.header.version == "1.0":
            return REASON_TEAMS_V10
        if bare_players and not raws:
            return REASON_NO_LINEUPS
        return ""

    def _collect_team_pairs(self, unit: Unit) -> tuple[list[RawPair], Dropped, set[str], bool]:
        raws: list[RawPair] = []
        dropped = Dropped()
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
        self, raw: RawPair, lines: Lines, complete: bool, not_graded: bool
    ) -> PairEntry | None:
        label = pair_label(raw, "Team pair")
        boards = self._pair_boards(raw, lines, complete)
        score = common.parse_decimal(raw.pair_imps)
        if score is None and complete and raw.pair_id in lines.points_by_pair:
            score = round(lines.points_by_pair[raw.pair_id], 2)
            self.log.warn(
                f"{raw.path}/PAIR_IMPS",
                f"{label} has no PAIR_IMPS; its cross-IMPs were added up from the travellers "
                f"({score:g}).",
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
        unit: Unit,
        lookup: dict[tuple[str, str], list[RawPair]],
        dropped: Dropped,
    ) -> tuple[SwissMatch, ...]:
        """Per pair and match: the pairs met at the table, boards and cross-IMPs (S3.2)."""
        found: list[SwissMatch] = []
        for section, path, container in unit.sections:
            for m_index, match in children(container, "MATCH"):
                m_path = child_path(path, "MATCH", m_index)
                round_no = common.parse_whole(text(match, "ROUND_NUMBER")) or m_index
                lines = self._read_lines(
                    [(section, m_path, match)], lookup, dropped, TEAM_LINE_POINTS
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

    def _swiss_pairs_session(self, unit: Unit, scoring: Scoring) -> SessionResult | None:
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
                # S14.23: a pair in no match sat out; it is not graded and is nobody's
                # opponent (its line in the ranking is kept out, as a sit-out's is)
                self.log.warn(
                    raw.path,
                    f"{pair_label(raw)} appears in no MATCH, so it sat out: it is left out of "
                    "grading. If it played, export the event again after every round has been "
                    "scored.",
                    line=raw.line,
                    code="swiss-sat-out",
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
        unit: Unit,
        lookup: dict[tuple[str, str], list[RawPair]],
        dropped: Dropped,
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
                boards = match_boards(match)
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
