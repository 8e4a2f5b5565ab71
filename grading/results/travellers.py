"""Every board's traveller with what each line earned, and a pair's scorecard (S16), scored by
the scoring engine (S2, ``grading.engine.scoring``) from the version's stored file
(``SessionResult``). Pure figures: no grade appears here.

Match points are shown as the engine gives them (units of 2 a score beaten, Neuberg-factored to
the most-played board, S2.3) with the percentage; IMPs as Butler or cross-IMPs by the session's
scoring; teams as cross-IMPs (S3.6); aggregate as points. A traveller the engine cannot score
is shown with its scores only, and says so: no file may take the page down."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from grading.engine.scoring import (
    LineResult,
    Method,
    TravellerLine,
    group_by_board,
    method_of,
    score_traveller,
)
from grading.engine.types import Direction, Scoring, SessionResult

UNITS = {
    Method.MP: "match points",
    Method.BUTLER: "IMPs",
    Method.CROSS_IMP: "IMPs",
    Method.AGGREGATE: "points",
}
NOT_SCORED = "This board's scores could not be compared; its scores are shown as played."


@dataclass(frozen=True)
class Earned:
    """What one side of a line earned, as printed ("7 (58.3%)", "+3.50", "620"), and as a
    number (match points come in halves at most, so a float holds them exactly)."""

    text: str
    value: float | None = None
    top: float | None = None


@dataclass
class TravellerRow:
    ns_pair: str
    ew_pair: str
    contract: str
    declarer: str
    lead: str
    tricks: str
    score: str  # NS points as played, or the adjusted score's code
    ew_score: str  # the same from East-West's seat (their sign), for their scorecard
    ns: Earned
    ew: Earned


@dataclass
class Traveller:
    board: int
    rows: list[TravellerRow]
    note: str = ""


@dataclass
class CardRow:
    board: int
    direction: str
    opponents: str
    contract: str
    declarer: str
    lead: str
    tricks: str
    score: str  # the pair's own points (their sign)
    earned: Earned


@dataclass
class Scorecard:
    pair_id: str
    rows: list[CardRow] = field(default_factory=list)
    total: str = ""


def _number(value: Fraction, places: int = 2) -> str:
    text = f"{float(value):.{places}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _earned(method: Method | None, value: Fraction | None, top: Fraction | None) -> Earned:
    if method is None or value is None:
        return Earned("")
    if method is Method.MP:
        percent = f" ({float(value * 100 / top):.1f}%)" if top else ""
        return Earned(f"{_number(value)}{percent}", float(value), float(top) if top else None)
    if method is Method.AGGREGATE:
        return Earned(_number(value, 0), float(value))
    return Earned(f"{float(value):+.2f}", float(value))


def _points(line: TravellerLine, side: str) -> str:
    """The line's score from ``side``'s seat (NS or EW): points, or the adjusted code."""
    code = line.ns_adjusted if side == "NS" else line.ew_adjusted
    other = line.ew_adjusted if side == "NS" else line.ns_adjusted
    if code or other:
        return code or f"{other} (opponents)"
    if line.ns_weighted or line.ew_weighted:
        return "weighted"
    if side == "NS":
        return "" if line.ns_score is None else str(line.ns_score)
    score = line.ew_score if line.ew_score is not None else line.ns_score
    return "" if score is None else str(-score)


def _tricks(line: TravellerLine) -> str:
    return "" if line.tricks is None else str(line.tricks)


def _scored(
    lines: tuple[TravellerLine, ...], method: Method | None, expected: int
) -> tuple[tuple[LineResult, ...] | None, str]:
    if method is None:
        return None, ""
    try:
        board = score_traveller(lines, method, expected)
    except (ValueError, ArithmeticError, TypeError, KeyError):
        return None, NOT_SCORED
    return board.lines, ""


def travellers_scored(result: SessionResult) -> list[Traveller]:
    """Every board's traveller in board order, each line with what both sides earned; with
    no method (Swiss pairs in IMPs) the scores only."""
    method = method_of(result.scoring)
    boards = group_by_board(result.travellers)
    expected = max((len(lines) for lines in boards.values()), default=0)
    travellers = []
    for number in sorted(boards):
        lines = boards[number]
        scored, note = _scored(lines, method, expected)
        rows = []
        for i, line in enumerate(lines):
            found = scored[i] if scored is not None else None
            rows.append(
                TravellerRow(
                    ns_pair=line.ns_pair,
                    ew_pair=line.ew_pair,
                    contract=line.contract,
                    declarer=line.declarer,
                    lead=line.lead,
                    tricks=_tricks(line),
                    score=_points(line, "NS"),
                    ew_score=_points(line, "EW"),
                    ns=_earned(method, found.ns if found else None, found.top if found else None),
                    ew=_earned(method, found.ew if found else None, found.top if found else None),
                )
            )
        travellers.append(Traveller(number, rows, note))
    return travellers


def scorecard(
    scoring: Scoring,
    travellers: list[Traveller],
    pair_id: str,
    names: Mapping[str, str],
) -> Scorecard:
    """The pair's boards in order: opponents, contract, declarer, lead, their score and what
    it earned, and their total in the session's units (S16)."""
    method = method_of(scoring)
    card = Scorecard(pair_id)
    total = 0.0
    top = 0.0
    counted = False
    for traveller in travellers:
        for row in traveller.rows:
            if pair_id not in (row.ns_pair, row.ew_pair):
                continue
            ns = row.ns_pair == pair_id
            opponents = row.ew_pair if ns else row.ns_pair
            earned = row.ns if ns else row.ew
            if earned.value is not None:
                counted = True
                total += earned.value
                top += earned.top or 0
            card.rows.append(
                CardRow(
                    board=traveller.board,
                    direction=Direction.NS.value if ns else Direction.EW.value,
                    opponents=f"{opponents} {names.get(opponents, '')}".strip(),
                    contract=row.contract,
                    declarer=row.declarer,
                    lead=row.lead,
                    tricks=row.tricks,
                    score=row.score if ns else row.ew_score,
                    earned=earned,
                )
            )
    if counted and method is not None:
        card.total = _earned(
            method, Fraction(total), Fraction(top) if method is Method.MP and top else None
        ).text
        if method is not Method.MP:
            card.total += f" {UNITS[method]}"
    return card
