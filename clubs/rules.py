"""The clubs' rules that both reads and writes need (S3.9): which planned session a results
session is, and when a host request closes. Pure functions over models already loaded; no
queries, so ``clubs.selectors`` and ``clubs.services`` both import this and not each other."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from clubs.models import PlannedSession

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
    """Host requests close 30 minutes after the session's start (S3.9, FAQ 10)."""
    return planned_session_start(planned) + EXEMPTION_DEADLINE
