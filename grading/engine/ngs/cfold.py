"""The compiled fold for whole-ledger operations (``replay --check``, what-if): every member's
session-grade record handed to a sink, sessions fed as columns.

:class:`ColumnsReplay` is a :class:`~grading.engine.ngs.ckernel.CKernelReplay` that also
takes sessions as columns. :class:`RecordsReplay` is one that runs in
chunks (one C call per ``chunk`` operations) and, after each, hands every graded version's
member records to ``sink(seq, version, ids, values)``: ``ids`` the members' integer ids in the
order of ``SessionOutcome.players`` (pair by pair, first player first, members only), ``values``
``REC_VALUES`` floats per member in :data:`RECORD_PARTS` order (NaN: None). Sessions C grades
itself can be fed straight from columns (:meth:`ColumnsReplay.process_columns`, ids given by
the caller after :meth:`RecordsReplay.register`); any other session goes through ``apply`` with
a ``ProcessOp`` (``grade_session`` on standings read from the C state), so every scoring type
is folded and the sink sees every graded version in sequence order.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Sequence
from typing import Any

from grading.engine.ngs.ckernel import CKernelReplay
from grading.engine.ngs.clib import REC_VALUES
from grading.engine.ngs.cpairs import HOST_FLAG
from grading.engine.ngs.ledger import LedgerError, ProcessOp
from grading.engine.ngs.params import NGS_DEFAULT, NGSParams
from grading.engine.ngs.types import SessionOutcome
from grading.engine.types import Direction, Movement, Scoring

__all__ = [
    "DIRECTION_CODES",
    "INLINE_SCORING",
    "RECORD_PARTS",
    "ColumnsReplay",
    "RecordsReplay",
    "Sink",
]

# the parts of a member's session-grade record, in the order of the sink's values
RECORD_PARTS = (
    "grade_before",
    "sopp",
    "excess",
    "session_grade",
    "regular_adjustment",
    "score_term",
    "par",
    "partner_grade",
)
assert len(RECORD_PARTS) == REC_VALUES

# scoring types C grades itself (pairs sessions without Swiss matches), as C's kind codes
INLINE_SCORING = {Scoring.MP: 0, Scoring.BUTLER: 1, Scoring.CROSS_IMP: 2, Scoring.AGGREGATE: 3}
# a pair's direction as ``process_columns`` takes it, by its stored value ("": none)
DIRECTION_CODES = {"": 0, Direction.NS.value: 1, Direction.EW.value: 2}

Sink = Callable[[int, str, "array[int]", "array[float]"], None]
_NAN = math.nan


def _value(x: float | None) -> float:
    return _NAN if x is None else x


class ColumnsReplay(CKernelReplay):
    """The compiled fold that also takes sessions as columns (``process_columns``), as the
    whole-ledger operations read them from the database (and the replay benchmark feeds its
    synthetic ledger, ``grading.lab.ledgercolumns``); any other operation goes to ``apply``."""

    def member_id(self, number: str | None) -> int:
        """The integer id of the member ``number`` (-1: a player without one), given on first
        sight: the ids the columns carry when no members were registered up front."""
        if number is None:
            return -1
        i = self.ids.get(number)
        return self._new_id(number) if i is None else i

    def _not_graded_columns(self, seq: int, version: str, date: int, known: int, n: int) -> None:
        """A session fed as columns is not graded: too few known pairs or players (a hook)."""

    def process_columns(
        self,
        seq: int,
        version: str,
        *,
        date: int,
        scoring: Scoring,
        movement: Movement,
        weighting: int,
        pair_ids: Sequence[str],
        pab: array[int],
        boards: array[int],
        score: array[float],
        dmean: array[float],
        direction: array[int],
        marked: array[int],
        host_pair: str | None,
    ) -> bool:
        """Process a graded-flagged pairs session C grades itself, given as columns (one entry
        per pair; ``pab`` two member ids per pair, -1 for a player without a number; ``boards``
        0 when not reported; ``score``/``dmean`` NaN when absent; ``direction`` 0 none, 1 NS,
        2 EW; ``marked`` 1 for a pair marked non-rateable). ``date`` is an ordinal. Returns
        False, doing nothing, for a session C does not grade itself, or when the fold records
        its steps (feed it to ``apply``)."""
        kind = INLINE_SCORING.get(scoring)
        n = len(pair_ids)
        if kind is None or n < 2 or self.record:
            return False
        if seq <= self.last_seq:
            self.flush()
            raise LedgerError(f"sequence {seq} is not after {self.last_seq}")
        if version in self.live:
            self.flush()
            raise LedgerError(f"version {version} is already live; withdraw it first")
        self.last_seq = seq
        # the host pair (S3.9, S14.4): an approved request wins, else the first marked pair
        if host_pair is not None:
            host = pair_ids.index(host_pair) if host_pair in pair_ids else -1
        else:
            host = marked.index(1) if 1 in marked else -1
        unknown = pab.count(-1)
        players = 2 * n - unknown
        known = n
        if unknown:
            known = sum(
                1 for j in range(n) if (pab[2 * j] >= 0 and pab[2 * j + 1] >= 0) or j == host
            )
        if not self._known_enough(known, players, n):
            self._not_graded_columns(seq, version, date, known, n)
            return True  # not graded: changes nothing (S14.9)
        cols = self._pairs
        cols.settle()  # the pair reader's room after the pairs (cpairs.PairColumns)
        p0 = len(cols)
        cols.pab.extend(pab)
        cols.boards.extend(boards)
        cols.score.extend(score)
        cols.dmean.extend(dmean if kind == 3 else array("d", [_NAN]) * n)
        flags = array("b", direction) if movement is Movement.TWO_WINNER else array("b", bytes(n))
        if host >= 0:
            flags[host] |= HOST_FLAG
        cols.flags.extend(flags)
        self._queue_inline(seq, version, date, kind, weighting, p0, n)
        self._queued(seq, version, players, known, pair_ids)
        if len(self._kind) >= self.chunk:
            self.flush()
        return True


class RecordsReplay(ColumnsReplay):
    """The compiled fold with every member record handed to ``sink`` (see the module)."""

    def __init__(self, params: NGSParams = NGS_DEFAULT, *, sink: Sink, chunk: int = 8192):
        self._sink = sink
        self._inline: list[tuple[int, str, int]] = []
        super().__init__(params, keep_grades=False, chunk=chunk)

    def register(self, numbers: Sequence[str]) -> None:
        """Use ``numbers[i]`` as the member of integer id ``i`` (before any operation), so that
        columns can carry ids (a database's member keys) instead of numbers."""
        if self.numbers:
            raise LedgerError("members are registered before the first operation")
        self.numbers = list(numbers)
        self.ids = {None: -1}
        self.ids.update((n, i) for i, n in enumerate(self.numbers))

    # ------------------------------------------------------------------ records

    def _queued(
        self, seq: int, version: str, records: int, known: int, pairs: Sequence[Any]
    ) -> None:
        self._inline.append((seq, version, records))

    def flush(self) -> None:
        if not self._kind:
            return
        batch = self._run(self._pack(), len(self._pairs), want=True)
        rec_id, rec_val = batch._keep[2], batch._keep[3]
        at = 0
        sink = self._sink
        for seq, version, n in self._inline:
            sink(
                seq, version, rec_id[at : at + n], rec_val[REC_VALUES * at : REC_VALUES * (at + n)]
            )
            at += n
        if at != batch.n_rec:
            raise RuntimeError(f"the C kernel gave {batch.n_rec} member records, {at} expected")
        self._inline = []
        self._reset()

    def _graded_by_reference(self, op: ProcessOp, outcome: SessionOutcome) -> None:
        ids = self.ids
        values = array("d")
        for r in outcome.players:
            values.extend(
                (
                    r.grade_before,
                    _value(r.sopp),
                    _value(r.excess),
                    _value(r.session_grade),
                    r.regular_adjustment,
                    _value(r.score_term),
                    _value(r.par),
                    _value(r.partner_grade),
                )
            )
        self._sink(op.seq, op.version, array("i", [ids[r.number] for r in outcome.players]), values)
