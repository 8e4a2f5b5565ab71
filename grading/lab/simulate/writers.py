"""Upload files from simulated sessions: the product's CSV (S12.1) and USEBIO 1.2 XML.

CSV carries pair totals only (no travellers) and only the four pairs scorings it defines;
USEBIO carries travellers, Swiss pairs matches and multiple-teams matches, laid out as the
product's parser (``grading.ingest``) and FORMATS.md describe.
"""

from __future__ import annotations

import csv
import io
from xml.sax.saxutils import escape, quoteattr

from grading.engine.scoring import Method, score_board
from grading.engine.types import Movement, Scoring, SessionResult
from grading.ingest.csvformat import CSV_COLUMNS
from grading.lab.simulate.sessions import SimSession

__all__ = ["CSV_HEADER", "CSV_SCORINGS", "csv_bytes", "usebio_bytes"]

CSV_HEADER = list(CSV_COLUMNS)  # the product's own columns, defined once
CSV_SCORINGS = frozenset({Scoring.MP, Scoring.BUTLER, Scoring.CROSS_IMP, Scoring.AGGREGATE})


def _number(value: float) -> str:
    text = f"{value:.2f}"
    return text[:-3] if text.endswith(".00") else text.rstrip("0")


def csv_bytes(results: list[SessionResult]) -> bytes:
    """One S12.1 CSV file holding the given pairs sessions."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_HEADER, lineterminator="\n")
    writer.writeheader()
    for result in results:
        if result.scoring not in CSV_SCORINGS:
            raise ValueError(f"S12.1 CSV cannot hold {result.scoring.value} sessions")
        for pair in result.pairs:
            a, b = pair.players
            number = pair.pair_id
            if pair.direction is not None and number.endswith(pair.direction.value):
                number = number[: -len(pair.direction.value)]
            writer.writerow(
                {
                    "event_id": result.key.event_id,
                    "event_name": result.event_name,
                    "session": result.key.session,
                    "date": result.date.isoformat(),
                    "start": result.start.strftime("%H:%M") if result.start else "",
                    "scoring": result.scoring.value,
                    "movement": result.movement.value,
                    "weighting": result.weighting,
                    "pair": number,
                    "direction": pair.direction.value if pair.direction else "",
                    "player1_number": a.number or "",
                    "player1_name": a.name,
                    "player2_number": b.number or "",
                    "player2_name": b.name,
                    "score": _number(pair.score) if pair.score is not None else "",
                    "direction_mean": _number(pair.direction_mean)
                    if pair.direction_mean is not None
                    else "",
                    "boards": pair.boards if pair.boards is not None else "",
                    "rateable": "" if pair.rateable else "N",
                }
            )
    return out.getvalue().encode("utf-8")


def _el(tag: str, value: object) -> str:
    text = str(value)
    if "&" in text or "<" in text or ">" in text:
        text = escape(text)
    return f"<{tag}>{text}</{tag}>"


def _player(player) -> str:
    rateable = "Y" if player.rateable else "N"
    number = _el("NATIONAL_ID_NUMBER", player.number) if player.number else ""
    return f'<PLAYER RATEABLE="{rateable}">{_el("PLAYER_NAME", player.name)}{number}</PLAYER>'


def _header(
    result: SessionResult, event_type: str, method: str, charge: str, extra: str = ""
) -> str:
    green = result.weighting == 3
    scale = "County" if result.weighting in (2, 3) else "Club"
    parts = [
        _el("EVENT_IDENTIFIER", result.key.event_id),
        _el("EVENT_DESCRIPTION", result.event_name),
        _el("PROGRAM_NAME", "bridge-grading simulator"),
        _el("PROGRAM_VERSION", "1"),
        _el("DATE", result.date.strftime("%d/%m/%Y")),
        _el("BOARD_SCORING_METHOD", method),
        _el("MASTER_POINT_SCALE", scale),
        _el("MASTER_POINT_TYPE", "GREEN" if green else "BLACK"),
        _el("P2P_CHARGE_RATE", "60" if green else charge),
    ]
    if result.boards:
        parts.append(_el("BOARDS_PLAYED", result.boards))
    return f'<EVENT EVENT_TYPE="{event_type}">' + "".join(parts) + extra


_PAIRS_METHOD = {
    Scoring.MP: ("MATCH_POINTS", Method.MP, ("NS_MATCH_POINTS", "EW_MATCH_POINTS")),
    Scoring.BUTLER: ("BUTLER_IMPS", Method.BUTLER, ("NS_BUTLER_POINTS", "EW_BUTLER_POINTS")),
    Scoring.CROSS_IMP: (
        "CROSS_IMPS",
        Method.CROSS_IMP,
        ("NS_CROSS_IMP_POINTS", "EW_CROSS_IMP_POINTS"),
    ),
    Scoring.AGGREGATE: ("AGGREGATE", Method.AGGREGATE, None),
}


def _line(line, points: tuple[str, str] | None = None, values=None, direction: str = "") -> str:
    ns, ew = _split_id(line.ns_pair), _split_id(line.ew_pair)
    parts = [_el("DIRECTION", direction)] if direction else []
    parts += [
        _el("NS_PAIR_NUMBER", ns),
        _el("EW_PAIR_NUMBER", ew),
        _el("CONTRACT", line.contract),
        _el("PLAYED_BY", line.declarer),
        _el("TRICKS", line.tricks if line.tricks is not None else ""),
        _el("SCORE", line.ns_score),
    ]
    if points and values is not None:
        parts += [_el(points[0], _number(values[0])), _el(points[1], _number(values[1]))]
    return "<TRAVELLER_LINE>" + "".join(parts) + "</TRAVELLER_LINE>"


def _split_id(pair_id: str) -> str:
    for suffix in ("NS", "EW"):
        if pair_id.endswith(suffix) and pair_id[: -len(suffix)].isdigit():
            return pair_id[: -len(suffix)]
    return pair_id


def _document(club_name: str, club_number: str, event: str) -> bytes:
    text = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<!DOCTYPE USEBIO SYSTEM "http://www.ebu.co.uk/usebio/usebio_v1_2.dtd">\n'
        '<USEBIO Version="1.2">'
        f"<CLUB>{_el('CLUB_NAME', club_name)}"
        f"{_el('CLUB_ID_NUMBER', club_number) if club_number else ''}</CLUB>"
        f"{event}</EVENT></USEBIO>\n"
    )
    return text.encode("utf-8")


def _values(sim: SimSession, line, method: Method, lines: list) -> tuple[float, float]:
    """A line's (NS, EW) values: as the simulator scored them, or scored here."""
    known = sim.line_values.get((line.board, line.ns_pair))
    if known is None:
        board = score_board(lines, method, len(lines))
        known = next((r.ns, r.ew) for r in board.lines if r.ns_pair == line.ns_pair)
    return float(known[0]), float(known[1])


