"""NGS data types: histories (inputs to the decay) and outputs (grades), all frozen."""

from __future__ import annotations

import datetime as dt
import enum
from dataclasses import dataclass

from grading.engine.types import SessionKey

__all__ = [
    "Status",
    "HistoryEntry",
    "History",
    "PlayerStanding",
    "CurrentGrade",
    "PairOutcome",
    "PlayerSessionGrade",
    "PartnershipSessionGrade",
    "SessionOutcome",
    "PartnershipKey",
    "partnership_key",
    "Reason",
]


class Status(str, enum.Enum):
    """Grade status (S4)."""

    PROVISIONAL = "P"
    EVOLVING = "E"
    MATURE = "M"
    OUT_OF_DATE = "O"


class Reason:
    """Reasons a session or a player gets no grade (S3.1, S3.8, S3.9, S9.1, S14.3, S14.4)."""

    CLUB_NON_GRADED = "club marked the session non-graded"
    INDIVIDUAL = "individual event: not graded"
    HEAD_TO_HEAD = "head-to-head teams (boards at two tables only): not graded"
    POINT_A_BOARD = "point-a-board teams: not graded"
    TWO_TABLES = "team league with boards at two tables only: not graded"
    TOO_FEW_KNOWN = "not more than 2/3 of the pairs are known: not graded"
    TOO_FEW_KNOWN_PLAYERS = "not more than 2/3 of the players are known: not graded"
    NO_PAIRS = "fewer than two pairs: not graded"
    PARTNER_UNKNOWN = "partner unknown: not graded"
    HOST = "host \u2014 not graded"
    NO_OPPONENTS = "no opponents: not graded"
    NO_SCORE = "no score reported: not graded"
    PARTNER_NEW = "partner new: not graded"


PartnershipKey = tuple[str, str]


def partnership_key(a: str, b: str) -> PartnershipKey:
    """The order-free key of a partnership of two members (S6)."""
    return (a, b) if a <= b else (b, a)


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One graded session in a player's (or partnership's) history (S4).

    ``pad`` is the padding value of a career that this entry starts when it is not the
    subject's first career: None means the restart grade (S5.1, 50); partnerships store the
    players' average at the start of that session (S14.10).
    """

    seq: int
    date: dt.date
    boards: int
    grade: float
    factor: float = 1.0
    partner: str | None = None
    pad: float | None = None


@dataclass(frozen=True)
class History:
    """A subject's live graded sessions plus the padding value of its first career (S5.1)."""

    initial: float
    entries: tuple[HistoryEntry, ...] = ()


@dataclass(frozen=True)
class PlayerStanding:
    """What grading a session needs to know about a member at its start (S5.2)."""

    grade: float
    status: Status = Status.PROVISIONAL
    graded_boards: int = 0  # live graded boards ever (S9.1 "fewer than 150 graded boards")
    regular_partner: str | None = None  # the partner with > 85% of the window's sessions


@dataclass(frozen=True)
class CurrentGrade:
    """A current grade (S4, S14.7-8, S14.11). ``grade`` is unrounded; ``band`` uses 2 decimals."""

    grade: float
    status: Status
    band: str
    boards_in_window: int  # unreduced boards of the last 3 years, no factors (S14.8)
    padding_boards: int
    sessions_in_window: int  # sessions with weight (the 2000-board window)
    as_of: dt.date
    regular_partner: str | None = None
    subject: str = ""  # member number, or "a+b" for a partnership

    @property
    def shown(self) -> str:
        return f"{self.grade:.2f}"

    @property
    def published(self) -> bool:
        """Shown to others at all (S7: provisional grades are shown only to the member)."""
        return self.status is not Status.PROVISIONAL


@dataclass(frozen=True)
class PairOutcome:
    """One pair's figures in a session: the parts every player record repeats (S3.2-S3.5)."""

    pair_id: str
    numbers: tuple[str | None, str | None]
    known: bool
    host: bool
    boards: int
    boards_reported: bool
    score: float | None
    score_term: float | None
    grade_value: float  # the pair's average grade used as opponents (h_u for unknowns, S3.8)
    sopp: float | None
    par: float | None  # in the session's units (S3.5)
    excess: float | None
    group: str = ""


@dataclass(frozen=True)
class PlayerSessionGrade:
    """A member's session grade with its parts, or the reason it was not graded (S3.4)."""

    number: str
    pair_id: str
    partner: str | None
    grade_before: float
    partner_grade: float | None
    sopp: float | None
    score_term: float | None
    excess: float | None
    regular_adjustment: float
    gain: float
    par: float | None
    boards: int
    boards_reported: bool
    factor: float
    session_grade: float | None
    reason: str = ""

    @property
    def graded(self) -> bool:
        return self.session_grade is not None


@dataclass(frozen=True)
class PartnershipSessionGrade:
    """A partnership's session grade (S6, S14.10): ``SG_p = PG + gain (t + SOpp - PG)``."""

    key: PartnershipKey
    pair_id: str
    grade_before: float
    pair_average: float
    sopp: float
    score_term: float
    excess: float
    boards: int
    factor: float
    session_grade: float


@dataclass(frozen=True)
class SessionOutcome:
    """The result of grading one session version (S3)."""

    key: SessionKey
    graded: bool
    reason: str
    sof: float | None
    known_pairs: int
    total_pairs: int
    pairs: tuple[PairOutcome, ...] = ()
    players: tuple[PlayerSessionGrade, ...] = ()
    partnerships: tuple[PartnershipSessionGrade, ...] = ()
    host_pair: str | None = None
    warnings: tuple[str, ...] = ()

    def player(self, number: str) -> PlayerSessionGrade:
        for record in self.players:
            if record.number == number:
                return record
        raise KeyError(number)
