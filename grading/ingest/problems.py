"""What a parser hands back: sessions, or the problems that stop the upload (S12).

Upload is all-or-nothing: when ``problems`` is not empty, ``sessions`` is empty and nothing may
be stored. ``warnings`` never stop an upload; they are shown to the administrator beside it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from grading.engine.types import SessionKey, SessionResult

__all__ = ["FileMeta", "ParseResult", "Problem", "ProblemLog"]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a file, where it is and what to do about it.

    ``location`` is an element path (``EVENT/PARTICIPANTS/PAIR[3]/PLAYER[1]``), a CSV or PBN
    line (``line 12, column score``) or ``file`` for the file as a whole. ``line`` repeats the
    line number when one is known. ``code`` is a short stable key for programs and tests.
    """

    location: str
    message: str
    line: int | None = None
    code: str = ""

    def __str__(self) -> str:
        where = self.location
        if self.line is not None and f"line {self.line}" not in where:
            where = f"{where} (line {self.line})"
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class FileMeta:
    """Facts about the file as a whole, for the caller's checks (S12: a file for another club
    is refused; bulk import finds the club by its national id)."""

    format: str = "unknown"  # "usebio", "pbn", "csv" or "unknown"
    format_version: str = ""  # USEBIO Version attribute, PBN version comment
    program: str = ""  # program name and version, as written
    national_club_id: str | None = None  # CLUB_ID_NUMBER, leading zeros stripped
    club_name: str = ""
    event_type: str = ""  # USEBIO EVENT_TYPE as written
    charge_code: str = ""  # P2P_CHARGE_RATE / EBU_CHARGE_CODE as written
    encoding: str = ""  # the encoding the text was finally read with


# The file's own figure for one pair on one board (percent at match points, IMPs otherwise),
# by session: what the traveller lines say, for naming the boards where the product's scoring
# of them differs (S14.21).
LineFigures = dict[SessionKey, dict[tuple[str, int], float]]


@dataclass(frozen=True)
class ParseResult:
    sessions: tuple[SessionResult, ...] = ()
    problems: tuple[Problem, ...] = ()
    warnings: tuple[Problem, ...] = ()
    meta: FileMeta = field(default_factory=FileMeta)
    line_figures: LineFigures = field(default_factory=dict, compare=False, repr=False)

    @property
    def ok(self) -> bool:
        return not self.problems


class ProblemLog:
    """Collects problems and warnings while a parser walks a file."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []
        self.line_figures: LineFigures = {}

    def problem(
        self, location: str, message: str, *, line: int | None = None, code: str = ""
    ) -> None:
        self.problems.append(Problem(location, message, line, code))

    def warn(self, location: str, message: str, *, line: int | None = None, code: str = "") -> None:
        self.warnings.append(Problem(location, message, line, code))

    def result(
        self, sessions: tuple[SessionResult, ...] | list[SessionResult], meta: FileMeta
    ) -> ParseResult:
        if self.problems:
            return ParseResult((), tuple(self.problems), tuple(self.warnings), meta)
        return ParseResult(tuple(sessions), (), tuple(self.warnings), meta, self.line_figures)
