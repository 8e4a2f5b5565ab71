"""The grading fold on the database (S5.2-S5.4): one ledger operation at a time.

Each worker process keeps a ``ReplayState`` in memory and brings it up to date from the
``LedgerEntry`` table before every operation, under the lock on the single ``LedgerHead`` row,
so however many workers run, operations are appended strictly in sequence and each sees every
operation before it. A state that may have diverged from the database (an exception after an
operation was applied) is dropped and rebuilt by replaying the ledger.
"""

from __future__ import annotations

import gc
import logging
import os
from collections.abc import Iterable

from django.db import InterfaceError, OperationalError, connections, transaction
from django.utils import timezone

from clubs.services import approved_host_numbers
from grading.common.audit import audit_record
from grading.common.bulk import rows_update
from grading.engine import codec
from grading.engine.ngs import (
    NGS_DEFAULT,
    ProcessOp,
    ReplayState,
    StepResult,
    WithdrawOp,
    apply,
    get_params,
    host_pair_of,
    known_pairs,
    why_not_graded,
)
from grading.engine.types import SessionResult
from grading.models import (
    AuditEvent,
    CurrentGrade,
    LedgerEntry,
    LedgerHead,
    PairResult,
    PartnershipGrade,
    SessionGrade,
    SessionVersion,
    Upload,
)
from grading.schemes.fold import schemes_after_step
from members.models import Member
from members.services import member_pages_invalidate

log = logging.getLogger(__name__)
ENGINE_PATH = os.environ.get("GRADING_ENGINE_PATH", "fast")  # equal to "reference" (tests)
_states: dict[str, ReplayState] = {}
_last_applied: dict[str, int] = {}  # params name -> primary key of the last entry applied


def ledger_head_lock() -> LedgerHead:
    """The ledger head, locked until the transaction ends (PostgreSQL row lock)."""
    head, _ = LedgerHead.objects.get_or_create(pk=1, defaults={"params_name": NGS_DEFAULT.name})
    return LedgerHead.objects.select_for_update().get(pk=head.pk)


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


GRADING_FAILED = (
    "grading failed because of an error in the product, not in your file; it has been logged "
    "for support and nothing was changed. Upload the file again once support says it is fixed"
)


def versions_grade_pending() -> int:
    """Grade every stored version in the order stored, one transaction each (S5.2). A version
    whose grading fails is set aside (not graded, its upload failed) so that it does not hold
    up every later upload; a database that went away is left to the retry and the sweep."""
    graded = 0
    while True:
        pending = None
        try:
            with transaction.atomic():
                head = ledger_head_lock()
                version = (
                    SessionVersion.objects.select_for_update()
                    .filter(state=SessionVersion.State.STORED)
                    .order_by("pk")
                    .first()
                )
                if version is None:
                    return graded
                pending = version.pk
                version_grade(head=head, version=version)
        except (OperationalError, InterfaceError):
            ledger_state_forget()
            raise
        except Exception:
            ledger_state_forget()
            if pending is None:
                raise
            log.exception("Grading session version %s failed; it is set aside", pending)
            version_fail(version_id=pending)
            continue
        graded += 1


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
    version.save(update_fields=["state", "not_graded_reason"])
    if version.upload_id is not None:
        Upload.objects.filter(pk=version.upload_id).update(
            status=Upload.Status.FAILED, finished=timezone.now()
        )


def version_grade(*, head: LedgerHead, version: SessionVersion) -> None:
    """Withdraw the session's previous live version, then process this one (S5.3)."""
    state = ledger_state(head.params_name)
    session = version.session
    previous = session.live_version
    if previous is not None and previous.state == SessionVersion.State.GRADED:
        version_withdraw(head=head, version=previous, state=state)
    elif previous is not None:  # not graded, yet in its players' histories until replaced
        member_pages_invalidate(
            member_ids=SessionGrade.objects.filter(version=previous).values_list(
                "member_id", flat=True
            )
        )
    result = codec.load(SessionResult, version.payload)
    version.late = head.reference_date is not None and result.date < head.reference_date
    host = approved_host_pair(version, result)
    reason = why_not_graded(result, state.params, host)
    if reason:
        _store_not_graded(version, result, reason, state, host)
    else:
        step, entry = _append(head, state, LedgerEntry.Operation.PROCESS, version, result, host)
        _store_step(step, entry, version, state)
    session.live_version = version
    session.save(update_fields=["live_version"])
    _finish_uploads([version.upload_id])
    schemes_after_step(version=version)  # PPI and Brambledown (issue 8), same transaction
    member_pages_invalidate(numbers=_players(result))


