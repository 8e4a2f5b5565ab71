"""NGS current grade, incremental path (S4, S14.5-8): the same grades as ``decay``.

A subject's live history is kept sorted by (date of play, sequence) in compact parallel arrays
(:class:`WindowState`). Next to it the state keeps, for the reference date it was last asked
about:

* the career bookkeeping (S14.7): where the last career starts and the first entry at which it
  had ``padding_boards`` boards within one 3-year window ("300 once");
* the 3-year window (``lo``: its first entry; ``b3``: its unreduced boards, S14.8);
* the 2000-board window as *full blocks* ``[k, n)`` (same-day blocks wholly inside the window)
  plus at most one *cut block* ``[cut0, k)``;
* running sums over the full blocks. With ``T`` the board position of the latest entry and
  ``m_B`` the position of the middle of block ``B`` (both counted from an origin), a block's
  height is ``2000 - C_B - X_B/2 = (2000 - T) + m_B``, so with ``A0 = sum f x``,
  ``A0g = sum f x g``, ``A1 = sum f x m`` and ``A1g = sum f x g m``::

      numerator   = (2000 - T) A0g + A1g
      denominator = (2000 - T) A0  + A1

  An appended session adds one term to each sum; the oldest block leaving the window (2000
  boards or 3 years) subtracts its own terms: O(1) amortised per session, whatever the window's
  length. The cut block (a few entries) and the padding are added at query time.

Anything unusual (a late upload inserted before the latest entry, a withdrawal, a query at an
earlier date than the state's) invalidates the window part, which is rebuilt from the arrays
at the next query in O(window); the career part is reworked only from the affected place. The
sums are also rebuilt every ``REBUILD_EVERY`` appends, so rounding never accumulates: results
equal the reference path's to far better than the 1e-9 of S14.11.
"""

from __future__ import annotations

import datetime as dt
from array import array
from bisect import bisect_right
from typing import Any

from grading.engine.ngs.types import HistoryEntry
from grading.engine.ngs.windowrules import (
    EVOLVING,
    MATURE,
    OUT_OF_DATE,
    PROVISIONAL,
    Rules,
)

__all__ = ["WindowState"]

REBUILD_EVERY = 512


