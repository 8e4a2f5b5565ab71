"""What the database can hold, checked when a file is read (issue 21: a value too long for its
column must be refused with the place it came from, before anything is stored; S12: uploads are
all or nothing).

The lengths are copies of the models' ``max_length`` (the parsers are pure Python and may not
import the models); ``tests/ingest/test_limits.py`` fails when a model and this table disagree.
The earliest date of play and the largest file are parameters of
:func:`grading.ingest.parse_file`; the product passes its ``EARLIEST_PLAY_DATE`` and
``UPLOAD_MAX_BYTES`` settings, whose defaults are the two constants here.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterator

from grading.engine.types import (
    IMP_SCORING,
    PERCENT_SCORING,
    TEAMS_SCORING,
    Scoring,
    SessionResult,
)
from grading.ingest.problems import FileMeta, Problem

EARLIEST_PLAY_DATE = dt.date(2000, 1, 1)
MAX_UPLOAD_BYTES = 10 * 1024 * 1024  # S12: 10 MB per file

# Column lengths, as in the models named beside each one.
EVENT_ID_LENGTH = 200  # grading.models.Event.event_id
EVENT_NAME_LENGTH = 255  # grading.models.Event.name
REASON_LENGTH = 255  # grading.models.SessionVersion.not_graded_reason
PAIR_ID_LENGTH = 20  # PairResult.pair_id, Match.pair_id, TravellerLine.ns_pair/ew_pair
SECTION_LENGTH = 20  # grading.models.PairResult.section
TEAM_LENGTH = 100  # grading.models.PairResult.team
PLAYER_NAME_LENGTH = 200  # PairResult.player1_name/player2_name, members.Member.name
MEMBER_NUMBER_LENGTH = 20  # members.Member.national_number
CLUB_NAME_LENGTH = 200  # clubs.Club.name
CLUB_NUMBER_LENGTH = 20  # clubs.Club.national_number
CONTRACT_LENGTH = 20  # grading.models.TravellerLine.contract
DECLARER_LENGTH = 2  # grading.models.TravellerLine.declarer
LEAD_LENGTH = 4  # grading.models.TravellerLine.lead
ADJUSTED_LENGTH = 8  # grading.models.TravellerLine.ns_adjusted/ew_adjusted
# PositiveSmallIntegerField (session and round numbers, board numbers and counts).
SMALL_NUMBER_MAX = 32767

_SHOWN = 40  # characters of an over-long value quoted in a message


def date_problem(date: dt.date, earliest: dt.date) -> str | None:
    """Why a date of play cannot be accepted, or None. A date before the earliest date is a
    typing slip or a damaged file (issue 21: year 1 took a club's pages down)."""
    if date >= earliest:
        return None
    return (
        f"The date of play, {date.day:02d}/{date.month:02d}/{date.year:04d}, is before "
        f"{earliest.day:02d}/{earliest.month:02d}/{earliest.year:04d}, the earliest date "
        "of play the product accepts. Correct the session's date in your scoring program and "
        "export the results again."
    )


def shown(value: str) -> str:
    """An over-long value as a message quotes it: its start and its length."""
    value = " ".join(value.split())
    if len(value) <= _SHOWN:
        return f'"{value}"'
    return f'"{value[:_SHOWN]}..." ({len(value)} characters)'


def player_shown(name: str) -> str:
    """A player as a message names them: their name as the file gives it, quoted after the
    message's own words (a name may start with anything), or "a player" when it gives none."""
    return shown(name) if name else "a player"


def brief(value: str) -> str:
    """A value as a location names it: as written, or its start when it is over-long."""
    return value if len(value) <= _SHOWN else shown(value)


def meta_problems(meta: FileMeta) -> list[Problem]:
    """The club named in the file: an operator's import may create a club from it."""
    problems = []
    if len(meta.club_name) > CLUB_NAME_LENGTH:
        problems.append(_long("the club", "The club's name", meta.club_name, CLUB_NAME_LENGTH))
    if meta.national_club_id and len(meta.national_club_id) > CLUB_NUMBER_LENGTH:
        problems.append(
            _long("the club", "The club's number", meta.national_club_id, CLUB_NUMBER_LENGTH)
        )
    return problems


def session_problems(session: SessionResult) -> list[Problem]:
    """Every text and small number of a session checked against its column."""
    return list(_session_problems(session))


def _session_problems(session: SessionResult) -> Iterator[Problem]:
    event = session.event_name or session.key.event_id
    name = brief(event)
    where = f"{name}, session of {session.date:%d %b %Y}" if session.date else name
    if len(session.key.event_id) > EVENT_ID_LENGTH:
        yield _long(where, "The event's identifier", session.key.event_id, EVENT_ID_LENGTH)
    if len(session.event_name) > EVENT_NAME_LENGTH:
        yield _long(where, "The event's name", session.event_name, EVENT_NAME_LENGTH)
    if len(session.not_graded_reason) > REASON_LENGTH:
        yield _long(where, "The reason", session.not_graded_reason, REASON_LENGTH)
    if not 0 < session.key.session <= SMALL_NUMBER_MAX:
        yield _number(where, "The session number", session.key.session)
    if session.boards is not None and not 0 <= session.boards <= SMALL_NUMBER_MAX:
        yield _number(where, "The number of boards", session.boards)
    for pair in session.pairs:
        at = f"{where}, pair {brief(pair.pair_id)}"
        if len(pair.pair_id) > PAIR_ID_LENGTH:
            yield _long(at, "The pair number", pair.pair_id, PAIR_ID_LENGTH)
        if len(pair.section) > SECTION_LENGTH:
            yield _long(at, "The section", pair.section, SECTION_LENGTH)
        if len(pair.team) > TEAM_LENGTH:
            yield _long(at, "The team's name", pair.team, TEAM_LENGTH)
        for seat, player in enumerate(pair.players, start=1):
            if len(player.name) > PLAYER_NAME_LENGTH:
                yield _long(f"{at}, player {seat}", "The name", player.name, PLAYER_NAME_LENGTH)
            if player.number is not None and len(player.number) > MEMBER_NUMBER_LENGTH:
                yield _long(
                    f"{at}, player {seat}",
                    "The membership number",
                    player.number,
                    MEMBER_NUMBER_LENGTH,
                )
    yield from _traveller_problems(where, session)
    for match in session.matches:
        at = f"{where}, pair {brief(match.pair_id)}, round {match.round}"
        if not 0 <= match.round <= SMALL_NUMBER_MAX:
            yield _number(at, "The round number", match.round)
        if not 0 <= match.boards <= SMALL_NUMBER_MAX:
            yield _number(at, "The number of boards", match.boards)


def _traveller_problems(where: str, session: SessionResult) -> Iterator[Problem]:
    fields = (
        ("contract", "The contract", CONTRACT_LENGTH),
        ("declarer", "The declarer", DECLARER_LENGTH),
        ("lead", "The opening lead", LEAD_LENGTH),
        ("ns_adjusted", "The adjusted score", ADJUSTED_LENGTH),
        ("ew_adjusted", "The adjusted score", ADJUSTED_LENGTH),
    )
    for line in session.travellers:
        at = f"{where}, board {line.board}, pairs {brief(line.ns_pair)} and {brief(line.ew_pair)}"
        if not 0 < line.board <= SMALL_NUMBER_MAX:
            yield _number(at, "The board number", line.board)
        if line.tricks is not None and not 0 <= line.tricks <= 13:
            yield Problem(
                at,
                f"The tricks taken, {line.tricks}, must be from 0 to 13. Correct the traveller "
                "in your scoring program and export the results again.",
                code="implausible",
            )
        for attr, what, limit in fields:
            value = getattr(line, attr) or ""
            if len(value) > limit:
                yield _long(at, what, value, limit)


def _long(where: str, what: str, value: str, limit: int) -> Problem:
    return Problem(
        where,
        f"{what} {shown(value)} is longer than the {limit} characters the product can keep. "
        "Shorten it in your scoring program and export the results again.",
        code="too-long",
    )


def _number(where: str, what: str, value: int) -> Problem:
    return Problem(
        where,
        f"{what}, {value}, is not one a club session can have (from 1 to {SMALL_NUMBER_MAX}). "
        "Correct it in your scoring program and export the results again.",
        code="implausible",
    )


# S14.26: what a score can be in its units, a board at a time. Match points are a percentage;
# an IMP comparison gives at most 24 IMPs a board; a board's score in points is at most 7,600
# (13 tricks down, redoubled, vulnerable), so an aggregate total is at most 7,600 a board.
# Issue 32 item 5: a 25-digit aggregate was graded and put six players at +-1e21 on the top
# list; 30 digits took /me/ down.
MAX_PERCENT = 100.0
MAX_IMPS_PER_BOARD = 24
MAX_POINTS_PER_BOARD = 7600
ASSUMED_BOARDS = 24  # S3.7: when neither the pair nor the session says
# Teams of four are graded per pair on cross-IMPs (S3.6): their pairs' scores are IMPs too.
_IMP_SCORING = IMP_SCORING | TEAMS_SCORING
_ADVICE = "Check the pair's score in your scoring program and export the results again."


def score_problems(session: SessionResult) -> list[Problem]:
    """Every score of the session against what its board count allows in its units (S14.26):
    the pairs' totals, the Swiss matches and the travellers' points. Refused saying which pair
    or board, the figure and the limit."""
    return list(_score_problems(session))


def _figure(value: float) -> str:
    """A figure as a message quotes it, however large (never raises)."""
    if not math.isfinite(value):
        return "not a number"
    if abs(value) < 1e9:
        return f"{value:,.6g}" if abs(value) >= 1e6 else f"{value:g}"
    return f"{value:.3g}"


def _score_problem(where: str, pair_id: str, value: float, unit: str, boards: int) -> Problem:
    if not math.isfinite(value):
        message = f"Pair {pair_id}'s score is not a number. {_ADVICE}"
    elif unit == "percent":
        message = _percent_message(f"Pair {pair_id}", value)
    elif unit == "IMPs":
        message = (
            f"Pair {pair_id} has {_figure(value)} IMPs over {boards} boards, more than "
            f"{MAX_IMPS_PER_BOARD} a board (at most {MAX_IMPS_PER_BOARD * boards:,}). {_ADVICE}"
        )
    else:
        message = (
            f"Pair {pair_id} has {_figure(value)} points over {boards} boards, more than the "
            f"{MAX_POINTS_PER_BOARD:,} a board can give (at most "
            f"{MAX_POINTS_PER_BOARD * boards:,}). {_ADVICE}"
        )
    return Problem(where, message, code="implausible")


def percent_problem(who: str, value: float) -> str | None:
    """Why a match-point percentage cannot be (S14.26), or None: the one bound, which the
    readers apply where they read a pair's figure (their messages name the file's line, and
    every bad row is listed at once) and :func:`score_problems` applies to every reader's
    sessions. ``who`` names the pair as the file does ("Pair 3 in section A")."""
    return _percent_message(who, value) if _out_of_bounds(value, "percent", 1) else None


def _percent_message(who: str, value: float) -> str:
    return f"{who} has {_figure(value)}%; match points are from 0 to {MAX_PERCENT:g}%. {_ADVICE}"


def _out_of_bounds(value: float, unit: str, boards: int) -> bool:
    if not math.isfinite(value):
        return True
    if unit == "percent":
        return not 0 <= value <= MAX_PERCENT
    per_board = MAX_IMPS_PER_BOARD if unit == "IMPs" else MAX_POINTS_PER_BOARD
    return abs(value) > per_board * boards


def _unit(scoring: Scoring) -> str | None:
    if scoring in PERCENT_SCORING:
        return "percent"
    if scoring in _IMP_SCORING:
        return "IMPs"
    if scoring is Scoring.AGGREGATE:
        return "points"
    return None


def _score_problems(session: SessionResult) -> Iterator[Problem]:
    name = brief(session.event_name or session.key.event_id)
    unit = _unit(session.scoring)
    session_boards = session.boards if session.boards and session.boards > 0 else None
    for pair in session.pairs:
        where = f"{name}, pair {brief(pair.pair_id)}"
        boards = pair.boards if pair.boards and pair.boards > 0 else None
        boards = min(boards or session_boards or ASSUMED_BOARDS, SMALL_NUMBER_MAX)
        for value in (pair.score, pair.direction_mean):
            if value is None:
                continue
            if unit is None:
                if not math.isfinite(value):
                    yield _score_problem(where, pair.pair_id, value, "points", boards)
            elif _out_of_bounds(value, unit, boards):
                yield _score_problem(where, pair.pair_id, value, unit, boards)
                break
    match_unit = "percent" if session.scoring in PERCENT_SCORING else "IMPs"
    for match in session.matches:
        boards = min(max(match.boards, 1), SMALL_NUMBER_MAX)
        if _out_of_bounds(match.score, match_unit, boards):
            where = f"{name}, pair {brief(match.pair_id)}, round {match.round}"
            yield _score_problem(where, match.pair_id, match.score, match_unit, boards)
    for line in session.travellers:
        points = [line.ns_score, line.ew_score]
        points += [p for _, p in line.ns_weighted] + [p for _, p in line.ew_weighted]
        for value in points:
            if value is not None and abs(value) > MAX_POINTS_PER_BOARD:
                yield Problem(
                    f"{name}, board {line.board}, pairs {brief(line.ns_pair)} and "
                    f"{brief(line.ew_pair)}",
                    f"The score {value:,} is more than the {MAX_POINTS_PER_BOARD:,} points a "
                    "board can give. Correct the traveller in your scoring program and export "
                    "the results again.",
                    code="implausible",
                )
                break
