"""What runs beside each ledger step, inside its transaction and under its lock: hooks that the
layers above register once at start-up (``grading.apps`` registers the schemes' update,
``grading.schemes.after_step``), so the ledger never imports what sits above it."""

from __future__ import annotations

from collections.abc import Callable

from grading.models import SessionVersion

AfterStep = Callable[..., None]

_after_step: list[AfterStep] = []


def after_step_register(hook: AfterStep) -> None:
    """Call ``hook(version=...)`` after every step (processed, not graded or withdrawn)."""
    if hook not in _after_step:
        _after_step.append(hook)


def after_step_run(*, version: SessionVersion) -> None:
    for hook in tuple(_after_step):
        hook(version=version)
