"""A ledger operation as the columns a whole-ledger fold reads (issue 31): what
``grading.ledger.replay.read`` builds from the database's columnar copy of each version, built
here from a ``SessionResult``, so that the replay benchmark folds the synthetic ledger the way
the product's refold and ``replay --check`` fold a database (``ColumnsReplay.process_columns``).
Pure: no Django, no clock."""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable
from typing import Any

from grading.engine.ngs.cfold import DIRECTION_CODES, INLINE_SCORING
from grading.engine.ngs.ledger import LedgerOp, ProcessOp

_NAN = math.nan


def session_columns(op: LedgerOp, member_id: Callable[[str | None], int]) -> dict[str, Any] | None:
    """``process_columns``' keyword arguments for ``op``, its members' ids given by
    ``member_id`` (-1 for a player without a number); None for an operation the columns do
    not carry (a withdrawal, a session with Swiss matches, one not flagged for grading, a
    scoring type the compiled fold does not grade itself, fewer than two pairs): feed those to
    ``apply``."""
    if not isinstance(op, ProcessOp):
        return None
    s = op.session
    pairs = s.pairs
    if s.matches or not s.graded_flag or s.scoring not in INLINE_SCORING or len(pairs) < 2:
        return None
    return {
        "date": s.date.toordinal(),
        "scoring": s.scoring,
        "movement": s.movement,
        "weighting": s.weighting,
        "pair_ids": [p.pair_id for p in pairs],
        "pab": array("i", [member_id(pl.number) for p in pairs for pl in p.players]),
        "boards": array("i", [p.boards or 0 for p in pairs]),
        "score": array("d", [_NAN if p.score is None else p.score for p in pairs]),
        "dmean": array(
            "d", [_NAN if p.direction_mean is None else p.direction_mean for p in pairs]
        ),
        "direction": array(
            "b", [0 if p.direction is None else DIRECTION_CODES[p.direction.value] for p in pairs]
        ),
        "marked": array("b", [0 if p.rateable else 1 for p in pairs]),
        "host_pair": op.host_pair,
    }
