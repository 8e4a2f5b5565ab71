"""Where a whole-ledger operation's time went: seconds per named phase (the refold's
``RefoldStats``, ``replay --check``'s ``FoldStats``; the bench prints them)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

__all__ = ["PhaseTimes"]


@dataclass
class PhaseTimes:
    """Seconds per named phase, added up (``timed``)."""

    seconds: dict[str, float] = field(default_factory=dict, kw_only=True)

    def timed(self, name: str, t0: float) -> float:
        """The time since ``t0`` added to phase ``name``; returns now (the next phase's t0)."""
        now = time.perf_counter()
        self.seconds[name] = self.seconds.get(name, 0.0) + now - t0
        return now
