"""The NGS parameter set the ledger is folded with (S9): named by the ledger head, the default
before anything was ever graded. Pages, checks and the ledger read it here, so that a page never
imports the ledger to know it."""

from __future__ import annotations

from grading.engine.ngs import NGS_DEFAULT, get_params
from grading.engine.ngs.params import NGSParams
from grading.models import LedgerHead


def active_params_name() -> str:
    head = LedgerHead.objects.only("params_name").first()
    return head.params_name if head else NGS_DEFAULT.name


def active_params() -> NGSParams:
    """The parameter set the ledger is folded with; every page and check asks this."""
    return get_params(active_params_name())
