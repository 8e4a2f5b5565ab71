"""Writing one ledger step's results: session grades, pair figures, current and partnership
grades (S5.2, S5.4)."""

from __future__ import annotations

from collections.abc import Iterable

from django.utils import timezone

from grading.common.bulk import rows_update
from grading.engine.ngs import (
    ReplayState,
    StepResult,
    host_pair_of,
    known_pairs,
)
from grading.engine.types import SessionResult
from grading.ledger.subjects import subjects_store
from grading.models import (
    CurrentGrade,
    LedgerEntry,
    PairResult,
    PartnershipGrade,
    SessionGrade,
    SessionVersion,
    Upload,
)
from members.models import Member

# What a step writes of a member's current grade (besides the member): the national builder
# copies the same columns.
CURRENT_GRADE_FIELDS = (
    "grade",
    "status",
    "band",
    "boards_in_window",
    "sessions_in_window",
    "initial_grade",
    "last_session_date",
    "as_of",
    "seq",
)


def _members_by_number(numbers: Iterable[str]) -> dict[str, Member]:
    return {m.national_number: m for m in Member.objects.filter(national_number__in=set(numbers))}


def store_step(
    step: StepResult, entry: LedgerEntry, version: SessionVersion, state: ReplayState
) -> None:
    outcome = step.outcome
    assert outcome is not None
    subjects_store(step, state)
    store_pair_figures(version, outcome)
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
    store_grades(step, state)


def store_pair_figures(version: SessionVersion, outcome) -> None:
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


def store_not_graded(
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


def store_grades(step: StepResult, state: ReplayState) -> None:
    if step.kind == "withdraw":  # a process step's subjects were stored by store_step
        subjects_store(step, state)
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
    rows_update(CurrentGrade, to_update, list(CURRENT_GRADE_FIELDS))
    store_partnerships(step, state)


def store_partnerships(step: StepResult, state: ReplayState) -> None:
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


def uploads_finish(upload_ids: Iterable[int | None]) -> None:
    uploads = Upload.objects.filter(pk__in=[u for u in upload_ids if u])
    for upload in uploads.exclude(status=Upload.Status.FAILED):
        if not upload.versions.filter(state=SessionVersion.State.STORED).exists():
            upload.status = Upload.Status.GRADED
            upload.finished = timezone.now()
            upload.save(update_fields=["status", "finished"])
