"""The compiled fold that writes (issue 18): every figure a refold, ``replay`` or the national
database builder stores, from the C kernel, as ``grading.engine.ngs.foldout`` describes.

:class:`WritingReplay` has the interface of the Python producer
(``grading.engine.ngs.foldpy.PythonFold``): ``register``, ``apply``, ``process_columns``,
``flush``, then ``current_grades``, ``partnership_grades`` and ``histories``. Sessions C grades
itself (``cfold.INLINE_SCORING``) are graded in chunks, and C writes every record, pair and
version figure into flat buffers (its "write mode"), each member's grade after the step
included; the buffers are cut into one :class:`~grading.engine.ngs.foldout.VersionOut` per
version after each chunk. Versions not graded go through the same queue (a C operation that
only gives the reference date), so the sink sees every processed version in sequence order.
Sessions of other types are graded by ``grade_session`` (``CKernelReplay._by_reference``) and
converted as the Python producer converts them, the grades after read in one C call. The end
tables are read in one C call each.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from itertools import accumulate
from operator import attrgetter
from typing import Any

from grading.engine.cbuild import addr, zeros
from grading.engine.ngs.cfold import RecordsReplay
from grading.engine.ngs.ckernel import CHUNK
from grading.engine.ngs.clib import CKernelUnavailable, ckernel_available, ckernel_supports
from grading.engine.ngs.foldout import (
    PAIR_FIGURES,
    RECORD_FIGURES,
    CurrentOut,
    HistoriesOut,
    PartnershipsOut,
    VersionOut,
    VersionSink,
)
from grading.engine.ngs.foldpy import PythonFold, not_graded_out, version_out
from grading.engine.ngs.ledger import ProcessOp
from grading.engine.ngs.params import NGS_DEFAULT, NGSParams
from grading.engine.ngs.session import host_pair_of, known_pairs, why_not_graded
from grading.engine.ngs.types import Reason, SessionOutcome

__all__ = ["WritingReplay", "writing_fold"]

_NREC = len(RECORD_FIGURES)
_NPAIR = len(PAIR_FIGURES)
assert (_NREC, _NPAIR) == (10, 4)  # REC_FIGURES, PAIR_FIGURES in ngs_kernel.c


_pair_id = attrgetter("pair_id")

# the write mode's output buffers: (name, type code, values per operation, per pair, per record)
_OUTPUTS = (
    ("out_ref", "i", 1, 0, 0),
    ("out_sof", "d", 1, 0, 0),
    ("rec_id", "i", 0, 0, 1),
    ("rec_fig", "d", 0, 0, _NREC),
    ("rec_partner", "i", 0, 0, 1),
    ("rec_pair", "i", 0, 0, 1),
    ("rec_boards", "i", 0, 0, 1),
    ("rec_reported", "b", 0, 0, 1),
    ("rec_reason", "b", 0, 0, 1),
    ("pair_fig", "d", 0, _NPAIR, 0),
    ("pair_known", "b", 0, 1, 0),
    ("pair_host", "b", 0, 1, 0),
)


def _no_records(*args: object) -> None:
    """RecordsReplay's sink, unused: WritingReplay hands VersionOut instead."""


# History entries a batch of histories holds, about. Nationally (21 million entries) a same-set
# refold peaked at 1,981 MB with 2 million, 1,899 MB with 1 million and 1,848 MB with 500,000,
# in the same time (154, 157, 154 s; docs/benchmarks.md).
HISTORY_BATCH_ENTRIES = 500_000


def history_cuts(counts: Sequence[int], subjects: int, entries: int) -> Iterator[tuple[int, int]]:
    """Consecutive ranges ``[first, last)`` of subjects (``counts``: each one's entries), each
    of at most ``subjects`` subjects and, unless one subject alone has more, at most
    ``entries`` entries; at least one range, even for no subjects."""
    ends = list(accumulate(counts))  # entries up to and including each subject
    first, total = 0, len(ends)
    while True:
        before = ends[first - 1] if first else 0
        last = min(bisect_right(ends, before + entries, first), first + subjects, total)
        last = max(last, first + 1) if first < total else total  # one subject may be over
        yield first, last
        if last >= total:
            return
        first = last


