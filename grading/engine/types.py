"""Input types shared by the engine and the parsers: what a results file says about a session.

Pure data (frozen dataclasses). Parsers in ``grading.ingest`` build these; the NGS, PPI and
Brambledown engines read them. Outputs (grades) live beside the code that computes them.
"""

from __future__ import annotations

import datetime as dt
import enum
from dataclasses import dataclass, field

from grading.engine.scoring import TravellerLine

__all__ = [
    "Direction",
    "Movement",
    "Scoring",
    "NOT_GRADED_SCORING",
    "PAIRS_SCORING",
    "SWISS_PAIRS_SCORING",
    "TEAMS_SCORING",
    "TEAM_EVENT_SCORING",
    "PERCENT_SCORING",
    "IMP_SCORING",
    "Player",
    "PairEntry",
    "SwissMatch",
    "SessionKey",
    "SessionResult",
    "TravellerLine",
    "normalise_number",
    "UNKNOWN_NUMBERS",
]


class Scoring(str, enum.Enum):
    """How a session is scored (S3.1). The first group is graded by the NGS."""

    MP = "MP"  # match-pointed pairs
    BUTLER = "BUTLER"  # Butler-IMP pairs
    CROSS_IMP = "CROSS_IMP"  # cross-IMP pairs (per-board averages summed, S2.5)
    AGGREGATE = "AGGREGATE"  # total points
    SWISS_PAIRS_MP = "SWISS_PAIRS_MP"  # Swiss pairs, match points per match
    SWISS_PAIRS_IMP = "SWISS_PAIRS_IMP"  # Swiss pairs, IMPs per match before VPs
    SWISS_TEAMS = "SWISS_TEAMS"  # graded per pair on cross-IMPs (S3.6)
    MULTIPLE_TEAMS = "MULTIPLE_TEAMS"  # graded per pair on cross-IMPs (S3.6)
    TEAM_LEAGUE = "TEAM_LEAGUE"  # graded only when boards are played at > 2 tables
    # Not graded (S3.1): stored and shown with the reason.
    INDIVIDUAL = "INDIVIDUAL"
    HEAD_TO_HEAD = "HEAD_TO_HEAD"  # teams of four, boards at two tables only
    POINT_A_BOARD = "POINT_A_BOARD"


NOT_GRADED_SCORING = frozenset({Scoring.INDIVIDUAL, Scoring.HEAD_TO_HEAD, Scoring.POINT_A_BOARD})
# The scorings by kind, one home for every layer (a ``str`` value of the database's choices is
# found in them too: names and values are the same).
PAIRS_SCORING = frozenset({Scoring.MP, Scoring.BUTLER, Scoring.CROSS_IMP, Scoring.AGGREGATE})
SWISS_PAIRS_SCORING = frozenset({Scoring.SWISS_PAIRS_MP, Scoring.SWISS_PAIRS_IMP})
TEAMS_SCORING = frozenset({Scoring.SWISS_TEAMS, Scoring.MULTIPLE_TEAMS, Scoring.TEAM_LEAGUE})
# Teams of four of any kind, graded (S3.6) or not (S3.1).
TEAM_EVENT_SCORING = TEAMS_SCORING | {Scoring.HEAD_TO_HEAD, Scoring.POINT_A_BOARD}
PERCENT_SCORING = frozenset({Scoring.MP, Scoring.SWISS_PAIRS_MP})
# A pair's own score in IMPs (S2.4, S2.5); the teams' pairs are scored in IMPs too (S3.6).
IMP_SCORING = frozenset({Scoring.BUTLER, Scoring.CROSS_IMP, Scoring.SWISS_PAIRS_IMP})


class Movement(str, enum.Enum):
    ONE_WINNER = "ONE_WINNER"  # Howell, arrow-switched Mitchell: one comparison group
    TWO_WINNER = "TWO_WINNER"  # Mitchell: NS and EW ranked separately


class Direction(str, enum.Enum):
    NS = "NS"
    EW = "EW"


UNKNOWN_NUMBERS = frozenset({"", "0", "-", "88888888"})


def normalise_number(raw: str | None) -> str | None:
    """A membership number as stored, or None for an unknown player (S14.2).

    Spaces and leading zeros are stripped; empty, ``0``, ``-`` and ``88888888`` mean unknown.
    """
    if raw is None:
        return None
    stripped = "".join(str(raw).split()).lstrip("0")
    return None if stripped in UNKNOWN_NUMBERS else stripped  # "088888888" is 88888888


@dataclass(frozen=True)
class Player:
    """A player as a file names them. ``number`` is normalised; None means unknown (S3.8)."""

    number: str | None
    name: str = ""
    rateable: bool = True  # USEBIO RATEABLE="N": an approved host (S12, S14.4)

    @property
    def known(self) -> bool:
        return self.number is not None


@dataclass(frozen=True)
class PairEntry:
    """One pair's line in a session's results.

    ``score`` is in the session's own units (S3.3): percent for match points, the session IMP
    total for Butler and cross-IMPs (cross-IMPs as a sum of per-board averages, S2.5), points
    for aggregate; for Swiss and teams the per-pair figure that grading uses, when the file
    gives one. ``boards`` is None when the file does not say (S3.7: 24 is assumed).
    """

    pair_id: str
    players: tuple[Player, Player]
    score: float | None
    direction: Direction | None = None
    boards: int | None = None
    direction_mean: float | None = None  # aggregate only
    section: str = ""  # a file's section label, for messages and display
    team: str = ""  # teams events: the team the pair played for

    @property
    def rateable(self) -> bool:
        return all(p.rateable for p in self.players)

    @property
    def known(self) -> bool:
        return all(p.known for p in self.players)


@dataclass(frozen=True)
class SwissMatch:
    """One match of a Swiss pairs or teams event from one pair's point of view (S3.2).

    ``opponents`` are the pair ids the pair met at the table in that match; ``score`` is the
    pair's result in the match before any VP conversion (match-point percent or IMPs).
    """

    pair_id: str
    round: int
    opponents: tuple[str, ...]
    boards: int
    score: float


@dataclass(frozen=True)
class SessionKey:
    """The identity of a session (S14.1): club, event id, session number, date of play."""

    club: str
    event_id: str
    session: int
    date: dt.date


@dataclass(frozen=True)
class SessionResult:
    """Everything a results file says about one session that grading needs.

    ``graded_flag`` False with ``not_graded_reason`` records a session stored but not graded
    for a reason known at parse time (charge code, overall-results file, club's choice,
    teaching session). Rules that depend on the players (S3.8) are applied by the engine.
    """

    key: SessionKey
    event_name: str
    scoring: Scoring
    movement: Movement
    pairs: tuple[PairEntry, ...]
    weighting: int = 1  # S3.10: 1 club, 2 black points, 3 green-pointed
    start: dt.time | None = None  # start of play, for the host-exemption deadline (S3.9)
    boards: int | None = None  # boards in the session, when known
    travellers: tuple[TravellerLine, ...] = ()
    matches: tuple[SwissMatch, ...] = ()
    graded_flag: bool = True
    not_graded_reason: str = ""
    source: str = ""  # the program that wrote the file, for display
    extra: tuple[tuple[str, str], ...] = field(default=())  # header facts worth keeping

    @property
    def date(self) -> dt.date:
        return self.key.date
