"""The ledger's entries as engine operations (``ledger_ops``: the step-by-step refold, ``replay
--check`` on the Python engine, the refill of the subject tables) and the Python engine's path.

No process keeps a fold of the whole ledger: a grading step reads its own subjects from the
database (``grading.ledger.subjects``), the nightly refresh and grades as of a date read the
subject tables a batch at a time (``grading.ledger.refresh``), and no worker folds the ledger at
start (S5.2-S5.4)."""

from __future__ import annotations

from collections.abc import Iterable

from grading.engine import codec
from grading.engine.ngs import (
    ProcessOp,
    WithdrawOp,
)
from grading.engine.types import SessionResult
from grading.models import LedgerEntry


def ledger_ops(entries: Iterable[LedgerEntry]) -> Iterable[ProcessOp | WithdrawOp]:
    for entry in entries:
        if entry.operation == LedgerEntry.Operation.PROCESS:
            session = codec.load(SessionResult, entry.version.payload)
            yield ProcessOp(entry.seq, str(entry.version_id), session, entry.host_pair or None)
        else:
            yield WithdrawOp(entry.seq, str(entry.version_id))
