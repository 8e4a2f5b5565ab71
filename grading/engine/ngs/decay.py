"""NGS current grade, reference path (S4, S5.1, S14.5-8, S14.11).

Everything here recomputes from a subject's whole history on every call: it transcribes the
formulas and is the yardstick the incremental path (``window`` and ``incremental``) is tested against.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import cast

from grading.engine.ngs.params import NGS_DEFAULT, NGSParams
from grading.engine.ngs.types import CurrentGrade, History, HistoryEntry, PlayerStanding, Status

__all__ = [
    "BANDS",
    "band",
    "shown",
    "years_before",
    "decay_weights",
    "career_starts",
    "reached_padding",
    "weighted_window",
    "current_grade",
    "standing",
    "regular_partner",
]

BANDS: tuple[tuple[float, str], ...] = (
    (67.0, "Ace of Spades"),
    (65.0, "Ace of Hearts"),
    (63.0, "Ace of Diamonds"),
    (61.0, "Ace of Clubs"),
    (59.0, "King"),
    (57.0, "Queen"),
    (55.0, "Jack"),
    (53.0, "Ten"),
    (51.0, "Nine"),
    (49.0, "Eight"),
    (47.0, "Seven"),
    (45.0, "Six"),
    (43.0, "Five"),
    (41.0, "Four"),
    (39.0, "Three"),
)


def shown(grade: float) -> float:
    """The grade as shown, to 2 decimals (S14.11)."""
    return float(f"{grade:.2f}")


def band(grade: float) -> str:
    """The band of a grade, taken from the grade as shown (S4 bands, S14.11)."""
    value = shown(grade)
    for lower, name in BANDS:
        if value >= lower:
            return name
    return "Two"


class _BeforeYearOne:
    """The day before 0001-01-01 (ordinal 0, as the C kernel's): earlier than every date, so
    a window reaching below year 1 holds every session up to its end."""

    def toordinal(self) -> int:
        return 0

    def __lt__(self, other):
        return isinstance(other, dt.date) or NotImplemented

    def __le__(self, other):
        return isinstance(other, dt.date) or other is self or NotImplemented

    def __gt__(self, other):
        return False if isinstance(other, dt.date) else NotImplemented

    def __ge__(self, other):
        return other is self if not isinstance(other, dt.date) else False

    def __repr__(self) -> str:
        return "BEFORE_YEAR_ONE"


BEFORE_YEAR_ONE = _BeforeYearOne()


def years_before(date: dt.date, years: int) -> dt.date:
    """``date`` minus whole calendar years; 29 February becomes 28 February (S14.6). Before
    year 1 it is ``BEFORE_YEAR_ONE``, so a bad date already stored cannot raise (issue 21)."""
    if date.year - years < 1:
        # Compares below every date, which is all a window start is used for.
        return cast(dt.date, BEFORE_YEAR_ONE)
    try:
        return date.replace(year=date.year - years)
    except ValueError:
        return date.replace(year=date.year - years, day=28)


def decay_weights(boards: Sequence[int], window: int = 2000) -> list[float]:
    """Decay weights of sessions given most recent first, without factors or same-day blocks (S4).

    ``w_y = x_y (window - C_{y-1} - x_y/2)`` with the oldest kept session's ``x`` reduced so the
    total is exactly ``window``; sessions beyond the window get 0.
    """
    weights: list[float] = []
    before = 0
    for x in boards:
        kept = max(0, min(x, window - before))
        weights.append(kept * (window - before - kept / 2) if kept else 0.0)
        before += kept
    return weights


def _chronological(entries: Iterable[HistoryEntry], as_of: dt.date) -> list[HistoryEntry]:
    return sorted((e for e in entries if e.date <= as_of), key=lambda e: (e.date, e.seq))


def career_starts(entries: Sequence[HistoryEntry], years: int = 3) -> list[int]:
    """Indices (in date order) where a career starts: no earlier session in its window (S14.7)."""
    starts = [0] if entries else []
    for i in range(1, len(entries)):
        if entries[i - 1].date <= years_before(entries[i].date, years):
            starts.append(i)
    return starts


def reached_padding(career: Sequence[HistoryEntry], params: NGSParams = NGS_DEFAULT) -> bool:
    """Whether the career ever had ``padding_boards`` within one 3-year window (S4, S14.8)."""
    oldest = 0
    total = 0
    for entry in career:
        total += entry.boards
        low = years_before(entry.date, params.window_years)
        while career[oldest].date <= low:
            total -= career[oldest].boards
            oldest += 1
        if total >= params.padding_boards:
            return True
    return False


def weighted_window(
    recent_first: Sequence[HistoryEntry], window: int = 2000
) -> list[tuple[HistoryEntry, float, float]]:
    """Sessions of the board window with their kept boards and average height (S4).

    Sessions played on one day form a block whose boards all get the block's average height
    ``window - C - X_B/2``; a block cut by the window keeps ``window - C`` boards, shared in
    proportion to each session's boards. Returns ``(entry, kept_boards, height)``; the decay
    weight is ``factor * kept_boards * height``.
    """
    out: list[tuple[HistoryEntry, float, float]] = []
    before = 0
    i = 0
    while i < len(recent_first) and before < window:
        j = i
        while j < len(recent_first) and recent_first[j].date == recent_first[i].date:
            j += 1
        block = recent_first[i:j]
        block_boards = sum(e.boards for e in block)
        i = j
        if block_boards <= 0:
            continue
        kept = min(block_boards, window - before)
        height = window - before - kept / 2
        for entry in block:
            share = entry.boards if kept == block_boards else entry.boards * kept / block_boards
            out.append((entry, share, height))
        before += kept
    return out


def regular_partner(
    window_entries: Iterable[HistoryEntry], params: NGSParams = NGS_DEFAULT
) -> str | None:
    """The partner of strictly more than ``regular_share`` of the window's sessions (S14.5)."""
    counts = Counter(e.partner for e in window_entries)
    sessions = sum(counts.values())
    share = params.regular_share
    for partner, k in counts.items():
        if partner is not None and k * share.denominator > share.numerator * sessions:
            return partner
    return None


def current_grade(
    history: History | Iterable[HistoryEntry],
    as_of: dt.date,
    params: NGSParams = NGS_DEFAULT,
    *,
    initial: float | None = None,
    restart: float | None = None,
    subject: str = "",
) -> CurrentGrade:
    """A subject's current grade on ``as_of`` (S4, S5.1, S14.6-8).

    ``history`` is a :class:`History` (its ``initial`` pads the first career) or bare entries
    (padding with ``initial``, default ``params.initial_grade``). ``restart`` is the grade of a
    subject with no session in the last 3 years (default ``params.restart_grade``, S14.7).
    """
    if isinstance(history, History):
        entries = _chronological(history.entries, as_of)
        first_pad = history.initial if initial is None else initial
    else:
        entries = _chronological(history, as_of)
        first_pad = params.initial_grade if initial is None else initial
    if not entries:
        return _graded(first_pad, Status.PROVISIONAL, 0, params.padding_boards, 0, as_of, subject)

    starts = career_starts(entries, params.window_years)
    career = entries[starts[-1] :]
    pad_value = first_pad if len(starts) == 1 else _career_pad(career[0], params)
    reached = reached_padding(career, params)
    low = years_before(as_of, params.window_years)
    recent = [e for e in career if e.date > low]
    if not recent:
        value = params.restart_grade if restart is None else restart
        status = Status.OUT_OF_DATE if reached else Status.PROVISIONAL
        return _graded(value, status, 0, params.padding_boards, 0, as_of, subject)

    boards_3y = sum(e.boards for e in recent)
    window = weighted_window(recent[::-1], params.window_boards)
    numerator = 0.0
    denominator = 0.0
    for entry, kept, height in window:
        weight = entry.factor * kept * height
        numerator += weight * entry.grade
        denominator += weight
    padding = 0
    if not reached:
        padding = params.padding_boards - boards_3y
        before = min(boards_3y, params.window_boards)
        weight = padding * (params.window_boards - before - padding / 2)
        numerator += weight * pad_value
        denominator += weight
    grade = numerator / denominator
    status = _status(reached, boards_3y, params)
    partner = regular_partner((e for e, _, _ in window), params)
    return _graded(grade, status, boards_3y, padding, len(window), as_of, subject, partner)


def standing(history: History, as_of: dt.date, params: NGSParams = NGS_DEFAULT) -> PlayerStanding:
    """A member's standing at the start of a session graded with reference date ``as_of``."""
    cg = current_grade(history, as_of, params)
    boards = sum(e.boards for e in history.entries)
    return PlayerStanding(cg.grade, cg.status, boards, cg.regular_partner)


def _career_pad(first: HistoryEntry, params: NGSParams) -> float:
    return params.restart_grade if first.pad is None else first.pad


def _status(reached: bool, boards_3y: int, params: NGSParams) -> Status:
    if not reached:
        return Status.PROVISIONAL
    if boards_3y >= params.mature_boards:
        return Status.MATURE
    if boards_3y >= params.padding_boards:
        return Status.EVOLVING
    return Status.OUT_OF_DATE


def _graded(
    grade: float,
    status: Status,
    boards: int,
    padding: int,
    sessions: int,
    as_of: dt.date,
    subject: str,
    partner: str | None = None,
) -> CurrentGrade:
    return CurrentGrade(
        grade=grade,
        status=status,
        band=band(grade),
        boards_in_window=boards,
        padding_boards=padding,
        sessions_in_window=sessions,
        as_of=as_of,
        regular_partner=partner,
        subject=subject,
    )
