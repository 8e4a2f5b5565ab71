"""The compiled kernel fixture of the engine tests (tests/engine/conftest.py)."""

from tests.engine.conftest import ckernel_built  # noqa: F401
