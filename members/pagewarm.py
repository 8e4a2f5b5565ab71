"""Pages ready before members arrive: after a grading step the worker renders the grade card and
the first page of the session history of the members it graded into the page cache, under the
same keys the pages read (``members.pagecache``), so the members an email sends to their pages
find them warm. Bounded per step; run by a low-priority task queued once the schemes have folded
the step and renewed its members' pages for PPI and Brambledown (``after_fold_register``): a page
rendered before that fold would be stale as soon as it ended."""

from __future__ import annotations

from django.test import RequestFactory

from grading.common.queue import LOW_PRIORITY, task_queue
from grading.models import SessionGrade, SessionVersion
from members import pagecache, views
from members.models import Member

# A step of a 40-table session grades 160 players; a larger one warms its first players only.
WARM_PER_STEP = 200


def member_pages_warm_queue(*, version_ids: list[int]) -> None:
    """The after-fold hook: warm the pages of the processed versions' players (the members
    their emails send to their pages) once the schemes' fold has committed."""
    for version_id in version_ids:
        task_queue("grading.warm_member_pages", version_id, priority=LOW_PRIORITY)


def member_pages_warm(*, version_id: int, limit: int = WARM_PER_STEP) -> int:
    """Render the grade card and the first history page of the version's players who have a
    login (only they can open them), at most ``limit``; none for a version no longer graded
    (withdrawn since, or not graded: its emails send no one). A page already kept under the
    member's current version is left as it is. Returns the members warmed."""
    graded = SessionGrade.objects.filter(
        version_id=version_id, version__state=SessionVersion.State.GRADED
    )
    members = (
        Member.objects.filter(
            pk__in=graded.values("member_id"),
            user__isnull=False,
        )
        .select_related("user")
        .order_by("pk")[:limit]
    )
    warmed = 0
    for member in members:
        _member_pages_warm(member)
        warmed += 1
    return warmed


def _member_pages_warm(member: Member) -> None:
    factory = RequestFactory()
    card = factory.get("/me/")
    card.user = member.user
    pagecache.member_page_content(
        member=member, page="card", build=lambda: views._grade_card_content(card, member)
    )
    history = factory.get("/me/sessions/")
    history.user = member.user
    pagecache.member_page_content(
        member=member,
        page="sessions",
        build=lambda: views._session_history_content(history, member),
        variant=pagecache.cacheable_query(""),
    )
