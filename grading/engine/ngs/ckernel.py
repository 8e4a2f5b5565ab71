"""An optional compiled NGS ledger fold: ``csrc/ngs_kernel.c`` loaded with ctypes.

:class:`CKernelReplay` folds a ledger like ``ngs_kernel.KernelReplay`` (same figures, same
statistics, same ``KernelStep``s with ``record=True``) with the per-subject state and the hot
loop in C. Operations are marshalled into flat ``array`` buffers (per operation: kind, sequence,
version index, date, scoring, first grade, factor; per pair: the players' integer ids, score,
boards, comparison group and host flag) and handed to ONE C call per chunk.

What C grades itself: match-pointed, Butler, cross-IMP and aggregate pairs sessions without
Swiss matches (one- and two-winner movements, unknown players' h_u, host pairs, regular
pairs, the S9.1 new-partner rule) and every window rule (padding, careers, same-day blocks,
the 2000-board cut, the 3-year window, late uploads, withdrawals, statuses, partnership
grades). Every other graded session (Swiss pairs, teams...) is graded on the Python side by
``ngs_session.grade_session`` with standings read from the C state, and its session grades
are handed back to C, so the two never diverge: any ledger can be replayed.

The library is optional: ``ckernel_available()`` says whether it can be loaded,
``build_ckernel()`` compiles it with the system C compiler (``python -m
grading.engine.ngs.ckernel --build``), and ``ckernel_replay`` falls back to the pure-Python
kernel when it is missing. Nothing else in the product depends on it.
"""

from __future__ import annotations

import ctypes
import hashlib
import math
import os
import shutil
import subprocess
import sys
import tempfile
from array import array
from collections.abc import Iterable, Iterator
from itertools import chain
from operator import attrgetter
from pathlib import Path
from typing import Any

from grading.engine.ngs.kernel import KernelReplay, KernelStep, kernel_replay
from grading.engine.ngs.ledger import LedgerError, LedgerOp, ProcessOp
from grading.engine.ngs.params import NGS_DEFAULT, NGSParams
from grading.engine.ngs.session import grade_session, why_not_graded
from grading.engine.ngs.types import PartnershipKey, PlayerStanding
from grading.engine.ngs.window import STATUS_CODES
from grading.engine.types import Direction, Movement, Scoring, SessionResult

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

HERE = Path(__file__).resolve().parent / "csrc"
SOURCE = HERE / "ngs_kernel.c"
_SUFFIX = ".dll" if sys.platform == "win32" else ".so"
ABI = 5
CHUNK = 8192  # operations per C call

_KINDS = {Scoring.MP: 0, Scoring.BUTLER: 1, Scoring.CROSS_IMP: 2, Scoring.AGGREGATE: 3}
_NAN = math.nan
_NAN_BLOCK = array("d", [math.nan] * 64)
_ZEROS = array("b", bytes(64))
_TWO_WINNER = Movement.TWO_WINNER
_NS = Direction.NS
_KIND_BY_ID = {id(s): kind for s, kind in _KINDS.items()}
_players = attrgetter("players")
_number = attrgetter("number")
_score = attrgetter("score")
_boards = attrgetter("boards")
_direction = attrgetter("direction")
_rateable = attrgetter("rateable")
_chain = chain.from_iterable

_I32 = ctypes.c_int32
_P = ctypes.c_void_p


class CKernelUnavailable(RuntimeError):
    """The compiled kernel cannot be used (not built, no compiler, unsupported parameters)."""


class _Batch(ctypes.Structure):
    """Mirror of ``Batch`` in ngs_kernel.c."""

    _fields_ = [
        ("n_ops", _I32),
        ("kind", _P),
        ("seq", _P),
        ("vidx", _P),
        ("date", _P),
        ("scoring", _P),
        ("first", _P),
        ("factor", _P),
        ("pstart", _P),
        ("npairs", _P),
        ("rstart", _P),
        ("nrec", _P),
        ("qstart", _P),
        ("nq", _P),
        ("pab", _P),
        ("boards", _P),
        ("score", _P),
        ("dmean", _P),
        ("flags", _P),
        ("r_me", _P),
        ("r_partner", _P),
        ("r_x", _P),
        ("r_sg", _P),
        ("q_a", _P),
        ("q_b", _P),
        ("q_x", _P),
        ("q_sg", _P),
        ("q_avg", _P),
        ("n_ids", _I32),
        ("out_sg", _P),
        ("n_out", ctypes.c_int64),
        ("out_ref", _P),
        ("rec_id", _P),
        ("rec_val", _P),
        ("n_rec", ctypes.c_int64),
        ("ps_id", _P),
        ("ps_sg", _P),
        ("n_ps", ctypes.c_int64),
    ]


