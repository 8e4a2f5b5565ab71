"""The ledger head: the one row whose lock, held for the length of a transaction, serialises
every ledger operation across processes and machines (S5.2), and which names the parameter set
the ledger is folded with (S9; read by ``grading.params``)."""

from __future__ import annotations

from grading.engine.ngs import NGS_DEFAULT
from grading.models import LedgerHead


def ledger_head_lock() -> LedgerHead:
    """The ledger head, locked until the transaction ends (PostgreSQL row lock)."""
    head, _ = LedgerHead.objects.get_or_create(pk=1, defaults={"params_name": NGS_DEFAULT.name})
    return LedgerHead.objects.select_for_update().get(pk=head.pk)
