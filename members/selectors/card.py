"""The member's own grade card (S4), with the grade drawn over time as of each day played.

The chart is not the "grade after" of each session (S5.2: the grade when the session was
graded, which a late upload computes from the grades of that moment): it is, for each date the
member played, their grade at the end of that day from every result known now, recomputed
through the engine (``grading.engine.ngs.current_grade``) over their live graded sessions up
to that date. A late upload therefore draws no saw-tooth, and the last point is the card's
grade. The points are kept with the member's pages (``members.pagecache``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field

from grading.engine.ngs import (
    History,
    HistoryEntry,
    NGSParams,
    band,
    shown,
)
from grading.engine.ngs.window import WindowState
from grading.engine.ngs.windowrules import rules_for
from grading.models import CurrentGrade
from grading.params import active_params
from members.models import Member
from members.pagecache import member_page_value
from members.selectors.bands import BandCard, StatusInfo, band_card, status_info
from members.selectors.history import LiveGraded, grade_weights, live_graded


@dataclass
class ChartPoint:
    date: dt.date
    grade: float
    event: str
    club: str


@dataclass
class GradeCard:
    member: Member
    has_grade: bool
    grade: float | None = None
    band: BandCard | None = None
    status: StatusInfo | None = None
    boards_in_window: int = 0
    sessions_in_window: int = 0
    last_session_date: dt.date | None = None
    as_of: dt.date | None = None
    private: bool = False
    points: list[ChartPoint] = field(default_factory=list)
    padding_boards: int = 0


def grades_on_days(history: History, days: Sequence[dt.date], params: NGSParams) -> list[float]:
    """The grade at the end of each of ``days`` (ascending), from the history's entries dated
    that day or earlier: ``current_grade(history, day, params).grade`` for each day (S4), in
    one pass. The entries go into the fast path's incremental window (the engine's
    ``WindowState``) in date order and the window is asked at each day in turn, so a decade of
    history costs one walk through it rather than one recomputation per day."""
    state = WindowState(rules_for(params), history.initial, track_partners=False)
    entries = sorted(history.entries, key=lambda e: (e.date, e.seq))
    grades = []
    i = 0
    for day in days:
        while i < len(entries) and entries[i].date <= day:
            e = entries[i]
            state.add(e.seq, e.date.toordinal(), e.boards, e.grade, e.factor, None, e.pad)
            i += 1
        grades.append(state.current(day.toordinal())[0])
    return grades


def grade_points(
    *,
    member: Member,
    current: CurrentGrade,
    params: NGSParams,
    graded: list[LiveGraded] | None = None,
) -> list[ChartPoint]:
    """The member's grade at the end of each day they played, from every result known now
    (an as-of recomputation, S4), then on the date of the card's grade if later. ``graded``:
    ``live_graded(member=member)`` if the caller has read it already."""
    graded = live_graded(member=member) if graded is None else graded
    history = History(
        current.initial_grade,
        tuple(
            HistoryEntry(g.seq, g.date, g.boards, g.grade, g.factor)
            for g in graded
            if g.seq is not None
        ),
    )
    events: dict[dt.date, list[tuple[str, str]]] = {}
    for g in graded:
        events.setdefault(g.date, []).append((g.event, g.club))
    days = list(events)
    today = bool(days) and current.as_of > days[-1]
    grades = grades_on_days(history, [*days, current.as_of] if today else days, params)
    points = []
    for date, grade in zip(days, grades, strict=False):
        played = events[date]
        names = "; ".join(dict.fromkeys(event for event, _ in played))
        clubs = "; ".join(dict.fromkeys(club for _, club in played))
        points.append(ChartPoint(date, grade, names, clubs))
    if today:
        points.append(
            ChartPoint(current.as_of, grades[-1], "Your grade today", "no session played")
        )
    return points


def grade_card(*, member: Member) -> GradeCard:
    """The member's own grade card (S4): shown to the member whatever its privacy."""
    current = CurrentGrade.objects.filter(member=member).first()
    if current is None:
        return GradeCard(member=member, has_grade=False, private=member.grade_private)
    params = active_params()
    # The chart's points and the weights are worked out from the member's rows, read once for
    # both their pages (members.selectors.digest); the points are kept with the pages too.
    graded = live_graded(member=member)

    def points_built() -> list[ChartPoint]:
        return grade_points(member=member, current=current, params=params, graded=graded)

    points = member_page_value(member=member, page="grade-points", build=points_built)
    weights = grade_weights(member=member, current=current, params=params, graded=graded)
    return GradeCard(
        member=member,
        has_grade=True,
        grade=shown(current.grade),
        band=band_card(band(current.grade)),
        status=status_info(current.status, current.boards_in_window, params),
        boards_in_window=current.boards_in_window,
        sessions_in_window=weights.sessions_in_window,
        last_session_date=current.last_session_date,
        as_of=current.as_of,
        private=member.grade_private,
        points=points,
        padding_boards=weights.padding_boards,
    )
