"""This process's fold of the ledger (a ``ReplayState`` per parameter set), caught up from the
``LedgerEntry`` table under the ledger lock before every operation (S5.2-S5.4)."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterable

from django.db import connections

from grading.engine import codec
from grading.engine.ngs import (
    ProcessOp,
    ReplayState,
    WithdrawOp,
    apply,
    get_params,
)
from grading.engine.types import SessionResult
from grading.models import (
    LedgerEntry,
    LedgerHead,
)

ENGINE_PATH = os.environ.get("GRADING_ENGINE_PATH", "fast")  # equal to "reference" (tests)


_states: dict[str, ReplayState] = {}


_last_applied: dict[str, int] = {}  # params name -> primary key of the last entry applied


def ledger_ops(entries: Iterable[LedgerEntry]) -> Iterable[ProcessOp | WithdrawOp]:
    for entry in entries:
        if entry.operation == LedgerEntry.Operation.PROCESS:
            session = codec.load(SessionResult, entry.version.payload)
            yield ProcessOp(entry.seq, str(entry.version_id), session, entry.host_pair or None)
        else:
            yield WithdrawOp(entry.seq, str(entry.version_id))


def ledger_state(params_name: str) -> ReplayState:
    """This process's state, caught up with every ledger entry in the database.

    A cached state whose last entry is no longer in the database (a rolled-back transaction,
    a restored backup) is dropped and rebuilt from empty.
    """
    state = _states.get(params_name)
    if (
        state is not None
        and state.last_seq
        and not LedgerEntry.objects.filter(
            seq=state.last_seq, pk=_last_applied.get(params_name)
        ).exists()
    ):
        state = None
    if state is None:
        state = _states[params_name] = ReplayState(get_params(params_name), ENGINE_PATH)
    pending = LedgerEntry.objects.filter(seq__gt=state.last_seq).select_related("version")
    for entry in pending.order_by("seq").iterator(chunk_size=500):
        (op,) = ledger_ops([entry])
        apply(state, op)
        state.steps.clear()
        _last_applied[params_name] = entry.pk
    return state


def ledger_state_warm() -> int:
    """Build this process's state now: a worker's main process does it before its pool
    forks (grading/celery.py), so every pool process starts with the fold and shares its
    memory, instead of each folding the whole ledger at its first upload. The database
    connection is closed (a pool process must not share it) and the objects are frozen, so
    the garbage collector in a pool process never writes to, and so never copies, their
    pages. Returns the last sequence number folded."""
    try:
        head = LedgerHead.objects.only("params_name").first()
        if head is None:
            return 0
        try:
            state = ledger_state(head.params_name)
        except BaseException:
            ledger_state_forget()  # a half-folded state must not reach the pool processes
            raise
    finally:
        connections.close_all()
    gc.collect()
    gc.freeze()
    return state.last_seq


def ledger_state_forget() -> None:
    _states.clear()
    _last_applied.clear()