class WindowState:
    """One subject's live history and incremental window (see the module docstring).

    Dates are ordinals. ``partner`` is any hashable (a member number, an index) or None;
    ``pad`` is the padding value of a career this entry starts (None: the restart grade).
    """

    __slots__ = (
        "rules",
        "initial",
        "d",
        "s",
        "x",
        "g",
        "f",
        "partner",
        "pad",
        "total",
        "cs",
        "reach",
        "rlo",
        "rsum",
        "lo",
        "low",
        "k",
        "cut0",
        "cfull",
        "tpos",
        "a0",
        "a0g",
        "a1",
        "a1g",
        "b3",
        "ops",
        "counts",
    )

    def __init__(self, rules: Rules, initial: float, track_partners: bool = True) -> None:
        self.rules = rules
        self.initial = initial
        self.d = array("l")
        self.s = array("q")
        self.x = array("l")
        self.g = array("d")
        self.f = array("d")
        self.partner: list[Any] = []
        self.pad: list[float | None] = []
        self.total = 0
        self.cs = 0
        self.reach = -1
        self.rlo = 0
        self.rsum = 0
        self.lo = -1  # -1: the window part must be rebuilt
        self.low = 0
        self.k = self.cut0 = self.cfull = self.tpos = self.b3 = self.ops = 0
        self.a0 = self.a0g = self.a1 = self.a1g = 0.0
        self.counts: dict[Any, int] | None = {} if track_partners else None

    # ------------------------------------------------------------------ updates

    def add(
        self, seq: int, d: int, x: int, g: float, f: float, partner: Any = None, pad: Any = None
    ) -> None:
        D = self.d
        n = len(D)
        if n and (d < D[n - 1] or (d == D[n - 1] and seq < self.s[n - 1])):
            self._insert(seq, d, x, g, f, partner, pad)
            return
        D.append(d)
        self.s.append(seq)
        X = self.x
        X.append(x)
        self.g.append(g)
        self.f.append(f)
        self.partner.append(partner)
        self.pad.append(pad)
        self.total += x
        rules = self.rules
        lowd = rules.low(d)
        if n == 0 or D[n - 1] <= lowd:  # a new career (S14.7)
            self.cs = n
            self.reach = -1
            self.rlo = n
            self.rsum = 0
        if self.reach < 0:
            rsum = self.rsum + x
            rlo = self.rlo
            while D[rlo] <= lowd:
                rsum -= X[rlo]
                rlo += 1
            self.rsum = rsum
            self.rlo = rlo
            if rsum >= rules.padding:
                self.reach = n
        if self.lo < 0:
            return
        self.ops += 1
        if d <= self.low or self.ops > REBUILD_EVERY:
            self.lo = -1
            return
        fx = f * x
        fxg = fx * g
        if n and D[n - 1] == d:  # the latest same-day block grows
            if self.k >= n:
                self.lo = -1
                return
            b = n - 1
            while b > self.k and D[b - 1] == d:
                b -= 1
            F = self.f
            G = self.g
            s0 = s0g = 0.0
            xb = 0
            for i in range(b, n):
                v = F[i] * X[i]
                s0 += v
                s0g += v * G[i]
                xb += X[i]
            m = self.tpos - xb / 2
            self.a0 -= s0
            self.a0g -= s0g
            self.a1 -= s0 * m
            self.a1g -= s0g * m
            s0 += fx
            s0g += fxg
            self.tpos += x
            m = self.tpos - (xb + x) / 2
            self.a0 += s0
            self.a0g += s0g
            self.a1 += s0 * m
            self.a1g += s0g * m
        else:
            self.tpos += x
            m = self.tpos - x / 2
            self.a0 += fx
            self.a0g += fxg
            self.a1 += fx * m
            self.a1g += fxg * m
        self.cfull += x
        self.b3 += x
        counts = self.counts
        if counts is not None:
            counts[partner] = counts.get(partner, 0) + 1
        if self.cfull >= rules.window:
            self._trim()

    def _trim(self) -> None:
        """Full blocks pushed beyond 2000 boards become the cut block, or leave (S4)."""
        W = self.rules.window
        D, X, F, G = self.d, self.x, self.f, self.g
        n = len(D)
        counts = self.counts
        while self.cfull > W:
            if counts is not None:
                P = self.partner
                for i in range(self.cut0, self.k):
                    counts[P[i]] -= 1
            k = self.k
            dk = D[k]
            k2 = k
            s0 = s0g = 0.0
            xb = 0
            while k2 < n and D[k2] == dk:
                v = F[k2] * X[k2]
                s0 += v
                s0g += v * G[k2]
                xb += X[k2]
                k2 += 1
            m = self.tpos - self.cfull + xb / 2
            self.a0 -= s0
            self.a0g -= s0g
            self.a1 -= s0 * m
            self.a1g -= s0g * m
            self.cfull -= xb
            self.k = k2
            self.cut0 = k
        if self.cfull == W and self.cut0 < self.k:  # exactly 2000 full boards: nothing cut
            if counts is not None:
                P = self.partner
                for i in range(self.cut0, self.k):
                    counts[P[i]] -= 1
            self.cut0 = self.k

    def _insert(self, seq: int, d: int, x: int, g: float, f: float, partner: Any, pad: Any) -> None:
        """A late upload: insert in date order, rework the career only where needed."""
        D, S = self.d, self.s
        at = bisect_right(D, d)
        while at > 0 and D[at - 1] == d and S[at - 1] > seq:
            at -= 1
        D.insert(at, d)
        S.insert(at, seq)
        self.x.insert(at, x)
        self.g.insert(at, g)
        self.f.insert(at, f)
        self.partner.insert(at, partner)
        self.pad.insert(at, pad)
        self.total += x
        self.lo = -1
        if at <= self.cs:
            self._careers_from_scratch()
        elif self.reach < 0 or self.reach >= at:
            self._reach_from(self.cs)

    def remove(self, seq: int) -> bool:
        """Remove the entry with sequence ``seq`` (a withdrawal, S5.3)."""
        S = self.s
        for at in range(len(S) - 1, -1, -1):
            if S[at] == seq:
                break
        else:
            return False
        D = self.d
        self.total -= self.x[at]
        for arr in (D, S, self.x, self.g, self.f, self.partner, self.pad):
            del arr[at]
        self.lo = -1
        n = len(D)
        if n == 0:
            self.cs = 0
            self.reach = -1
            self.rlo = 0
            self.rsum = 0
        elif at < self.cs:
            self.cs -= 1
            if self.reach >= 0:
                self.reach -= 1
            else:
                self.rlo = max(self.rlo - 1, self.cs)
        elif at == self.cs and at >= n:
            self._careers_from_scratch()  # the last career's only entry went
        elif at < n and at > self.cs and D[at - 1] <= self.rules.low(D[at]):
            self.cs = at  # the removed entry bridged two careers
            self._reach_from(at)
        elif self.reach < 0 or self.reach >= at:
            self._reach_from(self.cs)
        return True

    def _careers_from_scratch(self) -> None:
        D = self.d
        low = self.rules.low
        cs = 0
        for i in range(len(D) - 1, 0, -1):
            if D[i - 1] <= low(D[i]):
                cs = i
                break
        self.cs = cs
        self._reach_from(cs)

    def _reach_from(self, c: int) -> None:
        """The first entry from ``c`` at which the career had 300 boards in 3 years (S4)."""
        D, X = self.d, self.x
        low = self.rules.low
        padding = self.rules.padding
        rlo = c
        rsum = 0
        self.reach = -1
        for i in range(c, len(D)):
            rsum += X[i]
            lw = low(D[i])
            while D[rlo] <= lw:
                rsum -= X[rlo]
                rlo += 1
            if rsum >= padding:
                self.reach = i
                break
        self.rlo = rlo
        self.rsum = rsum

    # ------------------------------------------------------------------ window

    def _rebuild(self, low: int) -> None:
        """The window part from scratch for lower bound ``low`` (exclusive)."""
        D, X, F, G = self.d, self.x, self.f, self.g
        W = self.rules.window
        n = len(D)
        lo = bisect_right(D, low)
        b3 = 0
        for i in range(lo, n):
            b3 += X[i]
        cfull = 0
        j = n
        cut0 = -1
        while j > lo:
            i = j - 1
            dj = D[i]
            xb = X[i]
            while i > lo and D[i - 1] == dj:
                i -= 1
                xb += X[i]
            if cfull + xb <= W:
                cfull += xb
                j = i
                continue
            if cfull < W:
                cut0 = i
            break
        k = j
        if cut0 < 0:
            cut0 = k
        a0 = a0g = a1 = a1g = 0.0
        tpos = 0
        i = k
        while i < n:
            di = D[i]
            s0 = s0g = 0.0
            xb = 0
            while i < n and D[i] == di:
                v = F[i] * X[i]
                s0 += v
                s0g += v * G[i]
                xb += X[i]
                i += 1
            tpos += xb
            m = tpos - xb / 2
            a0 += s0
            a0g += s0g
            a1 += s0 * m
            a1g += s0g * m
        self.lo = lo
        self.low = low
        self.k = k
        self.cut0 = cut0
        self.cfull = cfull
        self.tpos = tpos
        self.a0, self.a0g, self.a1, self.a1g = a0, a0g, a1, a1g
        self.b3 = b3
        self.ops = 0
        if self.counts is not None:
            counts: dict[Any, int] = {}
            for p in self.partner[cut0:n]:
                counts[p] = counts.get(p, 0) + 1
            self.counts = counts

    def _expire(self, low: int) -> None:
        """Move the 3-year window on to ``(low, ...]``: whole blocks leave (S4)."""
        D, X = self.d, self.x
        n = len(D)
        lo = self.lo
        counts = self.counts
        P = self.partner
        while lo < n and D[lo] <= low:
            if lo < self.cut0:
                self.b3 -= X[lo]
                lo += 1
            elif lo < self.k:
                for i in range(lo, self.k):
                    self.b3 -= X[i]
                    if counts is not None:
                        counts[P[i]] -= 1
                lo = self.cut0 = self.k
            else:
                F, G = self.f, self.g
                k = self.k
                dk = D[k]
                s0 = s0g = 0.0
                xb = 0
                while k < n and D[k] == dk:
                    v = F[k] * X[k]
                    s0 += v
                    s0g += v * G[k]
                    xb += X[k]
                    if counts is not None:
                        counts[P[k]] -= 1
                    k += 1
                m = self.tpos - self.cfull + xb / 2
                self.a0 -= s0
                self.a0g -= s0g
                self.a1 -= s0 * m
                self.a1g -= s0g * m
                self.cfull -= xb
                self.b3 -= xb
                lo = self.k = self.cut0 = k
        self.lo = lo
        self.low = low

    def _at(self, as_of: int) -> int:
        """Bring the window to reference date ``as_of`` (>= the latest entry); returns ``low``."""
        low = self.rules.low(as_of)
        lo = self.lo
        if lo < 0 or (lo > 0 and self.d[lo - 1] > low):
            self._rebuild(low)
        elif low > self.low:
            self._expire(low)
        return low

    # ------------------------------------------------------------------ queries

    def current(self, as_of: int, restart: float | None = None) -> tuple[float, int, int, int]:
        """``(grade, status code, boards in 3 years, padding boards)`` on ``as_of``, which must be
        no earlier than the latest entry (S4, S14.7, S14.8)."""
        rules = self.rules
        n = len(self.d)
        if n == 0:
            return self.initial, PROVISIONAL, 0, rules.padding
        self._at(as_of)
        reached = self.reach >= 0
        if self.lo >= n:
            value = rules.restart if restart is None else restart
            return value, (OUT_OF_DATE if reached else PROVISIONAL), 0, rules.padding
        W = rules.window
        h = W - self.tpos
        num = h * self.a0g + self.a1g
        den = h * self.a0 + self.a1
        cut0 = self.cut0
        k = self.k
        if cut0 < k:
            X = self.x
            xb = 0
            for i in range(cut0, k):
                xb += X[i]
            kept = W - self.cfull
            height = W - self.cfull - kept / 2
            F, G = self.f, self.g
            for i in range(cut0, k):
                w = F[i] * (X[i] * kept / xb) * height
                num += w * G[i]
                den += w
        b3 = self.b3
        if reached:
            if b3 >= rules.mature:
                status = MATURE
            elif b3 >= rules.padding:
                status = EVOLVING
            else:
                status = OUT_OF_DATE
            return num / den, status, b3, 0
        padding = rules.padding - b3
        before = b3 if b3 < W else W
        w = padding * (W - before - padding / 2)
        cs = self.cs
        if cs == 0:
            pad = self.initial
        else:
            p = self.pad[cs]
            pad = rules.restart if p is None else p
        num += w * pad
        den += w
        return num / den, PROVISIONAL, b3, padding

    def sessions_in_window(self) -> int:
        """Sessions with weight (call after ``current``)."""
        return len(self.d) - self.cut0 if 0 <= self.lo < len(self.d) else 0

    def regular_with(self, partner: Any) -> bool:
        """Whether ``partner`` has strictly more than 85% of the window's sessions (S14.5);
        call after ``current`` at the same date."""
        counts = self.counts
        if counts is None or partner is None or not 0 <= self.lo < len(self.d):
            return False
        c = counts.get(partner, 0)
        rules = self.rules
        return c * rules.den > rules.num * (len(self.d) - self.cut0)

    def regular_partner(self) -> Any:
        counts = self.counts
        if counts is None or not 0 <= self.lo < len(self.d):
            return None
        sessions = len(self.d) - self.cut0
        rules = self.rules
        for partner, c in counts.items():
            if partner is not None and c * rules.den > rules.num * sessions:
                return partner
        return None

    def last_date(self) -> int | None:
        return self.d[-1] if self.d else None

    def entries(self) -> list[HistoryEntry]:
        fromordinal = dt.date.fromordinal
        return [
            HistoryEntry(s, fromordinal(d), x, g, f, p, pad)
            for s, d, x, g, f, p, pad in zip(
                self.s, self.d, self.x, self.g, self.f, self.partner, self.pad, strict=True
            )
        ]