# ------------------------------------------------------------------ build and load

_lib: Any = None
_load_failed = False


def library_path() -> Path:
    """Where the library built from the current ``ngs_kernel.c`` lives: the name carries a
    hash of the source, so an edited source is never served by a stale library (and a
    process that loaded one library never mistakes a rebuilt one for it)."""
    digest = hashlib.sha1(SOURCE.read_bytes()).hexdigest()[:12] if SOURCE.exists() else "none"
    return HERE / f"libngs_kernel-{digest}{_SUFFIX}"


def build_ckernel(*, quiet: bool = True) -> Path | None:
    """Compile ``ngs_kernel.c`` with the system C compiler into ``library_path()``; None on
    failure (no compiler, compile error). Written atomically; older builds are removed."""
    global _lib, _load_failed
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if compiler is None or not SOURCE.exists():
        return None
    target = library_path()
    fd, tmp = tempfile.mkstemp(prefix=".build-", suffix=_SUFFIX, dir=HERE)
    os.close(fd)
    cmd = [compiler, "-O2", "-std=c99", "-shared", "-fPIC", "-o", tmp, str(SOURCE), "-lm"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        os.unlink(tmp)
        if not quiet:
            print(f"ngs_ckernel: {exc}", file=sys.stderr)
        return None
    if done.returncode != 0:
        os.unlink(tmp)
        if not quiet:
            print(done.stderr, file=sys.stderr)
        return None
    os.replace(tmp, target)
    for old in HERE.glob(f"libngs_kernel-*{_SUFFIX}"):
        if old != target:
            old.unlink(missing_ok=True)
    _lib = None
    _load_failed = False
    return target


def _load() -> Any:
    global _lib, _load_failed
    if _lib is not None or _load_failed:
        return _lib
    try:
        lib = ctypes.CDLL(str(library_path()))
        lib.ck_abi.restype = ctypes.c_int
        if lib.ck_abi() != ABI:
            raise OSError("stale library")
    except (OSError, AttributeError):
        _load_failed = True
        return None
    lib.ck_new.restype = _P
    lib.ck_new.argtypes = [_P, _P]
    lib.ck_free.argtypes = [_P]
    lib.ck_free.restype = None
    lib.ck_run.restype = _I32
    lib.ck_run.argtypes = [_P, ctypes.POINTER(_Batch)]
    lib.ck_latest.restype = _I32
    lib.ck_latest.argtypes = [_P]
    lib.ck_stats.argtypes = [_P, _P]
    lib.ck_stats.restype = None
    lib.ck_has_player.restype = _I32
    lib.ck_has_player.argtypes = [_P, _I32]
    lib.ck_player_info.restype = _I32
    lib.ck_player_info.argtypes = [_P, _I32, _I32, _P, _P]
    lib.ck_pship_find.restype = _I32
    lib.ck_pship_find.argtypes = [_P, _I32, _I32]
    lib.ck_pship_info.restype = _I32
    lib.ck_pship_info.argtypes = [_P, _I32, _I32, ctypes.c_double, _P, _P]
    lib.ck_pship_ends.restype = _I32
    lib.ck_pship_ends.argtypes = [_P, _I32, _P, _P]
    lib.ck_version.restype = _I32
    lib.ck_version.argtypes = [_P, _I32, _P, _I32, _P]
    lib.ck_years_before.restype = _I32
    lib.ck_years_before.argtypes = [_I32, _I32]
    _lib = lib
    return lib


def ckernel_available() -> bool:
    """Whether the compiled kernel is built and loadable."""
    return _load() is not None


def ckernel_supports(params: NGSParams) -> bool:
    """Whether the C kernel can replay with ``params`` (factors exact as C floats, a regular
    share of at least a half so at most one partner is regular, int32 window constants)."""
    factors = [f for _, f in params.weighting_factors] + [1.0]
    exact = all(array("f", [f])[0] == f for f in factors)
    share = params.regular_share
    ints = (
        params.window_boards,
        params.window_years,
        params.padding_boards,
        params.mature_boards,
        params.default_boards,
    )
    return (
        exact
        and 2 * share.numerator >= share.denominator
        and all(isinstance(v, int) and 0 < v < 2**31 for v in ints)
        and params.default_boards > 0
    )


def _addr(buf: array[Any]) -> int:
    return buf.buffer_info()[0] if len(buf) else 0


# ------------------------------------------------------------------ the replay


class CKernelReplay:
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
        lib = _load()
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
        self._k = lib.ck_new(_addr(ip), _addr(dp))
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
        self._pab: array[int] = array("i")
        self._boards: array[int] = array("i")
        self._score: array[float] = array("d")
        self._dmean: array[float] = array("d")
        self._flags: array[int] = array("b")
        self._pending: list[LedgerOp] = []

    def flush(self) -> None:
        """Perform the queued operations."""
        if not self._kind:
            return
        self._run(self._pack(), len(self._boards))
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
            "pab": self._pab,
            "boards": self._boards,
            "score": self._score,
            "dmean": self._dmean,
            "flags": self._flags,
        }

    def _run(
        self,
        bufs: dict[str, array[Any]],
        n_pairs: int,
        extra_out: int = 0,
        want: bool = False,
    ) -> _Batch:
        n = len(bufs["kind"])
        b = _Batch()
        b.n_ops = n
        for name, buf in bufs.items():
            setattr(b, name, _addr(buf))
        b.n_ids = len(self.numbers)
        out = array("d", bytes(8 * (2 * n_pairs + extra_out)))
        b.out_sg = _addr(out)
        keep: list[array[Any]] = [out]
        if want:
            ref = array("i", bytes(4 * n))
            rec_id = array("i", bytes(4 * 2 * n_pairs))
            rec_val = array("d", bytes(8 * 5 * 2 * n_pairs))
            ps_id = array("i", bytes(4 * n_pairs))
            ps_sg = array("d", bytes(8 * n_pairs))
            keep += [ref, rec_id, rec_val, ps_id, ps_sg]
            b.out_ref, b.rec_id, b.rec_val = _addr(ref), _addr(rec_id), _addr(rec_val)
            b.ps_id, b.ps_sg = _addr(ps_id), _addr(ps_sg)
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
                self._kind.append(1)
                self._seq.append(op.seq)
                self._vid.append(vidx)
                self._date.append(0)
                self._scoring.append(0)
                self._first.append(0.0)
                self._factor.append(1.0)
                self._pstart.append(len(self._boards))
                self._npairs.append(0)
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

    def _marshal_pairs(self, session: SessionResult, host: str | None) -> tuple[int, int]:
        """Appends the session's pairs; returns (known pairs, known players). The per-pair
        work runs in C-level iterators (``map``, ``attrgetter``, ``array``) where it can."""
        pairs = session.pairs
        n = len(pairs)
        people = list(_chain(map(_players, pairs)))
        try:
            idl = array("i", map(self.ids.__getitem__, map(_number, people)))
        except KeyError:  # members seen for the first time
            ids = self.ids
            got = []
            for person in people:
                i = ids.get(person.number)
                got.append(self._new_id(person.number) if i is None else i)
            idl = array("i", got)
        unknown = idl.count(-1)
        if unknown:
            players = 2 * n - unknown
            known = sum(1 for j in range(0, 2 * n, 2) if idl[j] >= 0 and idl[j + 1] >= 0)
        else:
            players, known = 2 * n, n
        try:
            scores = array("d", map(_score, pairs))
        except TypeError:
            scores = array("d", [_NAN if p.score is None else p.score for p in pairs])
        try:
            boards = array("i", map(_boards, pairs))
        except TypeError:
            boards = array("i", [p.boards or 0 for p in pairs])
        start = len(self._flags)
        self._pab.extend(idl)
        self._score.extend(scores)
        self._boards.extend(boards)
        if session.movement is _TWO_WINNER:
            self._flags.extend(
                array(
                    "b", [0 if d is None else 1 if d is _NS else 2 for d in map(_direction, pairs)]
                )
            )
        else:
            self._flags.extend(_ZEROS[:n] if n <= 64 else array("b", bytes(n)))
        if host is None and not all(map(_rateable, people)):
            for pair in pairs:
                if not pair.rateable:
                    host = pair.pair_id
                    break
        if host is not None:
            flags = self._flags
            for i, pair in enumerate(pairs, start):
                if pair.pair_id == host:
                    flags[i] |= 4
                    if not pair.known:  # a host pair counts as known (S14.3)
                        known += 1
                        players += sum(not p.known for p in pair.players)
        return known, players

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
        p0 = len(self._boards)
        known, players = self._marshal_pairs(session, op.host_pair)
        by_players, num, den = self._known
        if by_players:
            ok = players * den > num * 2 * len(pairs)
        else:
            ok = known * den > num * len(pairs)
        if not ok:
            for buf in (self._score, self._boards, self._flags):
                del buf[p0:]
            del self._pab[2 * p0 :]
            self._not_graded(op)
            return
        n = len(pairs)
        if kind == 3:
            self._dmean.extend(
                array("d", [_NAN if p.direction_mean is None else p.direction_mean for p in pairs])
            )
        else:
            self._dmean.extend(_NAN_BLOCK[:n] if n <= 64 else array("d", [_NAN] * n))
        first, factor = self._weights_of(session.weighting)
        vidx = self._vidx
        self._vidx += 1
        self.live[op.version] = vidx
        self._kind.append(0)
        self._seq.append(op.seq)
        self._vid.append(vidx)
        self._date.append(session.key.date.toordinal())
        self._scoring.append(kind)
        self._first.append(first)
        self._factor.append(factor)
        self._pstart.append(p0)
        self._npairs.append(len(pairs))
        if self.record:
            self._record_process(op, session)
        elif len(self._kind) >= self.chunk:
            self.flush()

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
        p0 = len(self._boards)
        self._marshal_pairs(session, "\0no host")  # ids and pairs (for initial grades)
        g = ctypes.c_double()
        info = array("q", bytes(8 * 6))
        standings: dict[str, PlayerStanding] = {}
        for pair in session.pairs:
            for p in pair.players:
                num = p.number
                if num is None or num in standings:
                    continue
                if not lib.ck_player_info(k, self.ids[num], ref, ctypes.byref(g), _addr(info)):
                    continue
                rp = info[4]
                standings[num] = PlayerStanding(
                    g.value, STATUS_CODES[info[0]], info[3], self.numbers[rp] if rp >= 0 else None
                )
        pgrades: dict[PartnershipKey, float] = {}
        for pair in session.pairs:
            a, b = (p.number for p in pair.players)
            if a is None or b is None or a not in standings or b not in standings:
                continue
            key = (a, b) if a <= b else (b, a)
            pid = lib.ck_pship_find(k, self.ids[a], self.ids[b])
            if pid >= 0:
                average = (standings[a].grade + standings[b].grade) / 2
                lib.ck_pship_info(k, pid, ref, average, ctypes.byref(g), _addr(info))
                pgrades[key] = g.value
        outcome = grade_session(
            session, standings, params, host_pair=op.host_pair, partnership_grades=pgrades
        )
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
        self._run(bufs, len(self._boards), extra_out=len(recs))
        self._reset()
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

    # ------------------------------------------------------------------ record mode

    def _members(self, session: SessionResult) -> list[str]:
        seen: dict[str, None] = {}
        for pair in session.pairs:
            for p in pair.players:
                num = p.number
                if num is not None and self._lib.ck_has_player(self._k, self.ids[num]):
                    seen[num] = None
        return list(seen)

    def _player_grades(self, numbers: list[str], ref: int) -> tuple[Any, ...]:
        out = []
        g = ctypes.c_double()
        info = array("q", bytes(8 * 6))
        for n in numbers:
            self._lib.ck_player_info(self._k, self.ids[n], ref, ctypes.byref(g), _addr(info))
            out.append((n, g.value, info[0], info[1], info[2]))
        return tuple(out)

    def _pship_key(self, pid: int) -> PartnershipKey:
        ia, ib = ctypes.c_int32(), ctypes.c_int32()
        self._lib.ck_pship_ends(self._k, pid, ctypes.byref(ia), ctypes.byref(ib))
        a, b = self.numbers[ia.value], self.numbers[ib.value]
        return (a, b) if a <= b else (b, a)

    def _pship_grades(self, pids: list[int], ref: int) -> tuple[Any, ...]:
        out = []
        g = ctypes.c_double()
        info = array("q", bytes(8 * 6))
        for pid in pids:
            key = self._pship_key(pid)
            self._lib.ck_pship_info(self._k, pid, ref, _NAN, ctypes.byref(g), _addr(info))
            out.append((f"{key[0]}+{key[1]}", g.value, info[0], info[1], info[2]))
        return tuple(out)

    def _record_process(self, op: ProcessOp, session: SessionResult) -> None:
        b = self._run(self._pack(), len(self._boards), want=True)
        self._reset()
        ref = b._keep[1][0]
        rec_id, rec_val, ps_id, ps_sg = b._keep[2:]

        def opt(v: float) -> float | None:
            return None if math.isnan(v) else v

        players = tuple(
            (
                self.numbers[rec_id[j]],
                rec_val[5 * j],
                opt(rec_val[5 * j + 1]),
                opt(rec_val[5 * j + 2]),
                opt(rec_val[5 * j + 3]),
                rec_val[5 * j + 4],
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
        np_ = lib.ck_version(k, vidx, _addr(buf), len(buf), ctypes.byref(nq))
        if np_ + nq.value > len(buf):
            buf = array("i", bytes(4 * (np_ + nq.value)))
            np_ = lib.ck_version(k, vidx, _addr(buf), len(buf), ctypes.byref(nq))
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

    # ------------------------------------------------------------------ figures

    def _stats(self) -> array[int]:
        self.flush()
        out = array("q", bytes(8 * 6))
        self._lib.ck_stats(self._k, _addr(out))
        return out

    @property
    def graded(self) -> int:
        """Player-session grades computed."""
        return self._stats()[0]

    @property
    def partnership_graded(self) -> int:
        return self._stats()[1]

    @property
    def sessions(self) -> int:
        """Graded session versions processed."""
        return self._stats()[2]

    @property
    def players(self) -> dict[str, int]:
        """Members with a grade history (number -> integer id)."""
        self.flush()
        has = self._lib.ck_has_player
        return {n: i for i, n in enumerate(self.numbers) if has(self._k, i)}

    @property
    def partnerships(self) -> list[PartnershipKey]:
        return [self._pship_key(pid) for pid in range(self._stats()[4])]

    def history_bytes(self) -> int:
        """Bytes allocated for the C histories (entries)."""
        return self._stats()[5]

    def grade(self, number: str, as_of: int) -> tuple[float, int, int, int] | None:
        """A member's ``(grade, status code, boards in window, padding)`` on ``as_of`` (an
        ordinal no earlier than the member's latest session), as ``KernelReplay.grade``."""
        self.flush()
        i = self.ids.get(number)
        if i is None or i < 0:
            return None
        g = ctypes.c_double()
        info = array("q", bytes(8 * 6))
        if not self._lib.ck_player_info(self._k, i, as_of, ctypes.byref(g), _addr(info)):
            return None
        return g.value, info[0], info[1], info[2]

    def partnership_grade(
        self, key: PartnershipKey, as_of: int, restart: float | None = None
    ) -> tuple[float, int, int, int] | None:
        self.flush()
        a, b = self.ids.get(key[0]), self.ids.get(key[1])
        if a is None or b is None or a < 0 or b < 0:
            return None
        pid = self._lib.ck_pship_find(self._k, a, b)
        if pid < 0:
            return None
        g = ctypes.c_double()
        info = array("q", bytes(8 * 6))
        value = _NAN if restart is None else restart
        self._lib.ck_pship_info(self._k, pid, as_of, value, ctypes.byref(g), _addr(info))
        return g.value, info[0], info[1], info[2]

    def latest(self) -> int | None:
        """The latest date of play (ordinal) among live versions (S14.6)."""
        self.flush()
        d = self._lib.ck_latest(self._k)
        return None if d < 0 else d

    def current_grades(
        self, as_of: int | None = None
    ) -> Iterator[tuple[str, float, int, int, int]]:
        """Every member's ``(number, grade, status code, boards, padding)`` on ``as_of``
        (default: the latest date of play)."""
        day = self.latest() if as_of is None else as_of
        if day is None:
            return
        for number in self.players:
            got = self.grade(number, day)
            assert got is not None
            yield (number, *got)


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


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--build"]:
        built = build_ckernel(quiet=False)
        if built is None or not ckernel_available():
            print("ngs_ckernel: not built; the Python kernel will be used", file=sys.stderr)
            return 1
        print(f"ngs_ckernel: built {built}")
        return 0
    if args == ["--check"]:
        print("available" if ckernel_available() else "not available")
        return 0 if ckernel_available() else 1
    print("usage: python -m grading.engine.ngs.ckernel --build | --check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
