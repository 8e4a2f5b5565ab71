"""The grading fold on the database (S5.2-S5.4): one ledger operation at a time, under the
ledger lock, so however many workers run, operations are appended strictly in sequence and
each sees every operation before it. A step reads from PostgreSQL only the subjects it touches
(``grading.ledger.subjects``): no process holds or builds a fold of the whole ledger."""

from __future__ import annotations

import logging

from django.db import InterfaceError, OperationalError, transaction
from django.db.models import F
from django.utils import timezone

from clubs.selectors.planning import approved_host_pair
from grading.common.stale import member_pages_invalidate
from grading.engine import codec
from grading.engine.ngs import (
    ProcessOp,
    ReplayState,
    StepResult,
    WithdrawOp,
    apply,
    get_params,
    why_not_graded,
)
from grading.engine.types import SessionResult
from grading.ledger.hooks import after_step_run
from grading.ledger.lock import ledger_head_lock
from grading.ledger.ops import ledger_ops
from grading.ledger.step_reads import subjects_state
from grading.ledger.store import store_grades, store_not_graded, store_step, uploads_finish
from grading.ledger.subjects import subjects_current, subjects_rebuild
from grading.models import (
    LedgerEntry,
    LedgerHead,
    SessionGrade,
    SessionVersion,
    Upload,
)

log = logging.getLogger(__name__)


# What the upload's page says of a version set aside; ``grading_failed`` is the state.
GRADING_FAILED = (
    "grading failed because of an error in the product, not in your file; it has been logged "
    "for support and nothing was changed. Upload the file again once support says it is fixed"
)


def versions_grade_pending() -> int:
    """Grade every stored version, one transaction (and one hold of the ledger lock) each
    (S5.2), in the order ``version_next`` picks: a file's sessions in their order, a club's
    uploads in theirs, other clubs' uploads in between (issue 32 item 9). A version whose
    grading fails is set aside (not graded, its upload failed) so that it does not hold up
    every later upload; a database that went away is left to the retry and the sweep."""
    graded = 0
    while True:
        pending = None
        try:
            with transaction.atomic():
                head = ledger_head_lock()
                version = version_next()
                if version is None:
                    return graded
                pending = version.pk
                version_grade(head=head, version=version)
        except (OperationalError, InterfaceError):
            raise
        except Exception:
            if pending is None:
                raise
            log.exception("Grading session version %s failed; it is set aside", pending)
            version_fail(version_id=pending)
            continue
        graded += 1


def version_next() -> SessionVersion | None:
    """The stored version to grade next (the caller holds the ledger lock), locked.

    Each club's stored versions go in the order their uploads arrived (the upload's id is
    given when it is received, before any wait for the ledger lock, which PostgreSQL does
    not grant in the order asked), a file's sessions in the file's order (a correction after
    what it corrects: S5.3); between clubs, the version with the
    fewest of its own file's versions before it goes first (the older upload, then the older
    version, on a tie). So a
    file of 40 sessions does not make another club's upload of one wait for all 40: it is
    graded after the session now being graded (issue 32 item 9). Every process picks the
    same version under the lock; the ledger's sequence numbers record the order taken, and a
    replay folds the ledger in that order (S5.4)."""
    stored = SessionVersion.objects.filter(state=SessionVersion.State.STORED)
    heads: dict[int, tuple[int, int | None]] = {}  # club: its first stored (version, upload)
    arrival = (F("upload_id").asc(nulls_first=True), "pk")
    for pk, upload_id, club_id in stored.order_by(*arrival).values_list(
        "pk", "upload_id", "session__event__club_id"
    ):
        heads.setdefault(club_id, (pk, upload_id))
    if not heads:
        return None
    in_file: dict[int, list[int]] = {}  # the versions of the heads' files (one query)
    if len(heads) > 1:
        uploads = {upload_id for _, upload_id in heads.values() if upload_id is not None}
        for pk, upload_id in SessionVersion.objects.filter(upload_id__in=uploads).values_list(
            "pk", "upload_id"
        ):
            in_file.setdefault(upload_id, []).append(pk)

    def place(head: tuple[int, int | None]) -> tuple[int, int, int]:
        pk, upload_id = head
        before = sum(1 for other in in_file.get(upload_id or 0, ()) if other < pk)
        return before, upload_id or 0, pk

    chosen = min(place(head) for head in heads.values())[2]
    return (
        SessionVersion.objects.select_for_update()
        .filter(pk=chosen, state=SessionVersion.State.STORED)
        .first()
    )


