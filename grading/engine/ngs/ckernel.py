"""An optional compiled NGS ledger fold: ``csrc/ngs_kernel.c`` loaded with ctypes.

:class:`CKernelReplay` folds a ledger like ``kernel.KernelReplay`` (same figures, same
statistics, same ``KernelStep``s with ``record=True``) with the per-subject state and the hot
loop in C. Operations are marshalled into flat ``array`` buffers (per operation: kind, sequence,
version index, date, scoring, first grade, factor; per pair: the players' integer ids, score,
boards, comparison group and host flag) and handed to ONE C call per chunk.

What C grades itself: match-pointed, Butler, cross-IMP and aggregate pairs sessions without
Swiss matches (one- and two-winner movements, unknown players' h_u, host pairs, regular
pairs, the S9.1 new-partner rule) and every window rule (padding, careers, same-day blocks,
the 2000-board cut, the 3-year window, late uploads, withdrawals, statuses, partnership
grades). Every other graded session (Swiss pairs, teams...) is graded on the Python side by
``session.grade_session`` with standings read from the C state, and its session grades
are handed back to C, so the two never diverge: any ledger can be replayed.

The library is optional: ``ckernel_available()`` says whether it can be loaded,
``build_ckernel()`` compiles it with the system C compiler (``python -m
grading.engine.ngs.ckernel --build``), and ``ckernel_replay`` falls back to the pure-Python
kernel when it is missing.

Modules: ``clib`` (build and load the library), ``cpairs`` (the per-pair columns C reads),
``cstate`` (reading grades and standings from the C state), this one (the fold).
"""

from __future__ import annotations

import ctypes
import math
import sys
from array import array
from collections.abc import Iterable, Sequence
from typing import Any

from grading.engine.cbuild import addr
from grading.engine.ngs import clib
from grading.engine.ngs.clib import (
    REC_VALUES,
    SOURCE,
    Batch,
    CKernelUnavailable,
    build_ckernel,
    ckernel_available,
    ckernel_supports,
    library_path,
)
from grading.engine.ngs.cpairs import PairColumns
from grading.engine.ngs.cstate import CState
from grading.engine.ngs.kernel import KernelReplay, KernelStep, kernel_replay
from grading.engine.ngs.ledger import LedgerError, LedgerOp, ProcessOp
from grading.engine.ngs.params import NGS_DEFAULT, NGSParams
from grading.engine.ngs.session import grade_session, why_not_graded
from grading.engine.ngs.types import SessionOutcome
from grading.engine.types import Scoring, SessionResult

__all__ = [
    "CKernelReplay",
    "CKernelUnavailable",
    "library_path",
    "SOURCE",
    "build_ckernel",
    "ckernel_available",
    "ckernel_replay",
    "ckernel_supports",
]

CHUNK = 8192  # operations per C call

_KINDS = {Scoring.MP: 0, Scoring.BUTLER: 1, Scoring.CROSS_IMP: 2, Scoring.AGGREGATE: 3}
_KIND_BY_ID = {id(s): kind for s, kind in _KINDS.items()}


# ------------------------------------------------------------------ the replay


