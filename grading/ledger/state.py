"""A fold of the whole ledger in this process (a ``ReplayState`` per parameter set), caught up
from the ``LedgerEntry`` table, and the ledger's entries as engine operations (``ledger_ops``).

No request, task or worker start calls ``ledger_state``: a grading step reads its own subjects
from the database (``grading.ledger.subjects``), the nightly refresh and grades as of a date read
the subject tables a batch at a time (``grading.ledger.refresh``), and no worker folds the ledger
at start (S5.2-S5.4). What is still used here: ``ledger_ops`` (the refold, ``replay --check`` on
the Python engine, the refill of the subject tables, the quality report's what-if replay) and
the staff refold's ``_states``/``ledger_state_forget``."""

from __future__ import annotations

import os
from collections.abc import Iterable

from grading.engine import codec
from grading.engine.ngs import (
    ProcessOp,
    ReplayState,
    WithdrawOp,
    apply,
    get_params,
)
from grading.engine.types import SessionResult
from grading.models import LedgerEntry

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


def ledger_state_forget() -> None:
    _states.clear()
    _last_applied.clear()