def _pairs_event(sim: SimSession) -> str:
    result = sim.result
    method_name, method, points = _PAIRS_METHOD[result.scoring]
    winner = "2" if result.movement is Movement.TWO_WINNER else "1"
    header = _header(result, "PAIRS", method_name, sim.charge, _el("WINNER_TYPE", winner))
    pairs = []
    for pair in result.pairs:
        score = (
            _el("PERCENTAGE", _number(pair.score))
            if result.scoring is Scoring.MP
            else _el("TOTAL_SCORE", _number(pair.score))
        )
        direction = _el("DIRECTION", pair.direction.value) if pair.direction else ""
        pairs.append(
            f"<PAIR>{_el('PAIR_NUMBER', _split_id(pair.pair_id))}{direction}{score}"
            f"{_el('BOARDS_PLAYED', pair.boards)}"
            + "".join(_player(p) for p in pair.players)
            + "</PAIR>"
        )
    boards: dict[int, list] = {}
    for line in result.travellers:
        boards.setdefault(line.board, []).append(line)
    board_xml = []
    for number, lines in boards.items():
        values = None
        if points is not None:
            values = [_values(sim, line, method, lines) for line in lines]
        body = "".join(
            _line(line, points, values[i] if values else None) for i, line in enumerate(lines)
        )
        board_xml.append(f"<BOARD>{_el('BOARD_NUMBER', number)}{body}</BOARD>")
    return (
        header
        + '<SESSION SESSION_ID="1"><SECTION SECTION_ID="A"><PARTICIPANTS>'
        + "".join(pairs)
        + "</PARTICIPANTS>"
        + "".join(board_xml)
        + "</SECTION></SESSION>"
    )


def _swiss_event(sim: SimSession) -> str:
    result = sim.result
    imps = result.scoring is Scoring.SWISS_PAIRS_IMP
    header = _header(
        result,
        "SWISS_PAIRS",
        "BUTLER_IMPS" if imps else "MATCH_POINTS",
        sim.charge,
        _el("MATCH_SCORING_METHOD", "VPS"),
    )
    standings = dict(
        item.split(":") for item in dict(result.extra).get("standings", "").split(",") if item
    )
    pairs = []
    for pair in result.pairs:
        total = standings.get(pair.pair_id, "0")
        pairs.append(
            f"<PAIR>{_el('PAIR_NUMBER', pair.pair_id)}{_el('TOTAL_SCORE', total)}"
            f"{_el('BOARDS_PLAYED', pair.boards)}"
            + "".join(_player(p) for p in pair.players)
            + "</PAIR>"
        )
    by_round: dict[tuple[int, str], list] = {}
    for line in result.travellers:
        by_round.setdefault((line.board, line.ns_pair), []).append(line)
    matches = []
    it = iter(result.matches)
    for ns_match in it:
        ew_match = next(it)
        first = (ns_match.round - 1) * ns_match.boards
        numbers = [first + k + 1 for k in range(ns_match.boards)]
        lines = [by_round[(n, ns_match.pair_id)][0] for n in numbers]
        boards = "".join(
            f"<BOARD>{_el('BOARD_NUMBER', n)}{_line(line)}</BOARD>"
            for n, line in zip(numbers, lines, strict=True)
        )
        matches.append(
            "<MATCH>"
            + _el("ROUND_NUMBER", ns_match.round)
            + _el("NS_PAIR_NUMBER", ns_match.pair_id)
            + _el("EW_PAIR_NUMBER", ew_match.pair_id)
            + _el("NS_SCORE", _number(ns_match.score))
            + _el("EW_SCORE", _number(ew_match.score))
            + boards
            + "</MATCH>"
        )
    return (
        header
        + '<SESSION SESSION_ID="1"><PARTICIPANTS>'
        + "".join(pairs)
        + "</PARTICIPANTS>"
        + "".join(matches)
        + "</SESSION>"
    )