def version_withdraw(
    *, head: LedgerHead, version: SessionVersion, state: ReplayState | None = None
) -> StepResult:
    """Withdraw a graded version: its session grades leave every history (S5.3)."""
    state = state or ledger_state(head.params_name)
    step, _ = _append(head, state, LedgerEntry.Operation.WITHDRAW, version, None)
    SessionGrade.objects.filter(version=version).update(live=False)
    version.state = SessionVersion.State.WITHDRAWN
    version.save(update_fields=["state"])
    _store_grades(step, state)
    schemes_after_step(version=version)  # PPI and Brambledown (issue 8), same transaction
    member_pages_invalidate(
        numbers=[grade.subject for grade in step.current_grades],
        member_ids=SessionGrade.objects.filter(version=version).values_list("member_id", flat=True),
    )
    return step


def _players(result: SessionResult) -> set[str]:
    return {p.number for pair in result.pairs for p in pair.players if p.number}


def approved_host_pair(version: SessionVersion, result: SessionResult) -> str | None:
    """The pair of the approved host request for this session (S3.9), if it played."""
    numbers = approved_host_numbers(
        club=version.session.event.club,
        date=result.date,
        start=result.start,
        event_name=result.event_name,
    )
    approved = {frozenset(pair) for pair in numbers}
    for pair in result.pairs:
        if frozenset(p.number for p in pair.players) in approved:
            return pair.pair_id
    return None


def _append(
    head, state, operation, version, result, host_pair: str | None = None
) -> tuple[StepResult, LedgerEntry]:
    seq = head.last_seq + 1
    if operation == LedgerEntry.Operation.PROCESS:
        op: ProcessOp | WithdrawOp = ProcessOp(seq, str(version.pk), result, host_pair)
    else:
        op = WithdrawOp(seq, str(version.pk))
    step = apply(state, op)
    state.steps.clear()
    entry = LedgerEntry.objects.create(
        seq=seq,
        operation=operation,
        version=version,
        params_name=head.params_name,
        host_pair=host_pair or "",
    )
    _last_applied[head.params_name] = entry.pk
    head.last_seq = seq
    head.reference_date = step.reference_date
    head.save(update_fields=["last_seq", "reference_date"])
    return step, entry


def _members_by_number(numbers: Iterable[str]) -> dict[str, Member]:
    return {m.national_number: m for m in Member.objects.filter(national_number__in=set(numbers))}


def _store_step(
    step: StepResult, entry: LedgerEntry, version: SessionVersion, state: ReplayState
) -> None:
    outcome = step.outcome
    assert outcome is not None
    _store_pair_figures(version, outcome)
    after = {grade.subject: grade.grade for grade in step.current_grades}
    members = _members_by_number(r.number for r in outcome.players)
    partners = _members_by_number(r.partner for r in outcome.players if r.partner)
    date = outcome.key.date
    SessionGrade.objects.bulk_create(
        SessionGrade(
            entry=entry,
            version=version,
            member=members[r.number],
            partner=partners.get(r.partner) if r.partner else None,
            date=date,
            pair_id=r.pair_id,
            grade_before=r.grade_before,
            partner_grade=r.partner_grade,
            sopp=r.sopp,
            score_term=r.score_term,
            excess=r.excess,
            regular_adjustment=r.regular_adjustment,
            gain=r.gain,
            par=r.par,
            boards=r.boards,
            boards_reported=r.boards_reported,
            factor=r.factor,
            session_grade=r.session_grade,
            grade_after=after.get(r.number),
            reason=r.reason,
        )
        for r in outcome.players
    )
    version.state = SessionVersion.State.GRADED
    version.sof = outcome.sof
    version.known_pairs = outcome.known_pairs
    version.total_pairs = outcome.total_pairs
    version.save(update_fields=["state", "sof", "known_pairs", "total_pairs", "late"])
    _store_grades(step, state)


