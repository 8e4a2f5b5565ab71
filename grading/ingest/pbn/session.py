"""The session a PBN ranking describes: pairs, scores, travellers (FORMATS 3.2-3.4)."""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict

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
from grading.ingest.pbn.games import (
    _NAME_SPLIT,
    Facts,
    Game,
    Row,
    Table,
    direction_of,
    game_date,
    pair_label,
    score_columns,
    scoring_of,
)
from grading.ingest.pbn.totals import TotalsMixin, comparisons_in_field, cross_form
from grading.ingest.pbn.travellers import read_travellers
from grading.ingest.problems import ProblemLog


class SessionReader(TotalsMixin):
    def __init__(
        self,
        rankings: list[tuple[Game, Table]],
        games: list[Game],
        meta: dict[str, str],
        club: str,
        program: str,
        log: ProblemLog,
        earliest: dt.date,
    ) -> None:
        self.rankings, self.games, self.meta = rankings, games, meta
        self.earliest = earliest
        self.game, self.table = rankings[0]
        self.club, self.program, self.log = club, program, log
        self.scoring_text = self.game.tags.get("Scoring", "") or meta.get("scoringtype", "")
        self.means_converted: list[str] = []
        self.crossed: list[str] = []  # pairs whose summed cross-IMPs were averaged
        self.played_rows: list[Row] = []

    def build(self) -> SessionResult | None:
        date = self._date()
        scoring = scoring_of(self.scoring_text, self.table.columns)
        if scoring is None:
            self.log.problem(
                f"line {self.game.tag_lines.get('Scoring', self.table.line)}",
                f'The PBN scoring "{self.scoring_text or "(none)"}" is not one the product '
                "grades from a PBN ranking (match points, Butler or cross-IMPs). Upload the "
                "USEBIO XML results file instead.",
                line=self.game.tag_lines.get("Scoring", self.table.line),
                code="pbn-scoring",
            )
        self._check_columns(scoring)
        if date is None or scoring is None:
            return None
        self._check_rankings_agree(date, scoring)
        if self.log.problems:
            return None
        rows = self._rows(scoring)
        if self.log.problems:
            return None
        played = [r for r in rows if not self._left_out(r)]
        if not played:
            self.log.problem(
                f"line {self.table.line}",
                "The ranking lists no pair that played: every line is a sit-out or phantom, or "
                "has neither names nor member ids. Export the results again after the session "
                "has been scored.",
                line=self.table.line,
                code="no-pairs",
            )
            return None
        if not self._assign_pair_ids(played):
            return None
        self.played_rows = played
        lines, per_pair = read_travellers(self.games, rows, scoring, self.log)
        own = self._own_columns(scoring)
        running = own[0] is None and self._running(played, per_pair, lines)
        complete = (
            bool(lines)
            and not per_pair.skipped
            and (
                own[0] is not None  # the ranking's NrBoards may run over every session
                or all(self._boards_agree(r, per_pair, running) for r in played)
            )
        )
        recomputed = self._recomputed(scoring, lines) if running and complete else {}
        if self.log.problems:
            return None
        if running and complete:
            self.log.warn(
                f"line {self.table.line}",
                "The ranking gives totals over earlier sessions as well as this one (its board "
                "counts go beyond this session's travellers), so each pair's result for this "
                "session is worked out from this session's travellers.",
                line=self.table.line,
                code="running-totals",
            )
        if lines and not complete:
            self.log.warn(
                "file",
                "The travellers do not cover every board each pair played, so they are kept "
                "out; pair results come from the TotalScoreTable.",
                code="travellers-incomplete",
            )
        movement = self._movement(played)
        entries = []
        locations = {}
        for row in played:
            entry = self._entry(row, scoring, movement, per_pair, complete, own, recomputed)
            if entry is not None:
                entries.append(entry)
                locations[entry.pair_id] = f"line {row.line}"
        if self.log.problems:
            return None
        if self.means_converted:
            self.log.warn(
                f"line {self.table.line}",
                f"The ranking gives IMPs as an average per board for {len(self.means_converted)} "
                "pair(s); each pair's session total (average times boards played, or the sum "
                "of its traveller IMPs) is used, as grading needs.",
                line=self.table.line,
                code="mean-imps",
            )
        if self.crossed:
            self.log.warn(
                f"line {self.table.line}",
                f"The ranking gives cross-IMPs summed over every comparison ("
                f'"{self.scoring_text}") for {len(self.crossed)} pair(s); each board\'s figure is '
                "divided by the board's comparisons, giving the average per comparison that "
                "grading uses.",
                line=self.table.line,
                code="cross-imps-summed",
            )
        entries = common.apply_first_host_rule(entries, locations, self.log)
        event_name = self.game.tags.get("Event", "") or self.meta.get("contestname", "")
        raw_id = self.meta.get("contestid", "")
        if not raw_id:
            self.log.warn(
                "file",
                "The file has no contest id, so the event is identified by its name "
                f'("{event_name}") and date: another upload with the same name and date will '
                "be treated as a correction of it.",
                code="derived-event-id",
            )
        session = SessionResult(
            key=SessionKey(
                self.club,
                raw_id or common.derived_event_id(event_name, self.program),
                self._session_number(),
                date,
            ),
            event_name=event_name,
            scoring=scoring,
            movement=movement,
            pairs=tuple(entries),
            boards=len({ln.board for ln in lines}) if complete else None,
            travellers=tuple(lines) if complete else (),
            source=self.program,
            extra=(("pbn_scoring", self.scoring_text),),
        )
        if complete and not self.crossed:  # summed cross-IMP lines are another unit
            self.log.line_figures[session.key] = per_pair.figures
        return session

    def _date(self) -> dt.date | None:
        value = game_date(self.game) or common.parse_date(self.meta.get("contestdate"))
        if value is None:
            line = self.game.tag_lines.get("Date", self.table.line)
            self.log.problem(
                f"line {line}",
                f'The date of play "{self.game.tags.get("Date", "")}" is missing or not a '
                "date (PBN writes YYYY.MM.DD). Set the date in your scoring program and export "
                "again.",
                line=line,
                code="date",
            )
            return None
        too_early = limits.date_problem(value, self.earliest)
        if too_early:
            line = self.game.tag_lines.get("Date", self.table.line)
            self.log.problem(f"line {line}", too_early, line=line, code="date-too-early")
        return value

    def _check_rankings_agree(self, date: dt.date, scoring: Scoring) -> None:
        """PBN 5.10: a TotalScoreTable ranks "(a part of) a tournament", so every table is read
        as a part (e.g. a section) of one session (FORMATS 3.3). A table whose game names
        another date or scoring is not part of it: an upload is one session (S14.1)."""
        for game, table in self.rankings[1:]:
            other_date = game_date(game) or date
            other_text = game.tags.get("Scoring", "")
            differs = []
            if other_date != date:
                differs.append(f"dated {other_date:%d %b %Y} (not {date:%d %b %Y})")
            if other_text and scoring_of(other_text, table.columns) is not scoring:
                differs.append(f'scored "{other_text}" (not "{self.scoring_text}")')
            if not differs:
                continue
            self.log.problem(
                f"line {table.line}",
                f"This TotalScoreTable ranks another session than the one at line "
                f"{self.table.line}: it is {' and '.join(differs)}. Upload one file per "
                "session.",
                line=table.line,
                code="pbn-rankings",
            )

    def _check_columns(self, scoring: Scoring | None) -> None:
        """Each ranking needs a PairId and the pairs' scores (PBN 5.10): one problem per table,
        not one per pair."""
        for _game, table in self.rankings:
            if "PairId" not in table.columns:
                self.log.problem(
                    f"line {table.line}",
                    "This PBN file's ranking (TotalScoreTable) has no pair numbers (no PairId "
                    "column), so pairs and their opponents cannot be told apart. Export the "
                    "ranking again with pair numbers, or upload the USEBIO XML results file "
                    "your scoring program writes for the EBU instead.",
                    line=table.line,
                    code="pbn-columns",
                )
            wanted = score_columns(scoring) if scoring else ()
            what = "percentages" if scoring is Scoring.MP else "IMPs"
            if wanted and not any(c in table.columns for c in wanted):
                self.log.problem(
                    f"line {table.line}",
                    f"The TotalScoreTable has no {' or '.join(wanted)} column, so the pairs' "
                    f"{what} are not known. Export the results again from your scoring "
                    f"program with the pairs' {what} in the ranking.",
                    line=table.line,
                    code="pbn-columns",
                )

    def _rows(self, scoring: Scoring) -> list[Row]:
        rows = []
        for _game, table in self.rankings:
            column = next(c for c in score_columns(scoring) if c in table.columns)
            for line, rec in table.records():
                row = self._row(line, rec, column)
                if row is not None:
                    row.table = table.line
                    rows.append(row)
        return rows

    def _row(self, line: int, rec: dict[str, str], score_column: str) -> Row | None:
        number = rec.get("PairId", "").strip()
        if not number or number in ("-", "?"):
            self.log.problem(
                f"line {line}",
                "This ranking line has no pair number. Export the results again.",
                line=line,
                code="pair-number",
            )
            return None
        return Row(
            number=number,
            line=line,
            section=rec.get("Section", ""),
            players=self._players(line, rec),
            direction=direction_of(rec.get("Direction", "")),
            boards=self._nr_boards(line, rec),
            rank=rec.get("Rank", ""),
            record=rec,
            score_column=score_column,
        )

    def _nr_boards(self, line: int, rec: dict[str, str]) -> int | None:
        """NrBoards; a negative count (found by fuzzing) is taken as not reported."""
        boards = common.parse_whole(rec.get("NrBoards"))
        if boards is not None and boards < 0:
            self.log.warn(
                f"line {line}",
                f'The number of boards "{rec.get("NrBoards")}" is not a count of boards; the '
                "pair's boards are counted from the travellers, or taken as not reported.",
                line=line,
                code="boards",
            )
            return None
        return boards

    def _players(self, line: int, rec: dict[str, str]) -> tuple[Player, Player]:
        names = [n.strip() for n in _NAME_SPLIT.split(rec.get("Names", ""), maxsplit=1)]
        names = (names + ["", ""])[:2]
        numbers = [rec.get("MemberID1"), rec.get("MemberID2")]
        if numbers == [None, None] and rec.get("MemberID"):
            numbers = (re.split(r"[,\s;-]+", rec["MemberID"]) + [None, None])[:2]
        players = []
        for name, raw in zip(names, numbers, strict=True):
            number = normalise_number(raw) if raw not in ("?", "-") else None
            if number is not None and not number.isdigit():
                self.log.warn(
                    f"line {line}",
                    f"The member id {limits.shown(raw)} of "
                    f"{limits.player_shown(name)} is not a number; the player "
                    "is treated as unknown.",
                    line=line,
                    code="bad-number",
                )
                number = None
            players.append(Player(number=number, name=name))
        return players[0], players[1]

    def _assign_pair_ids(self, rows: list[Row]) -> bool:
        """Unique ids within the session (FORMATS 5.2); False, with a problem at each line of a
        pair listed more than once (S12: every problem says where it is)."""
        ids = common.unique_pair_ids(rows)
        if ids is not None:
            for row, pair_id in zip(rows, ids, strict=True):
                row.pair_id = pair_id
            return True
        lines: dict[str, list[int]] = defaultdict(list)
        for row in rows:
            lines[common.pair_in_full(row)].append(row.line)
        for row in rows:
            others = [n for n in lines[common.pair_in_full(row)] if n != row.line]
            if not others:
                continue
            self.log.problem(
                f"line {row.line}",
                f"{pair_label(row)} is listed more than once in the ranking (also line "
                f"{', '.join(map(str, others))}). Check the pair numbers in your scoring "
                "program and export the results again.",
                line=row.line,
                code="pair-repeated",
            )
        return False

    def _left_out(self, row: Row) -> bool:
        if not row.left_out:
            return False
        why = "played no boards" if row.boards == 0 else "is a sit-out or phantom pair"
        self.log.warn(
            f"line {row.line}",
            f"{pair_label(row)} {why}; it is left out of grading and its opponents' boards "
            "against it are not counted.",
            line=row.line,
            code="phantom",
        )
        return True

    def _movement(self, rows: list[Row]) -> Movement:
        """Two-winner when a ranking restarts for each direction (both have a rank 1 in the same
        TotalScoreTable: sections ranked in tables of their own each have their own rank 1)."""
        firsts: dict[int, set[Direction | None]] = defaultdict(set)
        for row in rows:
            if row.rank.strip().rstrip("=") == "1":
                firsts[row.table].add(row.direction)
        if any(d >= {Direction.NS, Direction.EW} for d in firsts.values()):
            return Movement.TWO_WINNER
        return Movement.ONE_WINNER

    def _entry(
        self,
        row: Row,
        scoring: Scoring,
        movement: Movement,
        per_pair: Facts,
        complete: bool,
        own: tuple[str | None, str | None],
        recomputed: dict[str, float],
    ) -> PairEntry | None:
        played = len(per_pair.boards.get(row.pair_id, ())) if complete else None
        boards = row.boards
        if own[0] is not None:  # this session's own columns (S14.22)
            column = own[0]
            own_boards = common.parse_whole(row.record.get(own[1] or ""))
            boards = own_boards if own_boards is not None and own_boards > 0 else played
        elif recomputed:  # running totals: this session's travellers decide
            column = ""
            boards = played
        else:
            column = row.score_column
            if played is not None and (boards is None or boards > played):
                boards = played  # sit-outs and byes are not boards played (S3.7)
        if column:
            score = self._file_score(row, column, scoring)
            if score is not None and scoring is not Scoring.MP:
                score = self._imp_total(row, column, score, boards, per_pair)
                score = self._crossed(row, score, scoring, per_pair, complete)
        else:
            score = recomputed.get(row.pair_id)
        if score is None:
            return None
        direction = row.direction if movement is Movement.TWO_WINNER else None
        return PairEntry(
            pair_id=row.pair_id,
            players=row.players,
            score=score,
            direction=direction,
            boards=boards,
            section=row.section,
        )

    def _crossed(
        self, row: Row, score: float, scoring: Scoring, per_pair: Facts, complete: bool
    ) -> float:
        """Cross-IMPs summed over comparisons ("IMP;Cross") in the per-board average form."""
        form = cross_form(self.scoring_text) if scoring is Scoring.CROSS_IMP else ""
        if form not in ("cross", "cross1"):
            return score
        facts = per_pair if complete else Facts()
        field = None if complete else comparisons_in_field(self.played_rows)
        value = self._uncrossed(row, score, form, facts, field)
        if value != score:
            self.crossed.append(row.pair_id)
        return value
