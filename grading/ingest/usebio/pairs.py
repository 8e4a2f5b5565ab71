"""Pairs sessions: each pair's boards and score (FORMATS 2.3, 5.6; S3.3, S3.7)."""

from __future__ import annotations

from grading.engine.types import (
    Movement,
    PairEntry,
    Scoring,
    SessionResult,
)
from grading.ingest import common, limits
from grading.ingest.usebio.shapes import (
    FAILED,
    LINE_POINTS,
    Failed,
    Lines,
    RawPair,
    Unit,
    pair_direction,
    pair_label,
)


class PairsMixin:
    """Pairs sessions, for :class:`~grading.ingest.usebio.reader.EventReader`, which
    provides ``log``, ``header``, ``path``, ``event`` and ``line()``."""

    def _identified_pairs(self, unit: Unit):
        """The unit's pairs with their ids, the pairs dropped, and the id lookup; None (with
        the problem logged) when there are no pairs or their ids cannot be assigned."""
        raws, dropped = self._collect_pairs(unit)
        if not raws:
            self._no_pairs(unit)
            return None
        if not self._assign_pair_ids(raws):
            return None
        return raws, dropped, common.pairs_by_number(raws)

    def _pairs_session(self, unit: Unit, scoring: Scoring) -> SessionResult | None:
        problems_before = len(self.log.problems)
        pairs = self._identified_pairs(unit)
        if pairs is None:
            return None
        raws, dropped, lookup = pairs
        lines = self._read_lines(unit.sections, lookup, dropped, LINE_POINTS.get(scoring))
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
        travellers = tuple(lines.lines) if complete else ()
        scratch = self._scratch(unit, scoring, movement, raws, entries, travellers)
        session = self._session(
            unit,
            scoring,
            movement,
            scratch.entries,
            boards=len(lines.board_numbers) if complete else None,
            travellers=travellers,
            reason=scratch.reason,
            notes=scratch.notes,
        )
        if complete:
            self.log.line_figures[session.key] = dict(lines.figures)
        return session

    def _movement(self, raws: list[RawPair], lines: Lines) -> Movement:
        winner = self.header.winner_type
        if winner == "1":
            return Movement.ONE_WINNER
        if winner == "2":
            return Movement.TWO_WINNER
        directions = {pair_direction(r, lines) for r in raws}
        if None not in directions and len(directions) == 2:
            return Movement.TWO_WINNER
        return Movement.ONE_WINNER

    def _pair_entry(
        self,
        raw: RawPair,
        scoring: Scoring,
        movement: Movement,
        lines: Lines,
        complete: bool,
        full_boards: int,
        not_graded: bool,
    ) -> PairEntry | None:
        label = pair_label(raw)
        direction = None
        if movement is Movement.TWO_WINNER:
            direction = pair_direction(raw, lines)
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
        if score is FAILED:
            return None
        assert not isinstance(score, Failed)
        return PairEntry(
            pair_id=raw.pair_id,
            players=(raw.players[0], raw.players[1]),
            score=score,
            direction=direction,
            boards=boards,
            section=raw.section,
            team=raw.team,
        )

    def _pair_boards(self, raw: RawPair, lines: Lines, complete: bool) -> int | None:
        if raw.boards_played:
            value = common.parse_whole(raw.boards_played)
            if value is not None and value >= 0:
                return self._boards_without_sit_outs(raw, value, lines, complete)
            self.log.warn(
                f"{raw.path}/BOARDS_PLAYED",
                f'{pair_label(raw)}\'s boards played "{raw.boards_played}" is not a number; '
                "it is counted from the travellers instead, or taken as not reported.",
                line=raw.line,
                code="boards",
            )
        if complete:
            return len(lines.boards_by_pair.get(raw.pair_id, ()))
        return None

    def _boards_without_sit_outs(
        self, raw: RawPair, declared: int, lines: Lines, complete: bool
    ) -> int:
        """S3.7, S14.22: a declared count that includes boards against a sit-out, phantom or
        bye (the travellers show them) is read as the boards the pair played."""
        played = lines.boards_by_pair.get(raw.pair_id, set())
        sat_out = lines.sat_out.get(raw.pair_id, set()) - played
        if not complete or not sat_out or declared <= len(played):
            return declared
        if declared > len(played) + len(sat_out):
            return declared
        self.log.warn(
            f"{raw.path}/BOARDS_PLAYED",
            f"{pair_label(raw)} is said to have played {declared} boards, counting "
            f"{declared - len(played)} against a sit-out or bye; the {len(played)} boards it "
            "played are counted.",
            line=raw.line,
            code="boards-sit-out",
        )
        return len(played)

    def _pair_score(
        self,
        raw: RawPair,
        scoring: Scoring,
        lines: Lines,
        complete: bool,
        full_boards: int,
        boards: int | None,
        not_graded: bool,
    ) -> float | None | Failed:
        label = pair_label(raw)
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
            return FAILED
        bad = limits.percent_problem(label, value) if scoring is Scoring.MP else None
        if bad is not None:
            self.log.problem(f"{raw.path}/{tag}", bad, line=raw.line, code="score")
            return FAILED
        if scoring in (Scoring.BUTLER, Scoring.CROSS_IMP) and complete and boards:
            return self._unfactored(raw, value, lines, full_boards, boards)
        return value

    def _unfactored(
        self, raw: RawPair, total: float, lines: Lines, full_boards: int, boards: int
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
            f"{pair_label(raw)}'s total of {total:g} IMPs is scaled up to {full_boards} "
            f"boards, but the pair played {boards}; {used:g} IMPs over {boards} boards is used.",
            line=raw.line,
            code="factored-total",
        )
        return used
