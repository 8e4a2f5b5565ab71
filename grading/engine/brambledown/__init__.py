"""The Brambledown club grading system (SPEC S11, seed 003): a pure engine.

Standard library only: no Django, no clock, no settings. One module per layer:

* ``formulas``: the seed's formulas, :func:`ppr`, :func:`ipr`, :func:`new_player_ipr`,
  :func:`regrade`, and :func:`initial_grade` (how a percentage grade maps onto the scale that
  starts at 135); ``quarter``: :class:`Quarter`, safe at the calendar's edges;
* ``state``: :class:`BrambledownState`; ``session``: :func:`brambledown_session` gives every
  pair's PPR and every member's IPR from the grades in a state, changing nothing;
* ``fold``: :func:`brambledown_apply` records a session in the open quarter,
  :func:`brambledown_regrade` closes the quarter (new grades, A, B and pairs lists);
  ``replay``: :func:`brambledown_quarter` does a whole quarter's sessions in date order and
  :func:`brambledown_replay` every quarter from empty. Nothing is mutated; every result is a
  frozen dataclass.

See ``docs/schemes.md`` for the design and ``docs/.decisions-schemes.md`` for the decisions.
"""

from grading.engine.brambledown.fold import (
    BrambledownStep,
    GradeChange,
    ListEntry,
    PairListEntry,
    QuarterResult,
    brambledown_apply,
    brambledown_regrade,
)
from grading.engine.brambledown.formulas import (
    A_LIST_PARTNERS,
    A_LIST_TOURNAMENTS,
    B_LIST_TOURNAMENTS,
    FULL_QUARTER,
    NEW_PERFORMANCES,
    PAIRS_LIST_TOURNAMENTS,
    START,
    field_average,
    initial_grade,
    ipr,
    new_player_ipr,
    ppr,
    regrade,
    round_half_up,
)
from grading.engine.brambledown.quarter import Quarter
from grading.engine.brambledown.replay import (
    BrambledownReplay,
    brambledown_quarter,
    brambledown_replay,
)
from grading.engine.brambledown.session import (
    BrambledownReason,
    PairRating,
    PlayerRating,
    SessionRatings,
    brambledown_session,
    why_not_rated,
)
from grading.engine.brambledown.state import (
    BrambledownPlayer,
    BrambledownState,
    GradePoint,
    PairRecord,
    brambledown_initial,
    pair_key,
)

__all__ = [
    "A_LIST_PARTNERS",
    "A_LIST_TOURNAMENTS",
    "B_LIST_TOURNAMENTS",
    "FULL_QUARTER",
    "NEW_PERFORMANCES",
    "PAIRS_LIST_TOURNAMENTS",
    "START",
    "BrambledownPlayer",
    "BrambledownReason",
    "BrambledownReplay",
    "BrambledownState",
    "BrambledownStep",
    "GradeChange",
    "GradePoint",
    "ListEntry",
    "PairListEntry",
    "PairRating",
    "PairRecord",
    "PlayerRating",
    "Quarter",
    "QuarterResult",
    "SessionRatings",
    "brambledown_apply",
    "brambledown_initial",
    "brambledown_quarter",
    "brambledown_regrade",
    "brambledown_replay",
    "brambledown_session",
    "field_average",
    "initial_grade",
    "ipr",
    "new_player_ipr",
    "pair_key",
    "ppr",
    "regrade",
    "round_half_up",
    "why_not_rated",
]
