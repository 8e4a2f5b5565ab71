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
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import F

from grading.common.queue import FOLLOW_PRIORITY, task_queue
from grading.common.stale import pages_renewed_after
from grading.models import SessionVersion
from grading.models.schemes import SchemeEntry, SchemeHead
from grading.schemes.brambledown.update import brambledown_club_passed, brambledown_club_update
from grading.schemes.log import scheme_head_lock, scheme_log_step
from grading.schemes.ppi import ppi_after_entry

__all__ = ["schemes_after_step", "schemes_catch_up"]

# Entries read at a time for the next group (one session's run: a step's one to three, a longer run
# folded as more than one group, as correct and rarer).
_GROUP_READ = 8


def schemes_after_step(*, version: SessionVersion) -> None:
    """The hook after a ledger step on ``version`` (processed, not graded or withdrawn), inside
    the step's transaction: log it for the schemes and queue their fold for the commit."""
    if scheme_log_step(version=version):
        # After any upload waiting to be graded: one fold then takes all their entries.
        task_queue("grading.schemes_catch_up", priority=FOLLOW_PRIORITY)


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
