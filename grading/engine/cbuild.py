"""Building the engine's optional C libraries with the system C compiler (the NGS kernel and
its pair reader, ``grading.engine.ngs.clib``; PPI's fold, ``grading.engine.ppi.cbulk``)."""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from array import array
from pathlib import Path
from typing import Any

__all__ = [
    "SUFFIX",
    "addr",
    "c_compiler",
    "compile_library",
    "library_open",
    "source_digest",
    "zeros",
]

SUFFIX = ".dll" if sys.platform == "win32" else ".so"  # a shared library's file name ending


def source_digest(source: Path) -> str:
    """The first 12 hex digits of the source's SHA-1 ("none" without it): a library's name
    carries it, so an edited source is never served by a stale library."""
    return hashlib.sha1(source.read_bytes()).hexdigest()[:12] if source.exists() else "none"


def c_compiler() -> str | None:
    """The compiler ``CC`` names, else ``cc`` or ``gcc`` on the path; None without one."""
    return os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")


def compile_library(
    cmd: list[str], target: Path, builds: str, name: str, quiet: bool
) -> Path | None:
    """Run the compiler ``cmd`` (its output file added) into a temporary file beside ``target``,
    then move it into place (a process never loads a half-written library) and remove the
    older builds (``builds``: their glob beside it). None on failure; the error is printed
    unless ``quiet``."""
    here = target.parent
    fd, tmp = tempfile.mkstemp(prefix=".build-", suffix=target.suffix, dir=here)
    os.close(fd)
    error = None
    try:
        done = subprocess.run(
            [*cmd, "-o", tmp], capture_output=True, text=True, timeout=120, check=False
        )
        error = done.stderr if done.returncode != 0 else None
    except (OSError, subprocess.SubprocessError) as exc:
        error = f"{name}: {exc}"
    if error is not None:
        os.unlink(tmp)
        if not quiet:
            print(error, file=sys.stderr)
        return None
    os.replace(tmp, target)
    for old in here.glob(builds):
        if old != target:
            old.unlink(missing_ok=True)
    return target


def library_open(path: Path, abi_symbol: str, abi: int, *, loader: Any = ctypes.CDLL) -> Any:
    """The library at ``path`` (loaded by ``loader``) when its ``abi_symbol()`` returns ``abi``;
    None when it is missing, cannot be loaded or was built from another interface."""
    try:
        lib = loader(str(path))
        check = getattr(lib, abi_symbol)
        check.restype = ctypes.c_int
        if check() != abi:
            return None
    except (OSError, AttributeError):
        return None
    return lib


def addr(buf: array[Any]) -> int:
    """The address a C function reads ``buf`` at (0 for an empty array)."""
    return buf.buffer_info()[0] if len(buf) else 0


def zeros(code: str, n: int) -> array[Any]:
    """An array of ``n`` zeros of type ``code``, for a C function to fill."""
    return array(code, [0]) * n
