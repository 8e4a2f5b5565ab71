"""Calendar quarters (SPEC S11: Brambledown regrades once a quarter), safe at the calendar's
edges: a session dated in year 1 or 9999 still has a quarter, a previous and a next one, and a
name that reads back (issue 21)."""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass, field

# One year beyond each end of the calendar, so that the quarter before any date's quarter and
# the one after it exist; their first and last days are clamped to the calendar.
FIRST_YEAR = dt.MINYEAR - 1
LAST_YEAR = dt.MAXYEAR + 1

_QUARTER = re.compile(r"\s*(\d{1,5})\s*-?\s*[Qq]([1-4])\s*")


@dataclass(frozen=True, order=True)
class Quarter:
    """A calendar quarter, written ``2026Q4`` (the year on four digits: ``0001Q1``)."""

    year: int
    q: int
    # its name, made once: a whole-ledger rebuild writes millions of quarters as text
    text: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not 1 <= self.q <= 4:
            raise ValueError(f"a quarter is 1 to 4, got {self.q}")
        if not FIRST_YEAR <= self.year <= LAST_YEAR:
            raise ValueError(f"no quarter in the year {self.year}")
        object.__setattr__(self, "text", f"{self.year:04d}Q{self.q}")

    @classmethod
    def parse(cls, text: str) -> Quarter:
        match = _QUARTER.fullmatch(text)
        if not match:
            raise ValueError(f"not a quarter (expected e.g. 2026Q4): {text!r}")
        return _quarter(int(match.group(1)), int(match.group(2)))

    @classmethod
    def of(cls, day: dt.date) -> Quarter:
        return _quarter(day.year, (day.month - 1) // 3 + 1)

    @property
    def start(self) -> dt.date:
        """The first day (the calendar's first day for the quarter before it)."""
        if self.year < dt.MINYEAR:
            return dt.date.min
        if self.year > dt.MAXYEAR:
            return dt.date.max
        return dt.date(self.year, 3 * self.q - 2, 1)

    @property
    def end(self) -> dt.date:
        """The last day (the calendar's last day for the quarter after it)."""
        if self.year < dt.MINYEAR:
            return dt.date.min
        if self.year > dt.MAXYEAR or (self.year == dt.MAXYEAR and self.q == 4):
            return dt.date.max
        return self.next().start - dt.timedelta(days=1)

    def next(self) -> Quarter:
        return _quarter(self.year + 1, 1) if self.q == 4 else _quarter(self.year, self.q + 1)

    def previous(self) -> Quarter:
        return _quarter(self.year - 1, 4) if self.q == 1 else _quarter(self.year, self.q - 1)

    def __contains__(self, day: object) -> bool:
        return (
            isinstance(day, dt.date)
            and day.year == self.year
            and (day.month - 1) // 3 + 1 == self.q
        )

    def __str__(self) -> str:
        return self.text


@functools.lru_cache(maxsize=4096)
def _quarter(year: int, q: int) -> Quarter:
    """One object per quarter, for the ones the engine makes: tables keyed and sorted by
    quarter then compare them by identity first (a whole-ledger rebuild makes millions)."""
    return Quarter(year, q)