class WritingReplay(RecordsReplay):
    """The compiled fold handing :class:`VersionOut` to ``sink`` (see the module)."""

    def __init__(
        self, params: NGSParams = NGS_DEFAULT, *, sink: VersionSink, chunk: int = CHUNK
    ) -> None:
        self._out = sink
        self._todo: list[tuple] = []
        self._vseq = array("i")  # by version index: sequence number, date
        self._vdate = array("i")
        self._bufs: dict[str, array[Any]] = {}
        self._rank = array("i")
        super().__init__(params, sink=_no_records, chunk=chunk)

    # ------------------------------------------------------------------ queueing

    def _queue_inline(
        self, seq: int, version: str, date: int, kind: int, weighting: int, p0: int, n: int
    ) -> None:
        self._vseq.append(seq)
        self._vdate.append(date)
        super()._queue_inline(seq, version, date, kind, weighting, p0, n)

    def _queued(self, seq: int, version: str, records: int, known: int, pairs) -> None:
        ids = tuple(pairs) if isinstance(pairs[0], str) else tuple(map(_pair_id, pairs))
        o = len(self._kind) - 1
        self._todo.append((True, seq, version, o, self._pstart[o], records, known, ids))

    def _not_graded(self, op: ProcessOp) -> None:
        s = op.session
        host, _ = host_pair_of(s, op.host_pair)
        reason = why_not_graded(s, self.params, op.host_pair)
        known = known_pairs(s, host)
        self._nothing(op.seq, op.version, s.date.toordinal(), reason, known, len(s.pairs))

    def _not_graded_columns(self, seq: int, version: str, date: int, known: int, n: int) -> None:
        by_players = self.params.known_by_players
        reason = Reason.TOO_FEW_KNOWN_PLAYERS if by_players else Reason.TOO_FEW_KNOWN
        self._nothing(seq, version, date, reason, known, n)

    def _nothing(
        self, seq: int, version: str, date: int, reason: str, known: int, total: int
    ) -> None:
        """Queue a version not graded: a C operation that only gives its reference date."""
        self._todo.append((False, seq, version, len(self._kind), reason, known, total))
        self._queue_op(3, seq, 0, date)
        if len(self._kind) >= self.chunk:
            self.flush()

    def _graded_by_reference(self, op: ProcessOp, outcome: SessionOutcome) -> None:
        """Nothing before the step: the version is handed out once C has added it."""

    def _added_by_reference(self, op: ProcessOp, outcome: SessionOutcome, ref: int) -> None:
        self._vseq.append(op.seq)
        self._vdate.append(op.session.date.toordinal())
        ids = self.ids
        members = array("i", [ids[r.number] for r in outcome.players])
        after = zeros("d", len(members))
        self._lib.ck_grades(self._k, len(members), addr(members), ref, addr(after))
        grades = {r.number: g for r, g in zip(outcome.players, after, strict=True) if g == g}
        self._out(version_out(op.seq, op.version, ref, outcome, grades, ids))

    # ------------------------------------------------------------------ a chunk

    def flush(self) -> None:
        if not self._kind:
            return
        n_ops, n_pairs = len(self._kind), len(self._pairs)
        out = self._buffers(n_ops, n_pairs)
        batch = self._run(self._pack(), n_pairs, outputs=out)
        self._reset()
        todo, self._todo = self._todo, []
        self._hand_out(todo, out, batch.n_rec)

    def _buffers(self, n_ops: int, n_pairs: int) -> dict[str, array[Any]]:
        """The output buffers, reused from chunk to chunk (what is handed out is copied)."""
        out = self._bufs
        for name, code, per_op, per_pair, per_rec in _OUTPUTS:
            need = per_op * n_ops + per_pair * n_pairs + per_rec * 2 * n_pairs
            if name not in out or len(out[name]) < need:
                out[name] = zeros(code, need + need // 4)
        return out

    def _hand_out(self, todo: list[tuple], out: dict[str, array[Any]], n_rec: int) -> None:
        ref, sof = out["out_ref"], out["out_sof"]
        rec_id, rec_fig = out["rec_id"], out["rec_fig"]
        partner, pair, boards = out["rec_partner"], out["rec_pair"], out["rec_boards"]
        reported, reason = out["rec_reported"], out["rec_reason"]
        pair_fig, known_, host = out["pair_fig"], out["pair_known"], out["pair_host"]
        sink = self._out
        r = 0
        for item in todo:
            if not item[0]:
                _, seq, version, o, why, known, total = item
                sink(not_graded_out(seq, version, why, ref[o], known, total))
                continue
            _, seq, version, o, p0, n, known, pair_ids = item
            m = len(pair_ids)
            e = r + n
            sink(
                VersionOut(
                    seq,
                    version,
                    True,
                    "",
                    ref[o],
                    sof[o],
                    known,
                    m,
                    pair_ids,
                    known_[p0 : p0 + m],
                    host[p0 : p0 + m],
                    pair_fig[_NPAIR * p0 : _NPAIR * (p0 + m)],
                    rec_id[r:e],
                    partner[r:e],
                    pair[r:e],
                    boards[r:e],
                    reported[r:e],
                    reason[r:e],
                    rec_fig[_NREC * r : _NREC * e],
                )
            )
            r = e
        if r != n_rec:
            raise RuntimeError(f"the C kernel gave {n_rec} member records, {r} expected")

    # ------------------------------------------------------------------ the end

    def _ranks(self) -> array[int]:
        """Each member id's place in the order of the members' numbers (the engine orders a
        partnership's ends by number)."""
        numbers = self.numbers
        if len(self._rank) != len(numbers):  # computed once per set of members
            rank = self._rank = zeros("i", len(numbers))
            for place, i in enumerate(sorted(range(len(numbers)), key=numbers.__getitem__)):
                rank[i] = place
        return self._rank

    def current_grades(self, as_of: int) -> CurrentOut:  # type: ignore[override]  # the writer's columns
        """Every player with a live session, their grade on ``as_of`` (an ordinal no earlier
        than the latest date of play), in member id order."""
        self.flush()
        n = len(self.numbers)
        cols = [zeros(t, n) for t in ("i", "d", "b", "i", "i", "d", "i")]
        m = self._lib.ck_dump_players(self._k, as_of, *map(addr, cols))
        for c in cols:
            del c[m:]
        return CurrentOut(as_of, *cols)

    def partnership_grades(self, as_of: int) -> PartnershipsOut:
        """Every partnership with a live session, its grade on ``as_of``, in the order the
        fold met them (``a``, ``b`` in the order of their numbers)."""
        n = self._stats()[4]
        cols = [zeros(t, n) for t in ("i", "i", "d", "b", "d", "i", "i", "i", "i")]
        rank = self._ranks()
        m = self._lib.ck_dump_pships(self._k, as_of, addr(rank), *map(addr, cols))
        for c in cols:
            del c[m:]
        return PartnershipsOut(as_of, *cols)

    def histories(self) -> HistoriesOut:
        """Every subject the fold has met (players in member id order, then partnerships in
        the order met) and every live history entry; the live versions in the order
        processed."""
        return self._histories(0, 2**31 - 1)

    def history_batches(
        self, subjects: int = 200_000, entries: int = HISTORY_BATCH_ENTRIES
    ) -> Iterator[HistoriesOut]:
        """``histories()`` in batches of at most ``subjects`` subjects and about ``entries``
        entries (a subject's entries are never split; memory holds one batch: a national
        ledger's histories hold about 21 million entries, two thirds of them in the 50,000
        players' histories, which come first)."""
        self.flush()
        for first, last in history_cuts(self._history_counts(), subjects, entries):
            yield self._histories(first, last)

    def _history_counts(self) -> array[int]:
        counts = zeros("i", int(self._history_size(0, 0)[0]))
        self._lib.ck_history_counts(self._k, addr(counts))
        return counts

    def _history_size(self, s0: int, s1: int) -> array[int]:
        size = array("q", bytes(16))
        self._lib.ck_history_size(self._k, s0, s1, addr(size))
        return size

    def _histories(self, s0: int, s1: int) -> HistoriesOut:
        self.flush()
        total, n_entries = self._history_size(s0, s1)
        n = max(0, min(s1, total) - s0)
        subjects = [zeros(t, n) for t in ("i", "i", "d")]
        entries = [zeros(t, n_entries) for t in ("i", "i", "i", "i", "i", "d", "d", "i", "d")]
        done = self._lib.ck_dump_histories(
            self._k, addr(self._ranks()), s0, s1, *map(addr, subjects), *map(addr, entries)
        )
        if done != n:
            raise MemoryError("ck_dump_histories")
        versions: tuple[str, ...] = ()
        live, dates = array("i"), array("i")
        if s0 == 0:
            versions = tuple(self.live)
            live = array("i", [self._vseq[v] for v in self.live.values()])
            dates = array("i", [self._vdate[v] for v in self.live.values()])
        return HistoriesOut(*subjects, *entries, live, versions, dates, s0)  # type: ignore[arg-type, call-arg]


def writing_fold(
    params: NGSParams = NGS_DEFAULT,
    *,
    sink: VersionSink,
    fallback: bool = True,
    chunk: int = CHUNK,
) -> WritingReplay | PythonFold:
    """The fastest writing fold for ``params``: the compiled one when the library is built and
    supports them, else (``fallback``) the Python producer on the fast path; without
    ``fallback`` a missing library raises ``CKernelUnavailable``."""
    if ckernel_available() and ckernel_supports(params):
        return WritingReplay(params, sink=sink, chunk=chunk)
    if not fallback:
        raise CKernelUnavailable("the C kernel is not available for these parameters")
    return PythonFold(params, sink=sink)