@transaction.atomic
def version_fail(*, version_id: int) -> None:
    """Set aside a stored version whose grading raised: not graded (with the reason), its
    upload failed. The ledger never saw it, so nothing else changes; the same file may be
    uploaded again (a failed upload is not a duplicate)."""
    version = SessionVersion.objects.select_for_update().get(pk=version_id)
    if version.state != SessionVersion.State.STORED:
        return
    version.state = SessionVersion.State.NOT_GRADED
    version.not_graded_reason = GRADING_FAILED
    version.grading_failed = True
    version.save(update_fields=["state", "not_graded_reason", "grading_failed"])
    if version.upload_id is not None:
        Upload.objects.filter(pk=version.upload_id).update(
            status=Upload.Status.FAILED, finished=timezone.now()
        )


def version_grade(*, head: LedgerHead, version: SessionVersion) -> None:
    """Withdraw the session's previous live version, then process this one (S5.3)."""
    subjects_catch_up(head)
    session = version.session
    previous = session.live_version
    if previous is not None and previous.state == SessionVersion.State.GRADED:
        version_withdraw(head=head, version=previous)
    elif previous is not None:  # not graded, yet in its players' histories until replaced
        member_pages_invalidate(
            member_ids=SessionGrade.objects.filter(version=previous).values_list(
                "member_id", flat=True
            )
        )
    result = codec.load(SessionResult, version.payload)
    version.late = head.reference_date is not None and result.date < head.reference_date
    host = approved_host_pair(club=version.session.event.club, result=result)
    op = ProcessOp(head.last_seq + 1, str(version.pk), result, host)
    state = subjects_state(get_params(head.params_name), head.last_seq, op)
    reason = why_not_graded(result, state.params, host)
    if reason:
        store_not_graded(version, result, reason, state, host)
    else:
        step, entry = _append(head, state, op, version)
        store_step(step, entry, version, state)
    session.live_version = version
    session.save(update_fields=["live_version"])
    uploads_finish([version.upload_id])
    after_step_run(version=version)  # PPI and Brambledown (grading.apps), same transaction
    member_pages_invalidate(numbers=_players(result))


def version_withdraw(*, head: LedgerHead, version: SessionVersion) -> StepResult:
    """Withdraw a graded version: its session grades leave every history (S5.3)."""
    subjects_catch_up(head)
    op = WithdrawOp(head.last_seq + 1, str(version.pk))
    state = subjects_state(get_params(head.params_name), head.last_seq, op)
    step, _ = _append(head, state, op, version)
    SessionGrade.objects.filter(version=version).update(live=False)
    version.state = SessionVersion.State.WITHDRAWN
    version.save(update_fields=["state"])
    store_grades(step, state)
    after_step_run(version=version)  # PPI and Brambledown (grading.apps), same transaction
    member_pages_invalidate(
        numbers=[grade.subject for grade in step.current_grades],
        member_ids=SessionGrade.objects.filter(version=version).values_list("member_id", flat=True),
    )
    return step


def subjects_catch_up(head: LedgerHead) -> None:
    """Refill the subject tables by one fold of the ledger if they are not its fold with the
    head's set: a database from before them, or a change of parameter set whose refold has not
    run yet (the step then grades with the new set, as the refold will). Every other step,
    after any restart, rollback or restore, reads only its own subjects."""
    if subjects_current(head):
        return
    log.warning("Refilling the ledger's subject tables by folding its %s entries", head.last_seq)
    entries = LedgerEntry.objects.select_related("version").order_by("seq")
    subjects_rebuild(head, ledger_ops(entries.iterator(chunk_size=500)))


def _players(result: SessionResult) -> set[str]:
    return {p.number for pair in result.pairs for p in pair.players if p.number}


def _append(
    head: LedgerHead, state: ReplayState, op: ProcessOp | WithdrawOp, version: SessionVersion
) -> tuple[StepResult, LedgerEntry]:
    step = apply(state, op)
    state.steps.clear()
    process = isinstance(op, ProcessOp)
    entry = LedgerEntry.objects.create(
        seq=op.seq,
        operation=LedgerEntry.Operation.PROCESS if process else LedgerEntry.Operation.WITHDRAW,
        version=version,
        params_name=head.params_name,
        host_pair=(op.host_pair if isinstance(op, ProcessOp) else None) or "",
    )
    head.last_seq = op.seq
    head.reference_date = step.reference_date
    head.save(update_fields=["last_seq", "reference_date"])
    return step, entry