def _store_pair_figures(version: SessionVersion, outcome) -> None:
    rows = {row.pair_id: row for row in version.pairs.all()}
    for pair in outcome.pairs:
        row = rows.get(pair.pair_id)
        if row is None:
            continue
        row.score_term, row.sopp, row.par, row.excess = (
            pair.score_term,
            pair.sopp,
            pair.par,
            pair.excess,
        )
    rows_update(PairResult, list(rows.values()), ["score_term", "sopp", "par", "excess"])


def _store_not_graded(
    version, result: SessionResult, reason: str, state: ReplayState, host: str | None
) -> None:
    version.state = SessionVersion.State.NOT_GRADED
    version.not_graded_reason = reason[:255]
    version.known_pairs = known_pairs(result, host_pair_of(result, host)[0])
    version.total_pairs = len(result.pairs)
    version.save(update_fields=["state", "not_graded_reason", "known_pairs", "total_pairs", "late"])
    numbers = {p.number for pair in result.pairs for p in pair.players if p.number}
    members = _members_by_number(numbers)
    rows = []
    for pair in result.pairs:
        a, b = pair.players
        for me, partner in ((a, b), (b, a)):
            if me.number is None or me.number not in members:
                continue
            before = state.player_grade(me.number, result.date)
            rows.append(
                SessionGrade(
                    version=version,
                    member=members[me.number],
                    partner=members.get(partner.number) if partner.number else None,
                    date=result.date,
                    pair_id=pair.pair_id,
                    grade_before=before.grade
                    if before
                    else state.params.first_grade(result.weighting),
                    gain=state.params.gain,
                    boards=pair.boards or state.params.default_boards,
                    boards_reported=pair.boards is not None,
                    reason=reason[:255],
                    live=False,
                )
            )
    SessionGrade.objects.bulk_create(rows)


def _store_grades(step: StepResult, state: ReplayState) -> None:
    members = _members_by_number(g.subject for g in step.current_grades)
    existing = {
        cg.member_id: cg
        for cg in CurrentGrade.objects.filter(member__in=[m.pk for m in members.values()])
    }
    to_create, to_update, gone = [], [], []
    for grade in step.current_grades:
        member = members[grade.subject]
        history = state.players[grade.subject]
        if not history.session_count():  # a correction or withdrawal took their only session
            gone.append(member.pk)
            continue
        row = existing.get(member.pk) or CurrentGrade(member=member)
        row.grade, row.status, row.band = grade.grade, grade.status.value, grade.band
        row.boards_in_window = grade.boards_in_window
        row.sessions_in_window = grade.sessions_in_window
        row.as_of, row.seq = grade.as_of, step.seq
        row.initial_grade = history.initial
        row.last_session_date = history.last_date()
        (to_update if row.pk else to_create).append(row)
    CurrentGrade.objects.filter(member__in=gone).delete()
    CurrentGrade.objects.bulk_create(to_create)
    rows_update(
        CurrentGrade,
        to_update,
        [
            "grade",
            "status",
            "band",
            "boards_in_window",
            "sessions_in_window",
            "initial_grade",
            "last_session_date",
            "as_of",
            "seq",
        ],
    )
    _store_partnerships(step, state)


def _store_partnerships(step: StepResult, state: ReplayState) -> None:
    """Upsert the partnership grades a step touched: one read, one insert, one update."""
    keys = [tuple(g.subject.split("+", 1)) for g in step.partnership_grades]
    members = _members_by_number(n for key in keys for n in key)
    ids = {(members[a].pk, members[b].pk) for a, b in keys}
    existing = {
        (row.member_a_id, row.member_b_id): row
        for row in PartnershipGrade.objects.filter(
            member_a__in={a for a, _ in ids}, member_b__in={b for _, b in ids}
        )
    }
    to_create, to_update, gone = [], [], []
    for grade, (a, b) in zip(step.partnership_grades, keys, strict=True):
        history = state.partnerships[(a, b)]
        row = existing.get((members[a].pk, members[b].pk))
        if not history.session_count():  # they no longer played together at all
            if row is not None:
                gone.append(row.pk)
            continue
        if row is None:
            row = PartnershipGrade(member_a=members[a], member_b=members[b])
        row.grade, row.boards_in_window = grade.grade, grade.boards_in_window
        row.as_of, row.seq = grade.as_of, step.seq
        row.first_value = history.initial
        row.boards_together = history.graded_boards()
        row.sessions_together = history.session_count()
        row.last_played = history.last_date()
        row.shown = grade.status.value != CurrentGrade.Status.PROVISIONAL
        (to_update if row.pk else to_create).append(row)
    PartnershipGrade.objects.filter(pk__in=gone).delete()
    PartnershipGrade.objects.bulk_create(to_create)
    rows_update(
        PartnershipGrade,
        to_update,
        [
            "grade",
            "boards_in_window",
            "as_of",
            "seq",
            "first_value",
            "boards_together",
            "sessions_together",
            "last_played",
            "shown",
        ],
    )


