"""A subject's live history with the incremental window (the ``fast`` path, S4): the
``SubjectHistory`` of ``grading.engine.ngs.ledger`` over a ``WindowState``; grades asked for
at a date before the latest entry fall back to the reference ``current_grade``."""

from __future__ import annotations

import datetime as dt

from grading.engine.ngs.decay import band, current_grade
from grading.engine.ngs.params import NGSParams
from grading.engine.ngs.types import CurrentGrade, History, HistoryEntry
from grading.engine.ngs.window import WindowState
from grading.engine.ngs.windowrules import STATUS_CODES, rules_for

__all__ = ["IncrementalHistory"]


class IncrementalHistory:
    """A subject's live history with incremental window state (``SubjectHistory`` protocol)."""

    def __init__(self, initial: float) -> None:
        self.initial = initial
        self._state: WindowState | None = None
        self._pending: list[HistoryEntry] = []
        self._history: History | None = None

    def _bound(self, params: NGSParams) -> WindowState:
        state = self._state
        rules = rules_for(params)
        if state is None or state.rules is not rules:
            old = state.entries() if state is not None else []
            state = self._state = WindowState(rules, self.initial)
            for e in sorted(old + self._pending, key=lambda e: (e.date, e.seq)):
                state.add(e.seq, e.date.toordinal(), e.boards, e.grade, e.factor, e.partner, e.pad)
            self._pending = []
        return state

    # ------------------------------------------------------------------ updates

    def add(self, entry: HistoryEntry) -> None:
        self._history = None
        if self._state is None:
            self._pending.append(entry)
            return
        self._state.add(
            entry.seq,
            entry.date.toordinal(),
            entry.boards,
            entry.grade,
            entry.factor,
            entry.partner,
            entry.pad,
        )

    def remove(self, seq: int) -> None:
        self._history = None
        if self._state is None:
            self._pending = [e for e in self._pending if e.seq != seq]
        else:
            self._state.remove(seq)

    # ------------------------------------------------------------------ queries

    @property
    def entries(self) -> tuple[HistoryEntry, ...]:
        return self.history().entries

    def graded_boards(self) -> int:
        if self._state is None:
            return sum(e.boards for e in self._pending)
        return self._state.total

    def last_date(self) -> dt.date | None:
        """The latest date of play among the live sessions, without building the history."""
        if self._state is None:
            return max((e.date for e in self._pending), default=None)
        last = self._state.last_date()
        return dt.date.fromordinal(last) if last is not None else None

    def session_count(self) -> int:
        return len(self._pending) if self._state is None else len(self._state.d)

    def history(self) -> History:
        if self._history is None:
            if self._state is None:
                entries = sorted(self._pending, key=lambda e: (e.date, e.seq))
            else:
                entries = self._state.entries()
            self._history = History(self.initial, tuple(entries))
        return self._history

    def grade(
        self, as_of: dt.date, params: NGSParams, restart: float | None = None, subject: str = ""
    ) -> CurrentGrade:
        state = self._bound(params)
        last = state.last_date()
        day = as_of.toordinal()
        if last is not None and day < last:
            return current_grade(self.history(), as_of, params, restart=restart, subject=subject)
        grade, code, boards, padding = state.current(day, restart)
        partner = state.regular_partner()
        sessions = state.sessions_in_window()
        return CurrentGrade(
            grade,
            STATUS_CODES[code],
            band(grade),
            boards,
            padding,
            sessions,
            as_of,
            partner,
            subject,
        )
