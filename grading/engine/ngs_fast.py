"""NGS current grade, incremental path (S4, S14.6-8): the same grades as ``ngs_decay``.

A subject's history is kept sorted by (date of play, sequence) with, per entry, running board
totals, where its career starts and whether that career has reached 300 boards in a 3-year
window. Appending a session updates them in O(log n); a late insertion or a withdrawal reworks
only the entries from its place on. A grade then costs a
bisect for the 3-year window plus one walk over the 2000-board window (not the whole history).
"""

from __future__ import annotations

import datetime as dt
from bisect import bisect_right
from collections import Counter

from grading.engine.ngs_decay import band, current_grade, years_before
from grading.engine.ngs_params import NGSParams
from grading.engine.ngs_types import CurrentGrade, History, HistoryEntry, Status

__all__ = ["IncrementalHistory"]


class IncrementalHistory:
    """A subject's live history with incremental window state (``SubjectHistory`` protocol)."""

    def __init__(self, initial: float) -> None:
        self.initial = initial
        self.entries: list[HistoryEntry] = []
        self._dates: list[dt.date] = []
        self._prefix: list[int] = [0]  # boards of entries[:i]
        self._career_start = 0
        self._reached_at: list[bool] = []  # per entry: the career reached 300 by then
        self._career_of: list[int] = []  # per entry: the index where its career starts
        self._params: NGSParams | None = None

    # ------------------------------------------------------------------ updates

    def add(self, entry: HistoryEntry) -> None:
        key = (entry.date, entry.seq)
        at = len(self.entries)
        while at > 0 and (self.entries[at - 1].date, self.entries[at - 1].seq) > key:
            at -= 1  # a late upload: rework only the entries from its place on
        self.entries.insert(at, entry)
        self._rebuild(at)

    def remove(self, seq: int) -> None:
        for at in range(len(self.entries) - 1, -1, -1):
            if self.entries[at].seq == seq:
                del self.entries[at]
                self._rebuild(at)
                return

    def _rebuild(self, start: int = 0) -> None:
        """Recompute the running state for entries ``start`` onwards."""
        del self._dates[start:]
        del self._prefix[start + 1 :]
        del self._reached_at[start:]
        del self._career_of[start:]
        self._career_start = self._career_of[-1] if self._career_of else 0
        for i in range(start, len(self.entries)):
            entry = self.entries[i]
            self._dates.append(entry.date)
            self._prefix.append(self._prefix[-1] + entry.boards)
            self._extend_career(i)

    def _extend_career(self, i: int) -> None:
        """Career bookkeeping for entry ``i``, the latest so far (S14.7, S4 "300 once")."""
        years, padding = self._window_rules()
        date = self._dates[i]
        low = years_before(date, years)
        if i > 0 and self._dates[i - 1] <= low:
            self._career_start = i
        reached = bool(self._reached_at) and self._reached_at[-1] and self._career_start < i
        if not reached:
            lo = max(self._career_start, bisect_right(self._dates, low, 0, i + 1))
            reached = self._prefix[i + 1] - self._prefix[lo] >= padding
        self._reached_at.append(reached)
        self._career_of.append(self._career_start)

    def _window_rules(self) -> tuple[int, int]:
        params = self._params
        return (3, 300) if params is None else (params.window_years, params.padding_boards)

    def bind(self, params: NGSParams) -> None:
        """Use ``params``' window rules for the career bookkeeping (default 3 years, 300)."""
        if params is not self._params:
            self._params = params
            self._rebuild()

    # ------------------------------------------------------------------ queries

    def graded_boards(self) -> int:
        return self._prefix[-1]

    def history(self) -> History:
        return History(self.initial, tuple(self.entries))

    def grade(
        self, as_of: dt.date, params: NGSParams, restart: float | None = None, subject: str = ""
    ) -> CurrentGrade:
        self.bind(params)
        n = len(self.entries)
        if n == 0 or as_of < self._dates[-1]:
            return current_grade(self.history(), as_of, params, restart=restart, subject=subject)
        reached = self._reached_at[-1]
        lo = bisect_right(self._dates, years_before(as_of, params.window_years))
        if lo >= n:
            value = params.restart_grade if restart is None else restart
            status = Status.OUT_OF_DATE if reached else Status.PROVISIONAL
            return _result(value, status, 0, params.padding_boards, 0, as_of, subject, None)
        boards_3y = self._prefix[n] - self._prefix[lo]
        numerator, denominator, partners = self._window_sums(lo, n, params.window_boards)
        padding = 0
        if not reached:
            padding = params.padding_boards - boards_3y
            before = min(boards_3y, params.window_boards)
            weight = padding * (params.window_boards - before - padding / 2)
            numerator += weight * self._pad_value(params)
            denominator += weight
        status = _status(reached, boards_3y, params)
        partner = _regular(partners, params)
        sessions = sum(partners.values())
        return _result(
            numerator / denominator, status, boards_3y, padding, sessions, as_of, subject, partner
        )

    def _pad_value(self, params: NGSParams) -> float:
        if self._career_start == 0:
            return self.initial
        pad = self.entries[self._career_start].pad
        return params.restart_grade if pad is None else pad

    def _window_sums(self, lo: int, n: int, window: int) -> tuple[float, float, Counter]:
        """Walk the 2000-board window from the most recent session (S4, same-day blocks)."""
        entries = self.entries
        numerator = 0.0
        denominator = 0.0
        partners: Counter = Counter()
        before = 0
        j = n - 1
        while j >= lo and before < window:
            date = self._dates[j]
            i = j
            while i - 1 >= lo and self._dates[i - 1] == date:
                i -= 1
            block_boards = self._prefix[j + 1] - self._prefix[i]
            if block_boards > 0:
                kept = min(block_boards, window - before)
                height = window - before - kept / 2
                for k in range(j, i - 1, -1):
                    e = entries[k]
                    share = e.boards if kept == block_boards else e.boards * kept / block_boards
                    weight = e.factor * share * height
                    numerator += weight * e.grade
                    denominator += weight
                    partners[e.partner] += 1
                before += kept
            j = i - 1
        return numerator, denominator, partners


def _regular(partners: Counter, params: NGSParams) -> str | None:
    sessions = sum(partners.values())
    share = params.regular_share
    for partner, k in partners.items():
        if partner is not None and k * share.denominator > share.numerator * sessions:
            return partner
    return None


def _status(reached: bool, boards_3y: int, params: NGSParams) -> Status:
    if not reached:
        return Status.PROVISIONAL
    if boards_3y >= params.mature_boards:
        return Status.MATURE
    if boards_3y >= params.padding_boards:
        return Status.EVOLVING
    return Status.OUT_OF_DATE


def _result(
    grade: float,
    status: Status,
    boards: int,
    padding: int,
    sessions: int,
    as_of: dt.date,
    subject: str,
    partner: str | None,
) -> CurrentGrade:
    return CurrentGrade(
        grade, status, band(grade), boards, padding, sessions, as_of, partner, subject
    )
