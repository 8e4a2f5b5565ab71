"""The clubs' rules that both reads and writes need (S3.9): which planned session a results
session is, and when a host request closes. Pure functions over models already loaded; no
queries, so ``clubs.selectors`` and ``clubs.services`` both import this and not each other."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from clubs.models import PlannedSession
from grading.engine.ngs.decay import years_before

EXEMPTION_DEADLINE = dt.timedelta(minutes=30)


def planned_session_of(
    planned: list[PlannedSession], *, start: dt.time | None, event_name: str
) -> PlannedSession | None:
    """Which of a club's planned sessions of a day a results session is (S3.9): the only one;
    of several, the one starting nearest the results' start, else the one of the same event
    name; None when nothing tells them apart (no start time, other names)."""
    if len(planned) <= 1:
        return planned[0] if planned else None
    if start is not None:
        nearest = min(_minutes_apart(p.start, start) for p in planned)
        closest = [p for p in planned if _minutes_apart(p.start, start) == nearest]
        if len(closest) == 1:
            return closest[0]
    named = [p for p in planned if p.event_name.strip().lower() == event_name.strip().lower()]
    return named[0] if len(named) == 1 else None


def _minutes_apart(a: dt.time, b: dt.time) -> int:
    return abs((a.hour - b.hour) * 60 + a.minute - b.minute)


def planned_session_start(planned: PlannedSession) -> dt.datetime:
    """The session's start as an aware datetime in the site's time zone."""
    return timezone.make_aware(dt.datetime.combine(planned.date, planned.start))


def exemption_deadline(planned: PlannedSession) -> dt.datetime:
    """Host requests close 30 minutes after the session's start (S3.9, FAQ 10). A session at
    the end of the calendar (9999-12-31 23:45, stored before the 2-year bound) closes at the
    last moment the calendar holds (issue 32 item 6: the sum overflowed and took every club
    member's host-exemption page down)."""
    start = planned_session_start(planned)
    try:
        return start + EXEMPTION_DEADLINE
    except OverflowError:
        return start.replace(hour=23, minute=59, second=59, microsecond=999999)


def exemption_closed(planned: PlannedSession, now: dt.datetime) -> bool:
    """Whether host requests for ``planned`` have closed at ``now``."""
    return now > exemption_deadline(planned)


# S14.26: a planned session is dated no more than 2 years ahead.
PLANNED_YEARS_AHEAD = 2


def planned_date_latest(today: dt.date) -> dt.date:
    """The latest date a session may be planned for, ``today`` plus 2 years (29 February
    gives 28 February, S14.6's rule), no later than the calendar's last year."""
    return years_before(today, -min(PLANNED_YEARS_AHEAD, dt.MAXYEAR - today.year))


def planned_date_problem(date: dt.date, today: dt.date) -> str | None:
    """Why a session cannot be planned for ``date``, or None (S14.26)."""
    latest = planned_date_latest(today)
    if date <= latest:
        return None
    return (
        f"Sessions can be planned up to 2 years ahead, until {latest:%d %b %Y}; "
        f"{date.day:02d}/{date.month:02d}/{date.year:04d} is later. Check the date."
    )
