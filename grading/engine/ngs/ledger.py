"""The NGS ledger and its fold (S5.2-S5.4, S14.6, S14.7, S14.9).

The ledger is an append-only sequence of operations, each with a sequence number: process a
session version, or withdraw one. Every grade is a deterministic function of the ledger:
``apply`` performs one operation on a :class:`ReplayState` and returns that step's outputs;
``replay`` folds a whole ledger from empty. The state keeps each subject's live history in a
:class:`SubjectHistory`; ``path="reference"`` recomputes grades from whole histories
(``decay``), ``path="fast"`` uses the incremental windows of ``window`` (``incremental``).
"""

from __future__ import annotations

import copy
import datetime as dt
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from grading.engine.ngs.decay import current_grade
from grading.engine.ngs.incremental import IncrementalHistory
from grading.engine.ngs.params import NGS_DEFAULT, NGSParams
from grading.engine.ngs.session import grade_session, why_not_graded
from grading.engine.ngs.types import (
    CurrentGrade,
    History,
    HistoryEntry,
    PartnershipKey,
    PlayerStanding,
    SessionOutcome,
)
from grading.engine.types import SessionResult

__all__ = [
    "ProcessOp",
    "WithdrawOp",
    "LedgerOp",
    "LedgerError",
    "StepResult",
    "SubjectHistory",
    "ReferenceHistory",
    "ReplayState",
    "apply",
    "replay",
    "correction",
    "compare_steps",
    "partnership_subject",
]

Path = Literal["reference", "fast"]


@dataclass(frozen=True)
class ProcessOp:
    """Process one graded session version (S5.2). ``host_pair`` is an approved host request
    (S3.9); without it the file's first non-rateable pair is the host (S14.4)."""

    seq: int
    version: str
    session: SessionResult
    host_pair: str | None = None


@dataclass(frozen=True)
class WithdrawOp:
    """Withdraw a processed version: its session grades leave every history (S5.3)."""

    seq: int
    version: str


LedgerOp = ProcessOp | WithdrawOp


class LedgerError(ValueError):
    """An operation that the ledger's rules forbid (sequence order, unknown version...)."""


@dataclass(frozen=True)
class StepResult:
    """What one ledger operation produced, for the Django layer to store (S5.4).

    ``current_grades`` and ``partnership_grades`` are the grades of the subjects whose
    histories the step touched, as of ``reference_date`` (the latest date of play among the
    live versions after the step).
    """

    seq: int
    kind: Literal["process", "withdraw"]
    version: str
    reference_date: dt.date
    outcome: SessionOutcome | None
    current_grades: tuple[CurrentGrade, ...]
    partnership_grades: tuple[CurrentGrade, ...]


class SubjectHistory(Protocol):
    """A player's or partnership's live graded sessions, able to give its current grade."""

    initial: float

    def add(self, entry: HistoryEntry) -> None: ...

    def remove(self, seq: int) -> None: ...

    def grade(
        self, as_of: dt.date, params: NGSParams, restart: float | None = None, subject: str = ""
    ) -> CurrentGrade: ...

    def graded_boards(self) -> int: ...

    def last_date(self) -> dt.date | None: ...

    def session_count(self) -> int: ...

    def history(self) -> History: ...


class ReferenceHistory:
    """Recomputes every grade from the whole history (the transcription of S4)."""

    def __init__(self, initial: float) -> None:
        self.initial = initial
        self.entries: list[HistoryEntry] = []

    def add(self, entry: HistoryEntry) -> None:
        self.entries.append(entry)

    def remove(self, seq: int) -> None:
        self.entries = [e for e in self.entries if e.seq != seq]

    def grade(
        self, as_of: dt.date, params: NGSParams, restart: float | None = None, subject: str = ""
    ) -> CurrentGrade:
        return current_grade(self.history(), as_of, params, restart=restart, subject=subject)

    def graded_boards(self) -> int:
        return sum(e.boards for e in self.entries)

    def last_date(self) -> dt.date | None:
        return max((e.date for e in self.entries), default=None)

    def session_count(self) -> int:
        return len(self.entries)

    def history(self) -> History:
        return History(self.initial, tuple(self.entries))


@dataclass(frozen=True)
class LiveVersion:
    seq: int
    date: dt.date
    players: tuple[str, ...]
    partnerships: tuple[PartnershipKey, ...]


def partnership_subject(key: PartnershipKey) -> str:
    return f"{key[0]}+{key[1]}"


