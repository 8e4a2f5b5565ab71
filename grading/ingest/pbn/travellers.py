"""The ScoreTables of a PBN file as traveller lines, and what they tell about each pair
(PBN 5.9; FORMATS 3.2, 5.3, 5.5; S2.4, S14.22).

A line against a sit-out, phantom or bye is not a comparison: it is left out, and the real
pair's board is remembered as sat out (S3.7). An adjusted result (``A+``, ``A60``, ``A4050``,
``AVE-``...) is a result (S2.4). Only a line that cannot be read at all is "skipped".
"""

from __future__ import annotations

from collections import defaultdict

from grading.engine.types import Direction, Scoring, TravellerLine
from grading.ingest import common
from grading.ingest.pbn.games import Facts, Game, Row, ns_score
from grading.ingest.problems import ProblemLog


def point_columns(scoring: Scoring) -> tuple[str, str]:
    if scoring in (Scoring.BUTLER, Scoring.CROSS_IMP):
        return "IMP_NS", "IMP_EW"
    return "MP_NS", "MP_EW"


def read_travellers(
    games: list[Game], rows: list[Row], scoring: Scoring, log: ProblemLog
) -> tuple[list[TravellerLine], Facts]:
    lookup = common.pairs_by_number(rows)
    facts = Facts(
        boards=defaultdict(set),
        points=defaultdict(float),
        sat_out=defaultdict(set),
        scores_by_board=defaultdict(int),
        line_points={},
    )
    lines: list[TravellerLine] = []
    skipped: list[str] = []
    columns = point_columns(scoring)
    for game in games:
        board = common.parse_whole(game.tags.get("Board"))
        for table in game.tables:
            if table.name != "ScoreTable" or board is None:
                continue
            for line_no, rec in table.records():
                line = _line(rec, board, lookup, columns, facts)
                if line is False:
                    skipped.append(f"line {line_no}")
                elif line is not None:
                    lines.append(line)
                    facts.scores_by_board[board] += 1
    if skipped:
        shown = ", ".join(skipped[:5]) + (
            f" and {len(skipped) - 5} more" if len(skipped) > 5 else ""
        )
        log.warn(
            skipped[0],
            f"{len(skipped)} traveller line(s) were left out (pair not in the ranking, or "
            f"a score no bridge contract can produce): {shown}.",
            code="traveller-line",
        )
    facts.boards = dict(facts.boards)
    facts.points = dict(facts.points)
    facts.sat_out = dict(facts.sat_out)
    facts.scores_by_board = dict(facts.scores_by_board)
    facts.skipped = bool(skipped)
    return lines, facts


def _line(rec: dict[str, str], board: int, lookup, columns, facts: Facts):
    """One ScoreTable row as a line; None for a line that is no comparison (a bye, a sit-out,
    a phantom); False for a line that cannot be read."""
    section = rec.get("Section", "")
    ns_id, ew_id = rec.get("PairId_NS", ""), rec.get("PairId_EW", "")
    ns = common.pair_of_line(lookup, section, ns_id, Direction.NS)
    ew = common.pair_of_line(lookup, section, ew_id, Direction.EW)
    if (ns is None and common.is_bye(ns_id, blank=True)) or (
        ew is None and common.is_bye(ew_id, blank=True)
    ):
        _sat_out(facts, board, ns, ew)
        return None
    if ns is None or ew is None:
        return False
    if ns.left_out or ew.left_out:
        _sat_out(facts, board, ns, ew)
        return None  # against a sit-out or phantom: not a comparison (FORMATS 5.3)
    values = []
    for row, col in ((ns, columns[0]), (ew, columns[1])):
        facts.boards[row.pair_id].add(board)
        value = common.parse_decimal(rec.get(col))
        values.append(value)
        facts.points[row.pair_id] += value or 0.0
        if value is not None:
            facts.line_points[(row.pair_id, board)] = value
    contract = rec.get("Contract", "").strip("-")
    adjusted = _adjusted(rec)
    figures = _figures(rec, values, columns[0] == "MP_NS")
    if figures is not None and adjusted is None:
        facts.figures[(ns.pair_id, board)], facts.figures[(ew.pair_id, board)] = figures
    if adjusted is not None:
        return TravellerLine(
            board=board,
            ns_pair=ns.pair_id,
            ew_pair=ew.pair_id,
            ns_adjusted=adjusted[0],
            ew_adjusted=adjusted[1],
        )
    score = ns_score(rec)
    if score is None:
        return False
    return TravellerLine(
        board=board,
        ns_pair=ns.pair_id,
        ew_pair=ew.pair_id,
        ns_score=score,
        contract=contract,
        declarer=rec.get("Declarer", "").strip("-"),
        lead=rec.get("Lead", "").strip("-"),
        tricks=common.parse_tricks(rec.get("Result"), contract),
    )


def _figures(rec: dict[str, str], values: list, match_points: bool):
    """The line's own figures for the check of totals: percentages where the ScoreTable gives
    them, else its MP or IMP columns (:func:`common.line_figures`)."""
    if match_points:
        ns = common.parse_decimal(rec.get("Percentage_NS"))
        ew = common.parse_decimal(rec.get("Percentage_EW"))
        if ns is not None and ew is not None:
            return ns, ew
    return common.line_figures(values[0], values[1], match_points)


def _sat_out(facts: Facts, board: int, *pairs: Row | None) -> None:
    for pair in pairs:
        if pair is not None and not pair.left_out:
            facts.sat_out[pair.pair_id].add(board)


def _adjusted(rec: dict[str, str]) -> tuple[str, str] | None:
    """An artificial adjusted score (S2.4) where the line's score or contract would be:
    ``A+``, ``A60``, ``AVE-``, ``A4050``, PBN's ``^`` mark of an artificial value; the EW
    field's own code when it gives one."""
    ns_text = rec.get("Score_NS", "").strip().lstrip("^")
    ew_text = rec.get("Score_EW", "").strip().lstrip("^")
    contract = rec.get("Contract", "").strip().lstrip("^")
    for text in (ns_text, contract):
        if text and common.looks_adjusted(text):
            codes = common.parse_adjusted_code(text)
            if codes is None:
                return None
            ew_codes = common.parse_adjusted_code(ew_text) if ew_text else None
            if ew_codes is not None and common.looks_adjusted(ew_text):
                return codes[0], ew_codes[0]  # each side its own code (A60 A60)
            return codes
    if ew_text and common.looks_adjusted(ew_text) and not ns_text:
        codes = common.parse_adjusted_code(ew_text)  # written from EW's side
        return None if codes is None else (codes[1], codes[0])
    return None