def _teams_event(sim: SimSession) -> str:
    result = sim.result
    extra = (
        _el("MATCH_SCORING_METHOD", "VPS")
        + _el("TEAM_PAIRING_AVAILABLE", "Y")
        + _el("PAIRWISE_SCORING_METHOD", "CROSS_IMPS")
    )
    header = _header(result, "TEAMS", "IMPS", sim.charge, extra)
    teams: dict[str, list] = {}
    for pair in result.pairs:
        teams.setdefault(pair.team, []).append(pair)
    vps: dict[int, float] = {}
    for m in sim.team_matches:
        vps[m.home] = vps.get(m.home, 0.0) + m.home_vp
        vps[m.away] = vps.get(m.away, 0.0) + m.away_vp
    team_xml = []
    for index, (name, members) in enumerate(teams.items()):
        body = "".join(
            f"<PAIR>{_el('PAIR_NUMBER', p.pair_id)}{_el('BOARDS_PLAYED', p.boards)}"
            f"{_el('PAIR_IMPS', _number(p.score))}"
            + "".join(_player(x) for x in p.players)
            + "</PAIR>"
            for p in members
        )
        team_xml.append(
            f"<TEAM TEAM_ID={quoteattr(str(index + 1))} TEAM_NAME={quoteattr(name)}>"
            f"{_el('TOTAL_SCORE', _number(vps.get(index, 0.0)))}{body}</TEAM>"
        )
    by_board: dict[int, list] = {}
    for line in result.travellers:
        by_board.setdefault(line.board, []).append(line)
    cross = {
        (line.board, line.ns_pair): _values(sim, line, Method.CROSS_IMP, by_board[line.board])
        for line in result.travellers
    }
    matches = []
    for m in sim.team_matches:
        home_a, away_a = f"{m.home + 1}-1-2", f"{m.away + 1}-1-2"
        boards = []
        for n in m.boards:
            lines = [x for x in by_board[n] if x.ns_pair in (home_a, away_a)]
            lines.sort(key=lambda x: x.ns_pair != home_a)
            body = "".join(
                _line(
                    x,
                    ("NS_CROSS_IMP_POINTS", "EW_CROSS_IMP_POINTS"),
                    cross[(n, x.ns_pair)],
                    "NS" if x.ns_pair == home_a else "EW",
                )
                for x in lines
            )
            boards.append(f"<BOARD>{_el('BOARD_NUMBER', n)}{body}</BOARD>")
        matches.append(
            "<MATCH>"
            + _el("ROUND_NUMBER", m.round)
            + _el("TEAM", m.home + 1)
            + _el("OPPOSING_TEAM", m.away + 1)
            + _el("START_BOARD_NUMBER", m.boards[0])
            + _el("END_BOARD_NUMBER", m.boards[-1])
            + _el("TEAM_SCORE", _number(m.home_vp))
            + _el("OPPOSING_TEAM_SCORE", _number(m.away_vp))
            + "".join(boards)
            + "</MATCH>"
        )
    return (
        header
        + '<SESSION SESSION_ID="1"><PARTICIPANTS>'
        + "".join(team_xml)
        + "</PARTICIPANTS>"
        + "".join(matches)
        + "</SESSION>"
    )


def usebio_bytes(sim: SimSession, club_name: str, club_number: str) -> bytes:
    """One USEBIO 1.2 file for one simulated session, with its travellers."""
    scoring = sim.result.scoring
    if scoring in (Scoring.SWISS_PAIRS_IMP, Scoring.SWISS_PAIRS_MP):
        event = _swiss_event(sim)
    elif scoring is Scoring.MULTIPLE_TEAMS:
        event = _teams_event(sim)
    else:
        event = _pairs_event(sim)
    return _document(club_name, club_number, event)
