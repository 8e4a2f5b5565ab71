"""Brambledown's tables (S11) as an update writes them: a closed quarter with its lists, the
club's ratings, every member's grade and grade history. Shared by the club's full update
(``grading.schemes.brambledown.update``) and the one that records a single session from its players'
rows (``grading.schemes.brambledown.add_session``)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import Max

from clubs.models import Club
from grading.common.bulk import rows_sync
from grading.common.stale import member_pages_invalidate
from grading.engine.brambledown import BrambledownState, Quarter, QuarterResult
from grading.models import (
    BrambledownGrade,
    BrambledownListEntry,
    BrambledownPoint,
    BrambledownQuarter,
    BrambledownRating,
)
from grading.schemes.log import members_by_number
from members.models import Member


@dataclass(frozen=True)
class BrambledownUpdate:
    """What an update did: quarters closed now, the open quarter, sessions rated (those of the
    open quarter, or of every quarter replayed), and how: ``replayed`` from the club's first
    session, or ``fast`` (one session recorded from its players' rows)."""

    closed: tuple[str, ...]
    open_quarter: str
    sessions: int
    replayed: bool
    fast: bool = False


def key_json(key: tuple | None) -> list:
    """An order key as the club state keeps it (``[]``: none)."""
    return [key[0].isoformat(), *key[1:]] if key else []


def key_of_json(data: list) -> tuple | None:
    return (dt.date.fromisoformat(data[0]), *data[1:]) if data else None


def sessions_rated(club: Club) -> int:
    """The club's sessions with a stored rating (the club state's count)."""
    return BrambledownRating.objects.filter(club=club).values("version").distinct().count()


def quarter_store(club: Club, closed: QuarterResult, sessions: int | None = None) -> None:
    """A closed quarter's row and lists; ``sessions``: how many it rated, if ``closed`` does
    not hold their ratings."""
    quarter = str(closed.quarter)
    BrambledownQuarter.objects.create(
        club=club,
        quarter=quarter,
        sessions=len(closed.sessions) if sessions is None else sessions,
        changes=[[c.number, c.old, c.new, len(c.iprs)] for c in closed.changes],
    )
    numbers = [e.number for e in closed.a_list + closed.b_list]
    numbers += [n for e in closed.pairs_list for n in e.players]
    members = members_by_number(numbers)
    rows = []
    for kind, entries in (
        (BrambledownListEntry.Kind.A, closed.a_list),
        (BrambledownListEntry.Kind.B, closed.b_list),
    ):
        rows += [
            BrambledownListEntry(
                club=club,
                quarter=quarter,
                kind=kind,
                rank=rank,
                member=members[e.number],
                grade=e.grade,
                member_grade=e.grade,
                tournaments=e.tournaments,
                in_quarter=e.in_quarter,
                partners=e.partners,
            )
            for rank, e in enumerate(entries, start=1)
            if e.number in members
        ]
    rows += [
        BrambledownListEntry(
            club=club,
            quarter=quarter,
            kind=BrambledownListEntry.Kind.PAIRS,
            rank=rank,
            member=members[e.players[0]],
            partner=members[e.players[1]],
            grade=e.grade,
            member_grade=e.grades[0],
            partner_grade=e.grades[1],
            tournaments=e.tournaments,
            in_quarter=e.in_quarter,
        )
        for rank, e in enumerate(closed.pairs_list, start=1)
        if e.players[0] in members and e.players[1] in members
    ]
    BrambledownListEntry.objects.bulk_create(rows)


def ratings_store(club: Club, ratings, *, since: dt.date | None) -> None:
    """The club's ratings from ``since`` (all, if None) become ``ratings``; only the rows that
    changed are written (after an upload, usually just the new session's)."""
    stored = BrambledownRating.objects.filter(club=club)
    if since is not None:
        stored = stored.filter(date__gte=since)
    numbers = {n for _, r in ratings for p in r.players for n in (p.number, p.partner)}
    by_version = [(item.version_id, rated) for item, rated in ratings]
    rows_sync(stored, rating_rows(club, by_version, members_by_number(numbers)))


def rating_rows(club: Club, ratings, members: dict[str, Member]) -> list[dict]:
    """Each rated member's ``BrambledownRating`` row: ``ratings`` holds (version id,
    ``SessionRatings``) pairs."""
    percent = {
        (id(r), pair.pair_id): pair for _, r in ratings for pair in r.pairs
    }  # the pairs' PPRs and percentages, by session
    rows = []
    for version_id, rated in ratings:
        for p in rated.players:
            pair = percent[(id(rated), p.pair_id)]
            if p.number not in members:
                continue
            partner = members.get(p.partner)
            rows.append(
                {
                    "club_id": club.pk,
                    "version_id": version_id,
                    "member_id": members[p.number].pk,
                    "partner_id": partner.pk if partner else None,
                    "date": rated.date,
                    "pair_id": p.pair_id,
                    "percent": pair.percent,
                    "field_average": rated.field_average,
                    "ppr": pair.ppr,
                    "own": p.own,
                    "partner_grade": p.partner_grade,
                    "ipr": p.ipr,
                }
            )
    return rows


GRADE_FIELDS = (  # a grade row's fields besides its club and member
    "grade",
    "performances",
    "quarter_iprs",
    "tournaments",
    "quarter",
    "on_a_list",
    "on_b_list",
    "last_date",
)


def grade_row(club: Club, member: Member, player, quarter: str, listed, last_date) -> dict:
    """A member's ``BrambledownGrade`` row; ``listed``: the kind of list the member is on at
    the end of ``quarter`` (the last regraded), if any."""
    return {
        "club_id": club.pk,
        "member_id": member.pk,
        "grade": player.grade,
        "performances": min(len(player.first_iprs), 3),
        "quarter_iprs": len(player.quarter_iprs),
        "tournaments": player.tournaments,
        "quarter": quarter,
        "on_a_list": listed == BrambledownListEntry.Kind.A,
        "on_b_list": listed == BrambledownListEntry.Kind.B,
        "last_date": last_date,
    }


def point_rows(club: Club, member: Member, history) -> list[dict]:
    """A member's ``BrambledownPoint`` rows for these ``GradePoint``s."""
    return [
        {
            "club_id": club.pk,
            "member_id": member.pk,
            "date": h.date,
            "quarter": str(h.quarter),
            "grade": h.grade,
            "reason": h.reason,
        }
        for h in history
    ]


def listed_kinds(club: Club, quarter: str, member_ids=None) -> dict[int, str]:
    """Member id -> the list (A or B) each is on at the end of ``quarter`` at the club."""
    entries = BrambledownListEntry.objects.filter(club=club, quarter=quarter).exclude(
        kind=BrambledownListEntry.Kind.PAIRS
    )
    if member_ids is not None:
        entries = entries.filter(member_id__in=member_ids)
    return dict(entries.values_list("member_id", "kind"))


def grades_store(club: Club, state: BrambledownState, regraded: Quarter | None) -> None:
    """Every member's grade and history at the club, with the last closed quarter's lists."""
    members = members_by_number(state.players)
    quarter = str(regraded) if regraded else ""
    on_list = listed_kinds(club, quarter)
    last_dates = dict(
        BrambledownRating.objects.filter(club=club)
        .values("member_id")
        .annotate(last=Max("date"))
        .values_list("member_id", "last")
    )
    grades, points = [], []
    for number, player in sorted(state.players.items()):
        member = members.get(number)
        if member is None:
            continue
        grades.append(
            grade_row(
                club, member, player, quarter, on_list.get(member.pk), last_dates.get(member.pk)
            )
        )
        points += point_rows(club, member, player.history)
    # Only what changed is written: after an upload, the grades of those who played.
    rows_sync(BrambledownGrade.objects.filter(club=club), grades)
    rows_sync(BrambledownPoint.objects.filter(club=club), points, group_by="member_id")
    member_pages_invalidate(member_ids=[member.pk for member in members.values()])
