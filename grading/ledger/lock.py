"""The ledger head: the one row whose lock, held for the length of a transaction, serialises
every ledger operation across processes and machines (S5.2), and which names the parameter set
the ledger is folded with (S9)."""

from __future__ import annotations

from grading.engine.ngs import NGS_DEFAULT, get_params
from grading.engine.ngs.params import NGSParams
from grading.models import LedgerHead


def ledger_head_lock() -> LedgerHead:
    """The ledger head, locked until the transaction ends (PostgreSQL row lock)."""
    head, _ = LedgerHead.objects.get_or_create(pk=1, defaults={"params_name": NGS_DEFAULT.name})
    return LedgerHead.objects.select_for_update().get(pk=head.pk)


def active_params_name() -> str:
    """The name of the set the ledger is folded with: the ledger head's, the default before
    anything was ever graded."""
    head = LedgerHead.objects.only("params_name").first()
    return head.params_name if head else NGS_DEFAULT.name


def active_params() -> NGSParams:
    """The parameter set the ledger is folded with (S9); every page and check asks this."""
    return get_params(active_params_name())