def _finish_uploads(upload_ids: Iterable[int | None]) -> None:
    uploads = Upload.objects.filter(pk__in=[u for u in upload_ids if u])
    for upload in uploads.exclude(status=Upload.Status.FAILED):
        if not upload.versions.filter(state=SessionVersion.State.STORED).exists():
            upload.status = Upload.Status.GRADED
            upload.finished = timezone.now()
            upload.save(update_fields=["status", "finished"])


def _differs(stored: float | None, computed: float | None, tol: float) -> bool:
    if stored is None or computed is None:
        return stored is not computed
    return abs(stored - computed) > tol


SESSION_GRADE_PARTS = (
    "grade_before",
    "partner_grade",
    "sopp",
    "score_term",
    "excess",
    "regular_adjustment",
    "par",
    "session_grade",
)


def ledger_check(tol: float = 1e-9) -> list[str]:
    """Replay the whole ledger from empty and list every stored figure it does not reproduce
    (S5.4, S14.11). An empty list means the database is exactly the fold of its ledger."""
    head = LedgerHead.objects.first()
    params = get_params(head.params_name if head else NGS_DEFAULT.name)
    state = ReplayState(params, ENGINE_PATH)
    stored: dict[int, dict[str, SessionGrade]] = {}
    for row in SessionGrade.objects.filter(entry__isnull=False).select_related("member"):
        stored.setdefault(row.version_id, {})[row.member.national_number] = row
    problems: list[str] = []
    entries = LedgerEntry.objects.select_related("version").order_by("seq")
    for op in ledger_ops(entries.iterator(chunk_size=500)):
        step = apply(state, op)
        state.steps.clear()
        if isinstance(op, ProcessOp) and step.outcome is not None:
            problems += _check_outcome(op, step, stored.pop(int(op.version), {}), tol)
    problems += [f"version {v}: session grades stored but not in the ledger" for v in stored]
    problems += _check_current_grades(state, tol)
    problems += _check_partnerships(state, tol)
    return problems


def _check_outcome(op: ProcessOp, step: StepResult, rows: dict, tol: float) -> list[str]:
    problems = []
    assert step.outcome is not None
    for record in step.outcome.players:
        row = rows.pop(record.number, None)
        where = f"seq {op.seq} version {op.version} member {record.number}"
        if row is None:
            problems.append(f"{where}: session grade missing")
            continue
        for part in SESSION_GRADE_PARTS:
            if _differs(getattr(row, part), getattr(record, part), tol):
                problems.append(
                    f"{where}: {part} stored {getattr(row, part)} computed {getattr(record, part)}"
                )
    problems += [f"seq {op.seq}: member {n} has a grade the fold does not give" for n in rows]
    return problems


def _check_current_grades(state: ReplayState, tol: float) -> list[str]:
    problems = []
    for row in CurrentGrade.objects.select_related("member"):
        number = row.member.national_number
        computed = state.player_grade(number, row.as_of)
        if computed is None:
            problems.append(f"member {number}: current grade stored but never graded")
        elif _differs(row.grade, computed.grade, tol) or (row.status, row.boards_in_window) != (
            computed.status.value,
            computed.boards_in_window,
        ):
            problems.append(
                f"member {number}: stored {row.grade} {row.status} {row.boards_in_window}, "
                f"computed {computed.grade} {computed.status.value} {computed.boards_in_window}"
            )
    return problems


