"""The window constants of a parameter set as the incremental paths use them (S4, S14.6-8),
and the status codes ``WindowState.current()`` returns."""

from __future__ import annotations

import datetime as dt

from grading.engine.ngs.decay import years_before
from grading.engine.ngs.params import NGSParams
from grading.engine.ngs.types import Status

__all__ = ["Rules", "rules_for", "STATUS_CODES"]

# status codes of WindowState.current(): index into STATUS_CODES
PROVISIONAL, EVOLVING, MATURE, OUT_OF_DATE = 0, 1, 2, 3
STATUS_CODES = (Status.PROVISIONAL, Status.EVOLVING, Status.MATURE, Status.OUT_OF_DATE)

_LOW_CACHES: dict[int, dict[int, int]] = {}


class Rules:
    """The window constants of a parameter set, with a cache of 3-year lower bounds by ordinal."""

    __slots__ = ("window", "years", "padding", "mature", "restart", "num", "den", "_low", "params")

    def __init__(self, params: NGSParams) -> None:
        self.params = params
        self.window = params.window_boards
        self.years = params.window_years
        self.padding = params.padding_boards
        self.mature = params.mature_boards
        self.restart = params.restart_grade
        self.num = params.regular_share.numerator
        self.den = params.regular_share.denominator
        self._low = _LOW_CACHES.setdefault(self.years, {})

    def low(self, ordinal: int) -> int:
        """The ordinal of ``years_before(date, years)``: the window is ``(low, date]`` (S14.6)."""
        try:
            return self._low[ordinal]
        except KeyError:
            value = years_before(dt.date.fromordinal(ordinal), self.years).toordinal()
            self._low[ordinal] = value
            return value


_RULES: dict[int, Rules] = {}


def rules_for(params: NGSParams) -> Rules:
    key = id(params)
    rules = _RULES.get(key)
    if rules is None or rules.params is not params:
        rules = _RULES[key] = Rules(params)
    return rules