class ReplayState:
    """Everything the fold needs between operations. Rebuildable by ``replay`` at any time;
    ``copy()`` gives an independent snapshot."""

    def __init__(self, params: NGSParams = NGS_DEFAULT, path: Path = "reference") -> None:
        self.params = params
        self.path: Path = path
        self.players: dict[str, SubjectHistory] = {}
        self.partnerships: dict[PartnershipKey, SubjectHistory] = {}
        self.live: dict[str, LiveVersion] = {}
        self.live_dates: Counter[dt.date] = Counter()
        self.last_seq = 0
        self.steps: list[StepResult] = []
        self._latest: dt.date | None = None

    def new_history(self, initial: float) -> SubjectHistory:
        if self.path == "fast":
            return IncrementalHistory(initial)
        return ReferenceHistory(initial)

    def latest_date(self) -> dt.date | None:
        """The latest date of play among live versions (S14.6)."""
        if self.path == "reference":
            live = [d for d, n in self.live_dates.items() if n > 0]
            return max(live) if live else None
        return self._latest

    def _date_added(self, date: dt.date) -> None:
        self.live_dates[date] += 1
        if self._latest is None or date > self._latest:
            self._latest = date

    def _date_removed(self, date: dt.date) -> None:
        self.live_dates[date] -= 1
        if self.live_dates[date] == 0:
            del self.live_dates[date]
            if date == self._latest:
                self._latest = max(self.live_dates) if self.live_dates else None

    def player_grade(self, number: str, as_of: dt.date) -> CurrentGrade | None:
        history = self.players.get(number)
        return None if history is None else history.grade(as_of, self.params, subject=number)

    def copy(self) -> ReplayState:
        return copy.deepcopy(self)


def apply(state: ReplayState, op: LedgerOp) -> StepResult:
    """Perform one ledger operation on ``state`` (mutating it) and return the step's outputs."""
    if op.seq <= state.last_seq:
        raise LedgerError(f"sequence {op.seq} is not after {state.last_seq}")
    if isinstance(op, ProcessOp):
        step = _process(state, op)
    else:
        step = _withdraw(state, op)
    state.last_seq = op.seq
    state.steps.append(step)
    return step


def replay(ledger: Iterable[LedgerOp], params: NGSParams = NGS_DEFAULT, path: Path = "reference"):
    """Fold a whole ledger from empty (S5.4). Returns the final :class:`ReplayState`, whose
    ``steps`` hold every step's outputs in order."""
    state = ReplayState(params, path)
    for op in ledger:
        apply(state, op)
    return state


def correction(
    old_version: str, new_version: str, session: SessionResult, next_seq: int
) -> tuple[WithdrawOp, ProcessOp]:
    """The two operations of a correction (S5.3): withdraw the old version, process the new."""
    return WithdrawOp(next_seq, old_version), ProcessOp(next_seq + 1, new_version, session)


def _process(state: ReplayState, op: ProcessOp) -> StepResult:
    session = op.session
    params = state.params
    if op.version in state.live:
        raise LedgerError(f"version {op.version} is already live; withdraw it first")
    latest = state.latest_date()
    reference = session.date if latest is None or session.date > latest else latest
    if why_not_graded(session, params, op.host_pair):
        outcome = grade_session(session, {}, params, host_pair=op.host_pair)
        return StepResult(op.seq, "process", op.version, reference, outcome, (), ())
    standings = _standings(state, session, reference)
    pgrades = _partnership_grades(state, session, standings, reference)
    outcome = grade_session(
        session, standings, params, host_pair=op.host_pair, partnership_grades=pgrades
    )
    _fix_initial_grades(state, session)
    graded: list[str] = []
    for record in outcome.players:
        if record.session_grade is None:
            continue
        entry = HistoryEntry(
            op.seq,
            session.date,
            record.boards,
            record.session_grade,
            record.factor,
            record.partner,
        )
        state.players[record.number].add(entry)
        graded.append(record.number)
    keys: list[PartnershipKey] = []
    for ps in outcome.partnerships:
        history = state.partnerships.get(ps.key)
        if history is None:
            history = state.partnerships[ps.key] = state.new_history(ps.pair_average)
        history.add(
            HistoryEntry(
                op.seq, session.date, ps.boards, ps.session_grade, ps.factor, None, ps.pair_average
            )
        )
        keys.append(ps.key)
    state.live[op.version] = LiveVersion(op.seq, session.date, tuple(graded), tuple(keys))
    state._date_added(session.date)
    touched = [n for n in _members(session) if n in state.players]
    return _step(state, op.seq, "process", op.version, outcome, touched, keys, reference)


def _withdraw(state: ReplayState, op: WithdrawOp) -> StepResult:
    live = state.live.pop(op.version, None)
    if live is None:
        raise LedgerError(f"version {op.version} is not live")
    for number in live.players:
        state.players[number].remove(live.seq)
    for key in live.partnerships:
        state.partnerships[key].remove(live.seq)
    state._date_removed(live.date)
    reference = state.latest_date() or live.date
    return _step(
        state,
        op.seq,
        "withdraw",
        op.version,
        None,
        list(live.players),
        list(live.partnerships),
        reference,
    )


def _members(session: SessionResult) -> list[str]:
    seen: dict[str, None] = {}
    for pair in session.pairs:
        for p in pair.players:
            if p.number is not None:
                seen[p.number] = None
    return list(seen)


