"""The compiled NGS kernel's library: ``csrc/ngs_kernel.c`` built with the system C compiler and
loaded with ctypes (``python -m grading.engine.ngs.ckernel --build``). Optional: without it the
Python kernel folds the ledger (``grading.engine.ngs.ckernel`` says which is used).

A second, smaller library, ``csrc/ngs_marshal.c``, reads a session's pairs into the kernel's
pair columns (``cpairs.PairColumns.add_session_c``); it is built against the running
interpreter's headers (CPython only) and is optional too: without it the columns are filled in
Python, with the same values."""

from __future__ import annotations

import ctypes
import sys
from array import array
from pathlib import Path
from typing import Any

from grading.engine.cbuild import SUFFIX, c_compiler, compile_library, library_open, source_digest
from grading.engine.ngs.params import NGSParams

HERE = Path(__file__).resolve().parent / "csrc"
SOURCE = HERE / "ngs_kernel.c"
ABI = 9
REC_VALUES = 8  # per member record: grade before, SOpp, excess, session grade, adjustment,
# score term, par, partner's grade (ngs_kernel.c)

I32 = ctypes.c_int32
P = ctypes.c_void_p


class CKernelUnavailable(RuntimeError):
    """The compiled kernel cannot be used (not built, no compiler, unsupported parameters)."""


class Batch(ctypes.Structure):
    """Mirror of ``Batch`` in ngs_kernel.c."""

    _fields_ = [
        ("n_ops", I32),
        ("kind", P),
        ("seq", P),
        ("vidx", P),
        ("date", P),
        ("scoring", P),
        ("first", P),
        ("factor", P),
        ("pstart", P),
        ("npairs", P),
        ("rstart", P),
        ("nrec", P),
        ("qstart", P),
        ("nq", P),
        ("pab", P),
        ("boards", P),
        ("score", P),
        ("dmean", P),
        ("flags", P),
        ("r_me", P),
        ("r_partner", P),
        ("r_x", P),
        ("r_sg", P),
        ("q_a", P),
        ("q_b", P),
        ("q_x", P),
        ("q_sg", P),
        ("q_avg", P),
        ("n_ids", I32),
        ("out_sg", P),
        ("n_out", ctypes.c_int64),
        ("out_ref", P),
        ("rec_id", P),
        ("rec_val", P),
        ("n_rec", ctypes.c_int64),
        ("ps_id", P),
        ("ps_sg", P),
        ("n_ps", ctypes.c_int64),
        # write mode (cfold.WritingReplay): foldout's record, pair and version figures
        ("rec_fig", P),
        ("rec_partner", P),
        ("rec_pair", P),
        ("rec_boards", P),
        ("rec_reported", P),
        ("rec_reason", P),
        ("pair_fig", P),
        ("pair_known", P),
        ("pair_host", P),
        ("out_sof", P),
    ]


# ------------------------------------------------------------------ build and load

_lib: Any = None
_load_failed = False


def library_path() -> Path:
    """Where the library built from the current ``ngs_kernel.c`` lives: the name carries a
    hash of the source, so an edited source is never served by a stale library (and a
    process that loaded one library never mistakes a rebuilt one for it)."""
    return HERE / f"libngs_kernel-{source_digest(SOURCE)}{SUFFIX}"


def build_ckernel(*, quiet: bool = True) -> Path | None:
    """Compile ``ngs_kernel.c`` with the system C compiler into ``library_path()``; None on
    failure (no compiler, compile error). Written atomically; older builds are removed."""
    global _lib, _load_failed
    compiler = c_compiler()
    if compiler is None or not SOURCE.exists():
        return None
    target = library_path()
    cmd = [compiler, "-O2", "-std=c99", "-shared", "-fPIC", str(SOURCE), "-lm"]
    if compile_library(cmd, target, f"libngs_kernel-*{SUFFIX}", "ngs_ckernel", quiet) is None:
        return None
    _lib = None
    _load_failed = False
    build_marshal(quiet=quiet)  # optional: the pair columns are filled in Python without it
    return target


MARSHAL_SOURCE = HERE / "ngs_marshal.c"
MARSHAL_ABI = 1
_marshal: Any = None
_marshal_failed = False


def marshal_path() -> Path:
    """Where the pair reader built from the current ``ngs_marshal.c`` for this interpreter
    lives (the name carries the source's hash and the interpreter's tag)."""
    tag = sys.implementation.cache_tag or "none"
    return HERE / f"libngs_marshal-{source_digest(MARSHAL_SOURCE)}-{tag}{SUFFIX}"


