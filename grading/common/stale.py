"""Which writes make which pages stale: the one home of the page cache's invalidation.

A member's own pages and a club's grade list are kept rendered under a ``pages_version``
(``members/pagecache.py``). Every write that changes what they show gives the affected rows a
new version in its own transaction, so the next request renders afresh and every web process
sees it at once, whatever the cache. The writes, and what each makes stale:

| write | stale |
| --- | --- |
| a session graded, not graded or withdrawn (``grading.ledger.step``) | its players' pages and their clubs' lists |
| a refold, a parameter change, the nightly refresh, the schemes' rebuild | every page |
| PPI and Brambledown after a step, a quarter closed | the members they rate, and their clubs' lists, once the fold has committed (``pages_renewed_after``) |
| an upload stored (new members, a new session on the club's pages) | the club's list, the named members |
| a member's privacy | theirs, everyone who shared a session with them (S14.14), their clubs' lists |
| a club's members or roles (services, admin) | the club's list |
| a login tied to a member, a member edited in the admin | that member's pages |
"""

import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar

from django.db import OperationalError, connection, transaction
from django.db.models import Q, QuerySet

from clubs.models import Club, ClubRole
from grading.models import SessionGrade
from members.models import Member, new_pages_version


def club_pages_invalidate(
    *, club_ids: Iterable[int] | None = None, members: QuerySet[Member] | None = None
) -> int:
    """The clubs' grade lists render afresh. Give the clubs (``club_ids``) or the members
    whose grades, privacy or roles changed (their clubs); neither means every club. Returns
    the number of clubs bumped."""
    clubs = Club.objects.all()
    if club_ids is not None or members is not None:
        chosen = Q(pk__in=set(club_ids or ()))
        if members is not None:
            chosen |= Q(pk__in=ClubRole.objects.filter(member__in=members).values("club_id"))
        clubs = clubs.filter(chosen)
    return clubs.update(pages_version=new_pages_version())


def member_pages_invalidate(
    *, numbers: Iterable[str] | None = None, member_ids: Iterable[int] | None = None
) -> int:
    """The members' own pages render afresh, and so do the grade lists of their clubs. Give
    membership ``numbers`` or ``member_ids``; neither means every member (a refold, the nightly
    refresh). Returns the number of members bumped."""
    if numbers is None and member_ids is None:
        club_pages_invalidate()
        return Member.objects.update(pages_version=new_pages_version())
    held = _held.get()
    if held is not None:
        held[0].update(numbers or ())
        held[1].update(member_ids or ())
        return 0
    members = Member.objects.filter(
        Q(national_number__in=set(numbers or ())) | Q(pk__in=set(member_ids or ()))
    )
    club_pages_invalidate(members=members)
    return members.update(pages_version=new_pages_version())


def member_privacy_invalidate(*, member: Member) -> int:
    """A member's privacy changed: their own pages, those of everyone who played in a session
    with them (an SOpp or SoF over a small field shows or hides with it, S14.14), and the
    grade lists of their clubs ("Private" or the grade, S7). Returns the members bumped."""
    shared = SessionGrade.objects.filter(member=member).values("version_id")
    bumped = Member.objects.filter(
        Q(pk=member.pk)
        | Q(pk__in=SessionGrade.objects.filter(version_id__in=shared).values("member_id"))
    ).update(pages_version=new_pages_version())
    club_pages_invalidate(members=Member.objects.filter(pk=member.pk))
    return bumped


# Numbers and member ids whose pages a block renews once it has committed (``pages_renewed_after``).
_held: ContextVar[tuple[set[str], set[int]] | None] = ContextVar("pages_held", default=None)


@contextmanager
def pages_renewed_after() -> Iterator[None]:
    """Inside the block, ``member_pages_invalidate`` of given members only notes them; when the
    block has committed they are renewed at once, in a transaction of their own, members in
    the order of their ids. For a long write that need not hold the members' rows (PPI and
    Brambledown after a step, a quarter closed at a large club): otherwise the rows stay
    locked to its end and a grading step that renews the same members' pages waits for it
    (or deadlocks with it, each holding some). A page read in between shows the figures before
    the block, as it would have while the block ran. Not for a block whose pages must change in
    the same transaction as its write (a grading step: its grades and pages are one)."""
    if _held.get() is not None:  # nested: the outer block renews them
        yield
        return
    held: tuple[set[str], set[int]] = (set(), set())
    token = _held.set(held)
    try:
        yield
    finally:
        _held.reset(token)
    if held[0] or held[1]:
        _renew(numbers=held[0], member_ids=held[1])


# How long a renewal waits for a member's or club's row another transaction holds before it
# lets go of the rows it holds and tries again, and how many times it tries so; the last try
# waits as long as it must. A grading step holds its clubs' rows and then wants its players':
# a renewal holding some of those players and wanting one of those clubs would otherwise
# deadlock with it, and the server's check (after a second) rolled the step back, which graded
# again (one upload of 2.4-3.4 s at each scale of the benchmark: docs/benchmarks.md, session 28).
RENEW_LOCK_WAIT_MS = 50
RENEW_TRIES = 30
_LOCK_NOT_AVAILABLE = "55P03"  # PostgreSQL's SQLSTATE for a lock_timeout


def _renew(*, numbers: set[str], member_ids: set[int]) -> None:
    """The members' pages renewed, giving way to any transaction that holds their rows."""
    for attempt in range(RENEW_TRIES):
        bounded = attempt < RENEW_TRIES - 1
        try:
            with transaction.atomic(), _lock_wait_bounded() if bounded else nullcontext():
                _renew_once(numbers=numbers, member_ids=member_ids)
            return
        except OperationalError as exc:
            if not bounded or getattr(exc.__cause__, "sqlstate", None) != _LOCK_NOT_AVAILABLE:
                raise
        time.sleep(min(0.01 * 2**attempt, 0.5))


@contextmanager
def _lock_wait_bounded() -> Iterator[None]:
    """Inside a transaction: waits for a row lock end with an error after
    ``RENEW_LOCK_WAIT_MS`` (PostgreSQL; SQLite locks the whole database at once). The
    setting is the transaction's, put back as it was when the block ends without an error
    (with one, the rollback puts it back)."""
    if connection.vendor != "postgresql":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_setting('lock_timeout'), set_config('lock_timeout', %s, true)",
            [f"{RENEW_LOCK_WAIT_MS}ms"],
        )
        before = cursor.fetchone()[0]
    yield
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('lock_timeout', %s, true)", [before])


def _renew_once(*, numbers: set[str], member_ids: set[int]) -> None:
    members = Member.objects.filter(Q(national_number__in=numbers) | Q(pk__in=member_ids))
    # FOR NO KEY UPDATE, as the UPDATE itself takes: it orders the writers of these rows
    # and leaves them free to another transaction's foreign-key check (FOR KEY SHARE). A
    # FOR UPDATE lock blocked a grading step's commit, which checks its rows' members,
    # while this renewal waited for the clubs that step had bumped: a deadlock (two in
    # the national bench of session 18, docs/benchmarks.md).
    ids = list(members.order_by("pk").select_for_update(no_key=True).values_list("pk", flat=True))
    member_pages_invalidate(member_ids=ids)