def _standings(
    state: ReplayState, session: SessionResult, reference: dt.date
) -> dict[str, PlayerStanding]:
    out: dict[str, PlayerStanding] = {}
    for number in _members(session):
        history = state.players.get(number)
        if history is None:
            continue
        cg = history.grade(reference, state.params, subject=number)
        out[number] = PlayerStanding(
            cg.grade, cg.status, history.graded_boards(), cg.regular_partner
        )
    return out


def _partnership_grades(
    state: ReplayState,
    session: SessionResult,
    standings: dict[str, PlayerStanding],
    reference: dt.date,
) -> dict[PartnershipKey, float]:
    """Partnership grades at the start; a stale partnership restarts at the players' average."""
    out: dict[PartnershipKey, float] = {}
    for pair in session.pairs:
        a, b = (p.number for p in pair.players)
        if a is None or b is None or a not in standings or b not in standings:
            continue
        key = (a, b) if a <= b else (b, a)
        history = state.partnerships.get(key)
        if history is None:
            continue
        average = (standings[a].grade + standings[b].grade) / 2
        out[key] = history.grade(reference, state.params, restart=average).grade
    return out


def _fix_initial_grades(state: ReplayState, session: SessionResult) -> None:
    """A member's initial grade is fixed at their first graded appearance in a known pair,
    host included (S14.3, S14.4, S14.7)."""
    initial = state.params.first_grade(session.weighting)
    for pair in session.pairs:
        if not pair.known:
            continue
        for p in pair.players:
            assert p.number is not None
            if p.number not in state.players:
                state.players[p.number] = state.new_history(initial)


def _step(
    state: ReplayState,
    seq: int,
    kind: Literal["process", "withdraw"],
    version: str,
    outcome: SessionOutcome | None,
    players: Sequence[str],
    partnerships: Sequence[PartnershipKey],
    reference: dt.date,
) -> StepResult:
    grades = tuple(state.players[n].grade(reference, state.params, subject=n) for n in players)
    pgrades = tuple(
        state.partnerships[k].grade(reference, state.params, subject=partnership_subject(k))
        for k in partnerships
    )
    return StepResult(seq, kind, version, reference, outcome, grades, pgrades)


# S14.11: ``replay --check`` compares figures to 1e-9; two figures closer than this are the same.
CHECK_TOLERANCE = 1e-9


def compare_steps(
    expected: Sequence[StepResult], actual: Sequence[StepResult], tol: float = CHECK_TOLERANCE
) -> list[str]:
    """Differences between two runs of the same ledger beyond ``tol`` (``replay --check``)."""
    problems: list[str] = []
    if len(expected) != len(actual):
        problems.append(f"{len(expected)} steps expected, {len(actual)} found")
    for a, b in zip(expected, actual, strict=False):
        where = f"seq {a.seq}"
        if (a.seq, a.kind, a.version, a.reference_date) != (
            b.seq,
            b.kind,
            b.version,
            b.reference_date,
        ):
            problems.append(f"{where}: different operation")
            continue
        problems += _compare_outcomes(where, a.outcome, b.outcome, tol)
        problems += _compare_grades(where, a.current_grades, b.current_grades, tol)
        problems += _compare_grades(where, a.partnership_grades, b.partnership_grades, tol)
    return problems


def _close(x: float | None, y: float | None, tol: float) -> bool:
    if x is None or y is None:
        return x is y
    return abs(x - y) <= tol


def _compare_outcomes(
    where: str, a: SessionOutcome | None, b: SessionOutcome | None, tol: float
) -> list[str]:
    if a is None or b is None:
        return [] if a is b else [f"{where}: outcome missing"]
    out = []
    if len(a.players) != len(b.players) or a.graded != b.graded:
        return [f"{where}: different players or gradedness"]
    for x, y in zip(a.players, b.players, strict=True):
        for name in ("grade_before", "sopp", "excess", "session_grade", "regular_adjustment"):
            if not _close(getattr(x, name), getattr(y, name), tol):
                out.append(
                    f"{where}: player {x.number} {name} {getattr(x, name)} != {getattr(y, name)}"
                )
    for p, q in zip(a.partnerships, b.partnerships, strict=False):
        if p.key != q.key or not _close(p.session_grade, q.session_grade, tol):
            out.append(f"{where}: partnership {p.key} session grade differs")
    return out


def _compare_grades(
    where: str, a: Sequence[CurrentGrade], b: Sequence[CurrentGrade], tol: float
) -> list[str]:
    if len(a) != len(b):
        return [f"{where}: {len(a)} grades expected, {len(b)} found"]
    out = []
    for x, y in zip(a, b, strict=True):
        same = (x.subject, x.status, x.boards_in_window, x.padding_boards) == (
            y.subject,
            y.status,
            y.boards_in_window,
            y.padding_boards,
        )
        if not same or not _close(x.grade, y.grade, tol):
            out.append(f"{where}: {x.subject} {x.grade} {x.status} != {y.grade} {y.status}")
    return out
