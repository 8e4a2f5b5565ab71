"""The compiled NGS kernel for the tests that need it (``test_ngs_ckernel``, ``test_ngs_cfold``).

Built from the current source whenever a compiler exists (the library's name carries the
source's hash, so what is tested is what is in the tree). Without a compiler the tests skip,
except in CI (``REQUIRE_SERVICES=1``, set by ``.ci/run``), where a kernel that cannot be built
fails them: its equality with the reference path is checked on every CI run.
"""

from __future__ import annotations

import os
import shutil

import pytest

from grading.engine.ngs.clib import build_ckernel, ckernel_available

REQUIRED = os.environ.get("REQUIRE_SERVICES", "") == "1"


@pytest.fixture(scope="session")
def ckernel_built() -> None:
    if not ckernel_available() and (shutil.which("cc") or shutil.which("gcc")):
        build_ckernel(quiet=False)
    if ckernel_available():
        return
    why = (
        "the compiled NGS kernel could not be built "
        "(python -m grading.engine.ngs.ckernel --build shows why)"
    )
    if REQUIRED:
        pytest.fail(why + "; CI requires it")
    pytest.skip(why)
