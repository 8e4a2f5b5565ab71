"""The member's whole history read once, and kept with their pages (issue 31 item 3).

The grade card and the session history each need every row of the member's decade, not
only the rows they show: the card for its chart's as-of grades and the decay weights, the
history for its filters' choices, its page count and the same weights. Read separately,
that was four queries over the same few hundred rows, each row on its own heap page in
five tables, on every page rendered for the first time (the cold pages, docs/benchmarks.md).
Here one query reads the columns all of them use, compiled once per connection and prepared
(``grading.common.compiled``), and its rows are kept under the member's pages key
(``members.pagecache.member_page_value``): the second page, and the next rendering of
either after a new day, reads none of them. A write that changes the member's history
bumps that key as it does for the pages themselves.
"""

from __future__ import annotations

import datetime as dt
from typing import NamedTuple

from django.db.models import Exists, OuterRef, Q

from grading.common.compiled import CompiledQuery
from grading.models import Session, SessionGrade
from members.models import Member
from members.pagecache import member_page_value


class MemberRow(NamedTuple):
    """One of the member's session rows, live (not withdrawn) or of its session's live
    version (graded or not): the rows the card and the history are worked out from."""

    pk: int
    seq: int | None  # the ledger entry's (S5.4); None: not graded
    date: dt.date
    boards: int
    grade: float | None  # the session grade; None: not graded
    factor: float
    live: bool  # not withdrawn: counted by the grade (S5.3)
    shown: bool  # of its session's live version: a row of the history (S5.3)
    event: str
    club_id: int
    club: str
    partner_id: int | None
    partner: str | None


def of_live_version() -> Exists:
    """Whether a session row is of its session's live version: a row of the history (S5.3).
    Asked as "some session's live version" (a session's live version is one of its own,
    grading sets it so): PostgreSQL then walks the member's rows by their index."""
    return Exists(Session.objects.filter(live_version=OuterRef("version_id")))


def _rows_query(member_id: int):
    return (
        SessionGrade.objects.filter(member_id=member_id)
        .annotate(shown=of_live_version())
        .filter(Q(live=True) | Q(shown=True))
        .order_by()
        .values_list(
            "pk",
            "entry__seq",
            "date",
            "boards",
            "session_grade",
            "factor",
            "live",
            "shown",
            "version__session__event__name",
            "version__session__event__club_id",
            "version__session__event__club__name",
            "partner_id",
            "partner__name",
        )
    )


_rows_of = CompiledQuery(_rows_query, markers=[-2_100_000_005])


def member_history(*, member: Member) -> tuple[MemberRow, ...]:
    """The member's rows (``MemberRow``), in no particular order, kept with their pages (as
    plain tuples: pickled in less than half the time of named ones)."""
    rows = member_page_value(
        member=member, page="history-rows", build=lambda: tuple(map(tuple, _rows_of(member.pk)))
    )
    return tuple(map(MemberRow._make, rows))
