"""BOARD and TRAVELLER_LINE: the travellers of a session and what they tell about each pair
(FORMATS 2.6, 5.5)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from grading.engine.types import (
    Direction,
    TravellerLine,
)
from grading.ingest import common
from grading.ingest.usebio.shapes import (
    Dropped,
    Lines,
    RawPair,
    boards_of,
    located,
)
from grading.ingest.xmltext import child_path, children, text


class TravellersMixin:
    """Travellers, for :class:`~grading.ingest.usebio.reader.EventReader`, which
    provides ``log``, ``header``, ``path``, ``event`` and ``line()``."""

    def _read_lines(
        self,
        containers: list[tuple[str, str, ET.Element]],
        lookup: dict[tuple[str, str], list[RawPair]],
        dropped: Dropped,
        points: tuple[str, str] | None,
    ) -> Lines:
        """Every TRAVELLER_LINE under the containers' BOARDs (and MATCH/BOARDs for teams)."""
        result = Lines()
        for section, path, container in containers:
            for board_el, board_path in boards_of(container, path):
                board = common.parse_whole(text(board_el, "BOARD_NUMBER"))
                if board is None or board <= 0:
                    result.skipped["board number missing or not a number"].append(
                        located(board_path, self.line(board_el))
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
        lookup: dict[tuple[str, str], list[RawPair]],
        dropped: Dropped,
        points: tuple[str, str] | None,
        result: Lines,
    ) -> None:
        where = located(path, self.line(element))
        ns_num = text(element, "NS_PAIR_NUMBER") or ""
        ew_num = text(element, "EW_PAIR_NUMBER") or ""
        if (
            dropped.against(section, ns_num, ew_num, lookup)
            or common.is_bye(ns_num)
            or common.is_bye(ew_num)
        ):
            # against a sit-out, phantom or bye: not a comparison, and not a board played
            # (S3.7, S14.22); the real side's board is remembered as sat out
            for number, side in ((ns_num, Direction.NS), (ew_num, Direction.EW)):
                real = common.pair_of_line(lookup, section, number, side)
                if real is not None and not common.is_bye(number):
                    result.sat_out[real.pair_id].add(board)
            return
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
            adjusted = common.parse_adjusted_code(score_text.strip().lstrip("^"))
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
            tricks=common.parse_tricks(text(element, "TRICKS"), contract),
        )
        result.lines.append(line)
        result.board_numbers.add(board)
        result.tables_by_board[board] += 1
        for pair, side in ((ns, Direction.NS), (ew, Direction.EW)):
            result.boards_by_pair[pair.pair_id].add(board)
            result.sides_by_pair[pair.pair_id].add(side)
        if points is not None:
            values = []
            for pair, tag in ((ns, points[0]), (ew, points[1])):
                value = common.parse_decimal(text(element, tag))
                values.append(value)
                if value is not None:
                    result.points_by_pair[pair.pair_id] += value
            figures = common.line_figures(values[0], values[1], points[0] == "NS_MATCH_POINTS")
            if figures is not None and adjusted is None:
                result.figures[(ns.pair_id, board)], result.figures[(ew.pair_id, board)] = figures

    def _report_skipped(self, lines: Lines) -> None:
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

    def _travellers_complete(self, lines: Lines, path: str) -> bool:
        """Travellers count boards only if they cover the boards the file says were played."""
        if not lines.lines:
            return False
        expected = self.header.boards_played
        if expected is not None and len(lines.board_numbers) < expected:
            self.log.warn(
                path,
                f"The file has travellers for {len(lines.board_numbers)} boards but says "
                f"{expected} boards were played, so the travellers look incomplete: they are "
                "not used, and boards per pair are recorded as not reported (24 assumed).",
                code="travellers-incomplete",
            )
            return False
        return True