def _check_partnerships(state: ReplayState, tol: float) -> list[str]:
    problems = []
    for row in PartnershipGrade.objects.select_related("member_a", "member_b"):
        key = (row.member_a.national_number, row.member_b.national_number)
        history = state.partnerships.get(key)
        if history is None:
            problems.append(f"partnership {key}: stored but never graded")
            continue
        computed = history.grade(row.as_of, state.params, subject=f"{key[0]}+{key[1]}")
        if _differs(row.grade, computed.grade, tol):
            problems.append(f"partnership {key}: stored {row.grade}, computed {computed.grade}")
    return problems


@transaction.atomic
def ledger_refold(*, actor=None) -> int:
    """Recompute every stored grade by folding the ledger from empty. Returns the steps.
    ``actor``: the staff user who asked for it (the audit log's who), or None for the system."""
    head = ledger_head_lock()
    SessionGrade.objects.filter(entry__isnull=False).delete()
    CurrentGrade.objects.all().delete()
    PartnershipGrade.objects.all().delete()
    ledger_state_forget()
    state = ReplayState(get_params(head.params_name), ENGINE_PATH)
    entries = list(LedgerEntry.objects.select_related("version").order_by("seq"))
    for entry, op in zip(entries, ledger_ops(entries), strict=True):
        step = apply(state, op)
        state.steps.clear()
        if isinstance(op, ProcessOp):
            _store_step(step, entry, entry.version, state)
        else:
            SessionGrade.objects.filter(version=entry.version).update(live=False)
            entry.version.state = SessionVersion.State.WITHDRAWN  # _store_step set it graded
            entry.version.save(update_fields=["state"])
            _store_grades(step, state)
    _states[head.params_name] = state
    member_pages_invalidate()
    audit_record(
        action=AuditEvent.Action.REFOLD,
        subject=f"ledger refolded ({len(entries)} entries)",
        actor=actor,
        params=head.params_name,
    )
    if entries:
        _last_applied[head.params_name] = entries[-1].pk
    return len(entries)


def grades_refresh(*, today) -> int:
    """Every stored current and partnership grade recomputed as of ``today`` (or the latest
    date of play, if later): the 3-year window and the statuses move with the calendar (S4).
    Returns the number of grades refreshed."""
    with transaction.atomic():
        head = ledger_head_lock()
        state = ledger_state(head.params_name)
        as_of = max(today, head.reference_date) if head.reference_date else today
        rows = list(CurrentGrade.objects.select_related("member"))
        for row in rows:
            grade = state.player_grade(row.member.national_number, as_of)
            if grade is None:
                continue
            row.grade, row.status, row.band = grade.grade, grade.status.value, grade.band
            row.boards_in_window, row.sessions_in_window = (
                grade.boards_in_window,
                grade.sessions_in_window,
            )
            row.as_of = as_of
        CurrentGrade.objects.bulk_update(
            rows,
            ["grade", "status", "band", "boards_in_window", "sessions_in_window", "as_of"],
            batch_size=1000,
        )
        partnerships = list(PartnershipGrade.objects.select_related("member_a", "member_b"))
        for row in partnerships:
            key = (row.member_a.national_number, row.member_b.national_number)
            history = state.partnerships.get(key)
            if history is None:
                continue
            grade = history.grade(as_of, state.params, subject=f"{key[0]}+{key[1]}")
            row.grade, row.boards_in_window, row.as_of = grade.grade, grade.boards_in_window, as_of
            row.shown = grade.status.value != CurrentGrade.Status.PROVISIONAL
        PartnershipGrade.objects.bulk_update(
            partnerships, ["grade", "boards_in_window", "as_of", "shown"], batch_size=1000
        )
        member_pages_invalidate()
    return len(rows) + len(partnerships)


def grades_as_of(*, as_of) -> dict[str, object]:
    """Each graded member's engine CurrentGrade as of a date (the ``grades --as-of`` command)."""
    with transaction.atomic():
        head = ledger_head_lock()
        state = ledger_state(head.params_name)
        grades = {number: state.player_grade(number, as_of) for number in state.players}
        return {number: grade for number, grade in grades.items() if grade is not None}