class CKernelReplay(CState):
    """The compiled fold. ``apply(op)`` queues one operation (performed in chunks of
    ``chunk``); reading any figure (``graded``, ``grade()``...) performs what is queued."""

    def __init__(
        self,
        params: NGSParams = NGS_DEFAULT,
        *,
        record: bool = False,
        keep_grades: bool = True,
        chunk: int = CHUNK,
    ) -> None:
        lib = clib.load_library()
        if lib is None:
            raise CKernelUnavailable(
                "the C kernel is not built (python -m grading.engine.ngs.ckernel --build)"
            )
        if not ckernel_supports(params):
            raise CKernelUnavailable(f"parameter set {params.name!r} is not supported in C")
        self._lib = lib
        self.params = params
        share = params.regular_share
        known = params.known_threshold
        ip = array(
            "i",
            [
                params.window_boards,
                params.window_years,
                params.padding_boards,
                params.mature_boards,
                share.numerator,
                share.denominator,
                params.default_boards,
                -1 if params.new_partner_min_boards is None else params.new_partner_min_boards,
                int(params.known_by_players),
                known.numerator,
                known.denominator,
            ],
        )
        dp = array(
            "d",
            [
                params.restart_grade,
                params.gain,
                params.rpcf,
                params.f_butler,
                params.f_cross,
                params.f_aggregate,
            ],
        )
        self._k = lib.ck_new(addr(ip), addr(dp))
        if not self._k:
            raise MemoryError("ck_new")
        self.record = record
        self.chunk = 1 if record else max(1, chunk)
        self.steps: list[KernelStep] = []
        self.grades: array[float] | None = array("d") if keep_grades else None
        self.last_seq = 0
        self.ids: dict[str | None, int] = {None: -1}
        self.numbers: list[str] = []
        self.live: dict[str, int] = {}
        self._vidx = 0
        self._weights: dict[int, tuple[float, float]] = {}
        self._known = (params.known_by_players, known.numerator, known.denominator)
        self._reset()

    def __del__(self) -> None:
        k = getattr(self, "_k", None)
        if k:
            self._lib.ck_free(k)
            self._k = None

    # ------------------------------------------------------------------ batches

    def _reset(self) -> None:
        self._kind: list[int] = []
        self._seq: list[int] = []
        self._vid: list[int] = []
        self._date: list[int] = []
        self._scoring: list[int] = []
        self._first: list[float] = []
        self._factor: list[float] = []
        self._pstart: list[int] = []
        self._npairs: list[int] = []
        # per pair: C buffers filled session by session
        self._pairs = PairColumns()
        self._pending: list[LedgerOp] = []

    def flush(self) -> None:
        """Perform the queued operations."""
        if not self._kind:
            return
        self._run(self._pack(), len(self._pairs))
        self._reset()

    def _pack(self) -> dict[str, array[Any]]:
        return {
            "kind": array("i", self._kind),
            "seq": array("i", self._seq),
            "vidx": array("i", self._vid),
            "date": array("i", self._date),
            "scoring": array("i", self._scoring),
            "first": array("d", self._first),
            "factor": array("d", self._factor),
            "pstart": array("i", self._pstart),
            "npairs": array("i", self._npairs),
            "pab": self._pairs.pab,
            "boards": self._pairs.boards,
            "score": self._pairs.score,
            "dmean": self._pairs.dmean,
            "flags": self._pairs.flags,
        }

    def _run(
        self,
        bufs: dict[str, array[Any]],
        n_pairs: int,
        extra_out: int = 0,
        want: bool = False,
        outputs: dict[str, array[Any]] | None = None,
    ) -> Batch:
        n = len(bufs["kind"])
        b = Batch()
        b.n_ops = n
        for name, buf in bufs.items():
            setattr(b, name, addr(buf))
        b.n_ids = len(self.numbers)
        out = array("d", bytes(8 * (2 * n_pairs + extra_out)))
        b.out_sg = addr(out)
        keep: list[array[Any]] = [out]
        if want:
            ref = array("i", bytes(4 * n))
            rec_id = array("i", bytes(4 * 2 * n_pairs))
            rec_val = array("d", bytes(8 * REC_VALUES * 2 * n_pairs))
            ps_id = array("i", bytes(4 * n_pairs))
            ps_sg = array("d", bytes(8 * n_pairs))
            keep += [ref, rec_id, rec_val, ps_id, ps_sg]
            b.out_ref, b.rec_id, b.rec_val = addr(ref), addr(rec_id), addr(rec_val)
            b.ps_id, b.ps_sg = addr(ps_id), addr(ps_sg)
        for name, buf in (outputs or {}).items():  # more outputs (cfold.WritingReplay)
            setattr(b, name, addr(buf))
            keep.append(buf)
        done = self._lib.ck_run(self._k, ctypes.byref(b))
        if done != n:
            raise MemoryError(f"the C kernel failed (code {done})")
        if self.grades is not None and b.n_out:
            self.grades.extend(out[: b.n_out])
        b._keep = keep  # the buffers live as long as the batch
        return b

    # ------------------------------------------------------------------ ledger

    def run(self, ledger: Iterable[LedgerOp]) -> CKernelReplay:
        for op in ledger:
            self.apply(op)
        self.flush()
        return self

    def apply(self, op: LedgerOp) -> None:
        if op.seq <= self.last_seq:
            self.flush()
            raise LedgerError(f"sequence {op.seq} is not after {self.last_seq}")
        if isinstance(op, ProcessOp):
            self._process(op)
        else:
            vidx = self.live.pop(op.version, None)
            if vidx is None:
                self.flush()
                raise LedgerError(f"version {op.version} is not live")
            if self.record:
                self._record_withdraw(op.seq, op.version, vidx)
            else:
                self._queue_op(1, op.seq, vidx)
                if len(self._kind) >= self.chunk:
                    self.flush()
        self.last_seq = op.seq

    def _weights_of(self, weighting: int) -> tuple[float, float]:
        w = self._weights.get(weighting)
        if w is None:
            p = self.params
            w = self._weights[weighting] = (p.first_grade(weighting), p.factor(weighting))
        return w

    def _new_id(self, number: str) -> int:
        i = self.ids[number] = len(self.numbers)
        self.numbers.append(number)
        return i

    def _process(self, op: ProcessOp) -> None:
        session = op.session
        if op.version in self.live:
            self.flush()
            raise LedgerError(f"version {op.version} is already live; withdraw it first")
        kind = _KIND_BY_ID.get(id(session.scoring))  # (an Enum's hash runs Python code)
        pairs = session.pairs
        if kind is None or session.matches or not session.graded_flag or len(pairs) < 2:
            if why_not_graded(session, self.params, op.host_pair):
                self._not_graded(op)
            else:
                self._by_reference(op)
            return
        p0 = len(self._pairs)
        got = self._pairs.add_session_c(session, op.host_pair, self.ids, kind == 3)
        if got is None:
            got = self._pairs.add_session(session, op.host_pair, self.ids, self._new_id)
            self._pairs.add_means(session, kind == 3)
        known, players = got
        if not self._known_enough(known, players, len(pairs)):
            self._pairs.truncate(p0)
            self._not_graded(op)
            return
        date = session.key.date.toordinal()
        self._queue_inline(op.seq, op.version, date, kind, session.weighting, p0, len(pairs))
        self._queued(op.seq, op.version, players, known, pairs)
        if self.record:
            self._record_process(op, session)
        elif len(self._kind) >= self.chunk:
            self.flush()

    def _known_enough(self, known: int, players: int, n_pairs: int) -> bool:
        """More than 2/3 of the pairs known, or of the players under S9.1 (S3.8)."""
        by_players, num, den = self._known
        if by_players:
            return players * den > num * 2 * n_pairs
        return known * den > num * n_pairs

    def _queue_inline(
        self, seq: int, version: str, date: int, kind: int, weighting: int, p0: int, n: int
    ) -> None:
        """Queue a session C grades itself, its pairs already in the pair columns."""
        first, factor = self._weights_of(weighting)
        vidx = self._vidx
        self._vidx += 1
        self.live[version] = vidx
        self._queue_op(0, seq, vidx, date, kind, first, factor, p0, n)

    def _queue_op(
        self,
        kind: int,
        seq: int,
        vidx: int,
        date: int = 0,
        scoring: int = 0,
        first: float = 0.0,
        factor: float = 1.0,
        p0: int | None = None,
        n: int = 0,
    ) -> None:
        """One operation's row in the chunk's columns (``kind``: 0 process, 1 withdraw, 3 not
        graded; pairs from ``p0``, none by default)."""
        self._kind.append(kind)
        self._seq.append(seq)
        self._vid.append(vidx)
        self._date.append(date)
        self._scoring.append(scoring)
        self._first.append(first)
        self._factor.append(factor)
        self._pstart.append(len(self._pairs) if p0 is None else p0)
        self._npairs.append(n)

    def _queued(
        self, seq: int, version: str, records: int, known: int, pairs: Sequence[Any]
    ) -> None:
        """A session C grades itself was queued with ``records`` member records, ``known``
        known pairs (S14.3) and ``pairs`` (its pairs, or their ids) (a hook)."""

    def _graded_by_reference(self, op: ProcessOp, outcome: SessionOutcome) -> None:
        """A session was graded by ``grade_session`` (a hook)."""

    def _added_by_reference(self, op: ProcessOp, outcome: SessionOutcome, ref: int) -> None:
        """A session graded by ``grade_session`` was added to the C state (a hook)."""

    def _not_graded(self, op: ProcessOp) -> None:
        if self.record:
            self.flush()
            d = op.session.date.toordinal()
            latest = self._lib.ck_latest(self._k)
            ref = d if latest < 0 or d > latest else latest
            self.steps.append(KernelStep(op.seq, "process", op.version, ref, (), (), (), ()))

    # ------------------------------------------------------------------ other scoring types

    def _by_reference(self, op: ProcessOp) -> None:
        """A session C does not grade: ``grade_session`` with standings from the C state;
        its grades go back to C as a pre-graded operation."""
        self.flush()
        session = op.session
        params = self.params
        lib, k = self._lib, self._k
        d = session.date.toordinal()
        latest = lib.ck_latest(k)
        ref = d if latest < 0 or d > latest else latest
        p0 = len(self._pairs)
        self._pairs.add_session(
            session, "\0no host", self.ids, self._new_id
        )  # ids and pairs (for initial grades)
        standings, pgrades = self.standings(session, ref)
        outcome = grade_session(
            session, standings, params, host_pair=op.host_pair, partnership_grades=pgrades
        )
        self._graded_by_reference(op, outcome)
        ids = self.ids
        recs = [r for r in outcome.players if r.session_grade is not None]
        first, factor = self._weights_of(session.weighting)
        vidx = self._vidx
        self._vidx += 1
        self.live[op.version] = vidx
        n = len(session.pairs)
        bufs = self._pack()
        bufs.update(
            kind=array("i", [2]),
            seq=array("i", [op.seq]),
            vidx=array("i", [vidx]),
            date=array("i", [d]),
            scoring=array("i", [0]),
            first=array("d", [first]),
            factor=array("d", [factor]),
            pstart=array("i", [p0]),
            npairs=array("i", [n]),
            rstart=array("i", [0]),
            nrec=array("i", [len(recs)]),
            qstart=array("i", [0]),
            nq=array("i", [len(outcome.partnerships)]),
            r_me=array("i", [ids[r.number] for r in recs]),
            r_partner=array("i", [ids[r.partner] for r in recs]),
            r_x=array("i", [r.boards for r in recs]),
            r_sg=array("d", [r.session_grade for r in recs if r.session_grade is not None]),
            q_a=array("i", [ids[ps.key[0]] for ps in outcome.partnerships]),
            q_b=array("i", [ids[ps.key[1]] for ps in outcome.partnerships]),
            q_x=array("i", [ps.boards for ps in outcome.partnerships]),
            q_sg=array("d", [ps.session_grade for ps in outcome.partnerships]),
            q_avg=array("d", [ps.pair_average for ps in outcome.partnerships]),
        )
        self._run(bufs, len(self._pairs), extra_out=len(recs))
        self._reset()
        self._added_by_reference(op, outcome, ref)
        if self.record:
            players = tuple(
                (r.number, r.grade_before, r.sopp, r.excess, r.session_grade, r.regular_adjustment)
                for r in outcome.players
            )
            pships = tuple((ps.key, ps.session_grade) for ps in outcome.partnerships)
            pids = [
                ck
                for ck in (
                    lib.ck_pship_find(k, ids[ps.key[0]], ids[ps.key[1]])
                    for ps in outcome.partnerships
                )
            ]
            self.steps.append(
                KernelStep(
                    op.seq,
                    "process",
                    op.version,
                    ref,
                    players,
                    pships,
                    self._player_grades(self._members(session), ref),
                    self._pship_grades(pids, ref),
                )
            )

    def _record_process(self, op: ProcessOp, session: SessionResult) -> None:
        b = self._run(self._pack(), len(self._pairs), want=True)
        self._reset()
        ref = b._keep[1][0]
        rec_id, rec_val, ps_id, ps_sg = b._keep[2:]

        def opt(v: float) -> float | None:
            return None if math.isnan(v) else v

        players = tuple(
            (
                self.numbers[rec_id[j]],
                rec_val[REC_VALUES * j],
                opt(rec_val[REC_VALUES * j + 1]),
                opt(rec_val[REC_VALUES * j + 2]),
                opt(rec_val[REC_VALUES * j + 3]),
                rec_val[REC_VALUES * j + 4],
            )
            for j in range(b.n_rec)
        )
        pids = [ps_id[j] for j in range(b.n_ps)]
        pships = tuple((self._pship_key(ps_id[j]), ps_sg[j]) for j in range(b.n_ps))
        self.steps.append(
            KernelStep(
                op.seq,
                "process",
                op.version,
                ref,
                players,
                pships,
                self._player_grades(self._members(session), ref),
                self._pship_grades(pids, ref),
            )
        )

    def _record_withdraw(self, seq: int, version: str, vidx: int) -> None:
        self.flush()
        lib, k = self._lib, self._k
        nq = ctypes.c_int32()
        buf = array("i", bytes(4 * 4096))
        np_ = lib.ck_version(k, vidx, addr(buf), len(buf), ctypes.byref(nq))
        if np_ + nq.value > len(buf):
            buf = array("i", bytes(4 * (np_ + nq.value)))
            np_ = lib.ck_version(k, vidx, addr(buf), len(buf), ctypes.byref(nq))
        numbers = [self.numbers[i] for i in buf[:np_]]
        pids = list(buf[np_ : np_ + nq.value])
        bufs = self._pack()
        bufs.update(
            kind=array("i", [1]),
            seq=array("i", [seq]),
            vidx=array("i", [vidx]),
            date=array("i", [0]),
            scoring=array("i", [0]),
            first=array("d", [0.0]),
            factor=array("d", [1.0]),
            pstart=array("i", [0]),
            npairs=array("i", [0]),
        )
        b = self._run(bufs, 0, want=True)
        ref = b._keep[1][0]
        self.steps.append(
            KernelStep(
                seq,
                "withdraw",
                version,
                ref,
                (),
                (),
                self._player_grades(numbers, ref),
                self._pship_grades(pids, ref),
            )
        )


def ckernel_replay(
    ledger: Iterable[LedgerOp],
    params: NGSParams = NGS_DEFAULT,
    *,
    record: bool = False,
    fallback: bool = True,
) -> CKernelReplay | KernelReplay:
    """Fold a whole ledger from empty with the C kernel; when it is not available (or not for
    these parameters) with the Python kernel if ``fallback``, else raise CKernelUnavailable."""
    if not (ckernel_available() and ckernel_supports(params)):
        if not fallback:
            raise CKernelUnavailable("the C kernel is not available for these parameters")
        return kernel_replay(ledger, params, record=record)
    return CKernelReplay(params, record=record).run(ledger)


if __name__ == "__main__":
    sys.exit(clib.main())
