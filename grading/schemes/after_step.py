"""The schemes after each ledger step: the step records what it means for PPI (S10) and
Brambledown (S11) in the schemes' log, in its own transaction (``scheme_log_step``: cheap, and
the log's order is the processing order); a task queued on its commit folds the log into both
schemes (:func:`schemes_catch_up`). So an upload's NGS grade is committed and visible without
waiting for PPI and Brambledown (a quarter closed at a large club, a PPI replay), and a ledger
lock is never held for them (issue 31 item 2; docs/decisions.md).

The fold follows the log's order, one session's consecutive entries at a time (a step's
withdrawals and its process entry), each group in its own transaction under the schemes' head
lock, and ``SchemeHead.steps_seq`` records the last entry folded. Delivered twice, or after a
rebuild, it folds nothing twice: PPI skips the entries its ``ppi_seq`` has passed, and each
club's Brambledown the entries its ``BrambledownClubState.seq`` has (tests/schemes).

What follows a graded session once the schemes have folded it, and its members' pages have been
renewed for them (the pages rendered ahead, ``members/pagewarm.py``), registers with
:func:`after_fold_register`: rendered before the fold, a page would be stale as soon as the fold
renewed it (docs/decisions.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.db import transaction
from django.db.models import F

from grading.common.queue import FOLLOW_PRIORITY, task_queue
from grading.common.stale import pages_renewed_after
from grading.models import SessionVersion
from grading.models.schemes import SchemeEntry, SchemeHead
from grading.schemes.brambledown.update import brambledown_club_passed, brambledown_club_update
from grading.schemes.log import PROCESS, scheme_head_lock, scheme_log_step
from grading.schemes.ppi import ppi_after_entry

__all__ = ["after_fold_register", "schemes_after_step", "schemes_catch_up"]

# Entries read at a time for the next group (one session's run: a step's one to three, a longer run
# folded as more than one group, as correct and rarer).
_GROUP_READ = 8

AfterFold = Callable[..., None]

_after_fold: list[AfterFold] = []


def after_fold_register(hook: AfterFold) -> None:
    """Call ``hook(version_ids=...)`` with the versions a step processed once the schemes have
    folded them and renewed their members' pages (at once when the step logged nothing)."""
    if hook not in _after_fold:
        _after_fold.append(hook)


def _after_fold_run(version_ids: Sequence[int]) -> None:
    if version_ids:
        for hook in tuple(_after_fold):
            hook(version_ids=list(version_ids))


def schemes_after_step(*, version: SessionVersion) -> None:
    """The hook after a ledger step on ``version`` (processed, not graded or withdrawn), inside
    the step's transaction: log it for the schemes and queue their fold for the commit."""
    appended = scheme_log_step(version=version)
    if appended:
        # After any upload waiting to be graded: one fold then takes all their entries.
        task_queue("grading.schemes_catch_up", priority=FOLLOW_PRIORITY)
    graded = version.state == SessionVersion.State.GRADED
    if graded and not any(e.operation == PROCESS for e in appended):
        _after_fold_run([version.pk])  # no fold will follow it


def schemes_catch_up() -> int:
    """Fold every entry of the schemes' log not folded yet into PPI and Brambledown, in the
    log's order. Returns the entries folded (0 when the schemes are up to date)."""
    folded = 0
    while True:
        # The members' pages are renewed after each group commits, not inside it: a grading
        # step renewing the same members' pages meanwhile does not wait for the fold.
        with pages_renewed_after(), transaction.atomic():
            head = scheme_head_lock()
            group = _next_group(head.steps_seq)
            if not group:
                return folded
            _group_fold(group, head)
            head.steps_seq = group[-1].seq
            head.save(update_fields=["steps_seq"])
        _after_fold_run([e.version_id for e in group if e.operation == PROCESS])
        folded += len(group)


def _next_group(after: int) -> list[SchemeEntry]:
    """The entries after ``after`` that belong to the next one's session, in order (a step's
    withdrawals and process entry, or a few steps on one session in a row)."""
    following = SchemeEntry.objects.filter(seq__gt=after).order_by("seq")
    first = (
        following.select_related("version__session__event__club").defer("version__payload").first()
    )
    if first is None:
        return []
    session_id = first.version.session_id
    group = [first]
    for entry in following.filter(seq__gt=first.seq).annotate(session_id=F("version__session_id"))[
        : _GROUP_READ - 1
    ]:
        if entry.session_id != session_id:
            break
        group.append(entry)
    return group


def _group_fold(group: list[SchemeEntry], head: SchemeHead) -> None:
    for entry in group:
        ppi_after_entry(entry=entry, head=head)
    session = group[0].version.session
    club = session.event.club
    if club.keeps_brambledown:
        brambledown_club_update(club=club, touched=session.date, entries=group)
    else:
        brambledown_club_passed(club=club)
