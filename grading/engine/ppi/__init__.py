"""Bridge Club Live's Past Performance Indicator (SPEC S10, seed 002): a pure engine.

Standard library only: no Django, no clock, no settings. Three layers, one module each:

* ``formulas``: the seed's formulas, :func:`ppi_weight` (``m``), :func:`ppi_update` (one
  board), :func:`ppi_par` (the percentage that leaves a PPI unchanged), :func:`ppi_suit`, and
  one player's updates over an event, :func:`ppi_boards` (board by board) and
  :func:`ppi_session_level` (``n`` boards at the session percentage);
* ``state``: :class:`PPIState` (every member's PPI, boards and month table), the standing a
  card shows, and what one event changed;
* ``fold``: :func:`ppi_apply` / :func:`ppi_apply_event` take a :class:`PPIState` and a session
  (or the sessions of one event) and return a :class:`PPIStep` (the new state and what
  changed); :func:`ppi_replay` folds sessions from empty in the order given (processing
  order). Nothing is mutated; every result is a frozen dataclass.

See ``docs/schemes.md`` for the design and ``docs/.decisions-schemes.md`` for the decisions.
"""

from grading.engine.ppi.fold import ppi_apply, ppi_apply_event, ppi_replay, why_not_rated
from grading.engine.ppi.formulas import (
    ACTIVE_BOARDS,
    DEFAULT_BOARDS,
    NEW_PPI,
    SHOWN_AFTER,
    BoardTerm,
    Suit,
    ppi_boards,
    ppi_par,
    ppi_session_level,
    ppi_suit,
    ppi_update,
    ppi_weight,
)
from grading.engine.ppi.state import (
    PPIChange,
    PPIEventResult,
    PPIPlayer,
    PPIPoint,
    PPIReason,
    PPIStanding,
    PPIState,
    PPIStep,
    month_index,
    ppi_list,
    ppi_standing,
)

__all__ = [
    "ACTIVE_BOARDS",
    "DEFAULT_BOARDS",
    "NEW_PPI",
    "SHOWN_AFTER",
    "BoardTerm",
    "PPIChange",
    "PPIEventResult",
    "PPIPlayer",
    "PPIPoint",
    "PPIReason",
    "PPIStanding",
    "PPIState",
    "PPIStep",
    "Suit",
    "month_index",
    "ppi_apply",
    "ppi_apply_event",
    "ppi_boards",
    "ppi_list",
    "ppi_par",
    "ppi_replay",
    "ppi_session_level",
    "ppi_standing",
    "ppi_suit",
    "ppi_update",
    "ppi_weight",
    "why_not_rated",
]
