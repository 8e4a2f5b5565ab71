"""The active NGS parameter set and whole-ledger refolds (S9, S13: staff only; every change in
the audit log)."""

from __future__ import annotations

import logging

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from grading.common.audit import audit_record
from grading.common.queue import task_queue
from grading.common.stale import member_pages_invalidate
from grading.engine import codec
from grading.engine.ngs import PARAMETER_SETS, why_not_graded
from grading.engine.ngs.params import NGSParams
from grading.engine.types import SessionResult
from grading.ledger.lock import ledger_head_lock
from grading.models import AuditEvent, LedgerEntry
from members.models import SessionReport

log = logging.getLogger(__name__)


PARAMETERS_REASON_MAX = 500


def parameters_change(*, params_name: str, user=None, reason: str) -> AuditEvent:
    """Make ``params_name`` the active NGS parameter set (S9, S9.1) and recompute every stored
    grade with it: the ledger head is changed under the ledger lock, the change goes into the
    audit log (who, from, to, reason), and a refold of the whole ledger is queued once the
    transaction commits. Raises ``ValueError`` (nothing changed) for an unknown name, a missing
    reason, the set already active, or a ledger the new set cannot fold; ``PermissionDenied``
    for a user who is not staff (``user=None`` is an operator at the shell).

    No worker needs telling: every ledger
    operation reads ``head.params_name`` under the same lock this change holds, and the subject
    tables record the set they were folded with (``LedgerTables``), so the first
    operation after the commit, in any worker, refills them for the new set. Until the refold
    commits, the stored grades are still the old set's.
    """
    _staff_only(user)
    name = (params_name or "").strip()
    reason = (reason or "").strip()
    if name not in PARAMETER_SETS:
        raise ValueError(
            f"{name or '(empty)'!s} is not a named NGS parameter set; the sets are "
            f"{', '.join(PARAMETER_SETS)}."
        )
    if not reason:
        raise ValueError("Give a reason for the change: it is kept in the audit log.")
    if len(reason) > PARAMETERS_REASON_MAX:
        raise ValueError(f"Keep the reason under {PARAMETERS_REASON_MAX} characters.")
    with transaction.atomic():
        head = ledger_head_lock()
        previous = head.params_name
        if previous == name:
            raise ValueError(
                f"{name} is already the active parameter set: nothing to change. To recompute "
                "the grades with it, replay the ledger."
            )
        blocked = ledger_versions_not_gradeable(
            PARAMETER_SETS[name], current=PARAMETER_SETS.get(previous)
        )
        if blocked:
            shown = ", ".join(str(pk) for pk in blocked[:10]) + (", ..." * (len(blocked) > 10))
            raise ValueError(
                f"{name} would not grade {len(blocked)} session version(s) the ledger has "
                f"processed (versions {shown}): the ledger cannot be refolded with it."
            )
        head.params_name = name
        head.save(update_fields=["params_name"])
        member_pages_invalidate()  # the grade card's statuses and weights read the active set
        event = audit_record(
            action=AuditEvent.Action.PARAMETERS,
            subject=f"NGS parameters {previous} -> {name}",
            actor=user,
            **{"from": previous, "to": name, "reason": reason},
        )
        task_queue("grading.refold_ledger", user.pk if user is not None else None)
    return event


def ledger_refold_request(*, user=None) -> None:
    """Queue a replay of the whole ledger with the active set (S5.4, S13), without changing
    anything: it recomputes every stored grade, and ``ledger_refold`` audits it when it runs.
    Inside a transaction, it is queued when the transaction commits."""
    _staff_only(user)
    log.info("Ledger refold requested by %s", user.get_username() if user else "an operator")
    task_queue("grading.refold_ledger", user.pk if user is not None else None)


def _staff_only(user) -> None:
    if user is not None and not (user.is_authenticated and user.is_staff):
        raise PermissionDenied("Only staff may replay the ledger or change the parameters.")


def _gradeability(params: NGSParams) -> tuple:
    """The parameters ``why_not_graded`` reads (grading/engine/ngs/session.py): two sets equal
    here decide every session's gradeability alike."""
    return (params.known_threshold, params.known_by_players)


def ledger_versions_not_gradeable(
    params: NGSParams, *, current: NGSParams | None = None
) -> list[int]:
    """Versions the ledger processes that ``params`` would not grade (S3.8, S9.1), by primary
    key. Folding such a ledger with ``params`` would leave them out of the fold while the
    database records them as graded, and a later withdrawal or correction of one would be a
    withdrawal of a version the fold never made live (the engine refuses it). Skipped, without
    reading a payload, when ``current`` (the set the ledger was folded with) decides
    gradeability alike."""
    if current is not None and _gradeability(params) == _gradeability(current):
        return []
    entries = (
        LedgerEntry.objects.filter(operation=LedgerEntry.Operation.PROCESS)
        .select_related("version")
        .only("seq", "version", "version__payload", "host_pair")
        .order_by("seq")
    )
    blocked = []
    for entry in entries.iterator(chunk_size=500):
        result = codec.load(SessionResult, entry.version.payload)
        if why_not_graded(result, params, entry.host_pair or None):
            blocked.append(entry.version_id)
    return blocked


def session_report_close(*, report_id: int, user) -> None:
    """Staff close a member's report of a session they did not play (S14.25), once looked
    into (the session withdrawn by its club, or the report mistaken): audited."""
    _staff_only(user)
    with transaction.atomic():
        report = (
            SessionReport.objects.select_for_update()
            .select_related("member", "version__session__event__club")
            .defer("version__payload")
            .filter(pk=report_id, closed__isnull=True)
            .first()
        )
        if report is None:
            return
        report.closed = timezone.now()
        report.save(update_fields=["closed"])
        audit_record(
            action=AuditEvent.Action.REPORT,
            subject=f"Report closed: {report.member} in {report.version}",
            actor=user,
            club=report.version.session.event.club,
            report=report.pk,
            how="closed by staff",
        )