def build_marshal(*, quiet: bool = True) -> Path | None:
    """Compile ``ngs_marshal.c`` against this interpreter's headers into ``marshal_path()``;
    None when it cannot be (not CPython, no headers, no compiler)."""
    global _marshal, _marshal_failed
    import sysconfig

    include = sysconfig.get_paths().get("include")
    compiler = c_compiler()
    if (
        sys.implementation.name != "cpython"
        or compiler is None
        or not include
        or not (Path(include) / "Python.h").exists()
        or not MARSHAL_SOURCE.exists()
    ):
        return None
    target = marshal_path()
    cmd = [compiler, "-O2", "-shared", "-fPIC", f"-I{include}", str(MARSHAL_SOURCE)]
    tag = sys.implementation.cache_tag or "none"
    if (
        compile_library(cmd, target, f"libngs_marshal-*-{tag}{SUFFIX}", "ngs_marshal", quiet)
        is None
    ):
        return None
    _marshal = None
    _marshal_failed = False
    return target


def load_marshal() -> Any:
    """The pair reader's ``cm_pairs`` (see ``ngs_marshal.c``), or None when not built."""
    global _marshal, _marshal_failed
    if _marshal is not None or _marshal_failed:
        return _marshal
    lib = library_open(marshal_path(), "cm_abi", MARSHAL_ABI, loader=ctypes.PyDLL)
    if lib is None:
        _marshal_failed = True
        return None
    fn = lib.cm_pairs
    fn.restype = I32
    obj = ctypes.py_object
    fn.argtypes = [obj, obj, obj, I32, I32, obj, P, P, P, P, P, P]
    _marshal = fn
    return fn


def load_library() -> Any:
    global _lib, _load_failed
    if _lib is not None or _load_failed:
        return _lib
    lib = library_open(library_path(), "ck_abi", ABI)
    if lib is None:
        _load_failed = True
        return None
    lib.ck_new.restype = P
    lib.ck_new.argtypes = [P, P]
    lib.ck_free.argtypes = [P]
    lib.ck_free.restype = None
    lib.ck_run.restype = I32
    lib.ck_run.argtypes = [P, ctypes.POINTER(Batch)]
    lib.ck_latest.restype = I32
    lib.ck_latest.argtypes = [P]
    lib.ck_stats.argtypes = [P, P]
    lib.ck_stats.restype = None
    lib.ck_has_player.restype = I32
    lib.ck_has_player.argtypes = [P, I32]
    lib.ck_player_info.restype = I32
    lib.ck_player_info.argtypes = [P, I32, I32, P, P]
    lib.ck_pship_find.restype = I32
    lib.ck_pship_find.argtypes = [P, I32, I32]
    lib.ck_pship_info.restype = I32
    lib.ck_pship_info.argtypes = [P, I32, I32, ctypes.c_double, P, P]
    lib.ck_pship_ends.restype = I32
    lib.ck_pship_ends.argtypes = [P, I32, P, P]
    lib.ck_version.restype = I32
    lib.ck_version.argtypes = [P, I32, P, I32, P]
    lib.ck_grades.restype = None
    lib.ck_grades.argtypes = [P, I32, P, I32, P]
    lib.ck_pship_grades.restype = None
    lib.ck_pship_grades.argtypes = [P, I32, P, P, P, ctypes.c_double, P, P]
    lib.ck_dump_players.restype = I32
    lib.ck_dump_players.argtypes = [P, I32, *[P] * 7]
    lib.ck_dump_pships.restype = I32
    lib.ck_dump_pships.argtypes = [P, I32, *[P] * 10]
    lib.ck_history_size.restype = None
    lib.ck_history_size.argtypes = [P, I32, I32, P]
    lib.ck_history_counts.restype = None
    lib.ck_history_counts.argtypes = [P, P]
    lib.ck_dump_histories.restype = I32
    lib.ck_dump_histories.argtypes = [P, P, I32, I32, *[P] * 12]
    lib.ck_years_before.restype = I32
    lib.ck_years_before.argtypes = [I32, I32]
    _lib = lib
    return lib


def ckernel_available() -> bool:
    """Whether the compiled kernel is built and loadable."""
    return load_library() is not None


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


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--build"]:
        built = build_ckernel(quiet=False)
        if built is None or not ckernel_available():
            print("ngs_ckernel: not built; the Python kernel will be used", file=sys.stderr)
            return 1
        print(f"ngs_ckernel: built {built}")
        if load_marshal() is None:
            print(
                "ngs_ckernel: the pair reader (ngs_marshal.c) was not built; pairs are read in Python"
            )
        return 0
    if args == ["--check"]:
        print("available" if ckernel_available() else "not available")
        return 0 if ckernel_available() else 1
    print("usage: python -m grading.engine.ngs.ckernel --build | --check", file=sys.stderr)
    return 2
