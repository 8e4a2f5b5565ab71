"""What one grading step reads of the subject tables (S4, S5.2-S5.4, S14.6-S14.8): its subjects'
history rows from the step's cut on, not their whole histories (docs/ngs.md, "Stateless
grading steps"). ``subjects_state`` builds the ``ReplayState`` a step applies its operation to;
``subjects_step`` loads, applies and stores (the tests' step)."""

from __future__ import annotations

import datetime as dt
from collections import Counter

from django.conf import settings
from django.db.models import Count, Max, Sum

from grading.engine.ngs import (
    NGSParams,
    ProcessOp,
    ReplayState,
    WithdrawOp,
    apply,
    partnership_subject,
    why_not_graded,
    years_before,
)
from grading.engine.ngs.incremental import IncrementalHistory
from grading.engine.ngs.ledger import ReferenceHistory
from grading.ledger import subjects as tables
from grading.ledger.subjects import ROW_BOARDS, ROW_DATE, ROW_VERSION
from grading.models import LedgerHistory, LedgerLive, LedgerSubject


def subjects_state(params: NGSParams, last_seq: int, op: ProcessOp | WithdrawOp) -> ReplayState:
    """A ``ReplayState`` holding only what ``op`` reads: its subjects' history rows from the
    step's cut on (``_step_rows``), the live version it withdraws, the live dates that decide
    the reference date. Applying ``op`` to it gives the step that applying ``op`` to the whole
    fold gives (on the settings' ``GRADING_ENGINE_PATH``: by default the fast path's windows,
    built once per subject from its rows)."""
    state = ReplayState(params, settings.GRADING_ENGINE_PATH)
    state.last_seq = last_seq
    withdrawn: int | None = None
    own: list[tuple] = []  # the withdrawn version's rows, whatever their date
    if isinstance(op, ProcessOp):
        players, keys = tables.session_subjects(op.session)
        wanted = LedgerSubject.objects.filter(
            key__in=players + [partnership_subject(k) for k in keys]
        )
    else:
        withdrawn = int(op.version)
        own = list(
            LedgerHistory.objects.filter(version_id=withdrawn).values_list(
                "subject_id", *tables.HISTORY_FIELDS, "pos"
            )
        )
        wanted = LedgerSubject.objects.filter(pk__in={row[0] for row in own})
    subjects = list(wanted.values_list("id", "key", "initial"))
    tables.rows_count(len(subjects))
    live = None
    if withdrawn is not None:
        live = LedgerLive.objects.filter(version_id=withdrawn).values_list("seq", "date").first()
    _live_dates(state, live[1] if live is not None else None)
    rows, older = _step_rows(state, subjects, _asked(state, op, live), own, withdrawn)
    for pk, key, initial in subjects:
        if pk in older:  # read from the cut on: its history knows the sessions before it
            cut = (_CutIncremental if state.path == "fast" else _CutReference)(initial)
            cut.older_sessions, cut.older_boards = older[pk]
            pkey = tables.subject_partnership(key)
            if pkey is None:
                state.players[key] = cut
            else:
                state.partnerships[pkey] = cut
    tables.state_fill(state, tables.rows_of(subjects, rows), withdrawn, live)
    return state


def _asked(state: ReplayState, op: ProcessOp | WithdrawOp, live) -> dt.date | None:
    """The one date at which the step asks its subjects' grades (S14.6): a graded process's
    reference date (the standings before, the grades after), a version not graded's date of
    play (its players' grades before, ``store_not_graded``), the reference date after a
    withdrawal. None: the engine refuses the operation (a version not live)."""
    if isinstance(op, ProcessOp):
        date = op.session.date
        latest = state.latest_date()
        if why_not_graded(op.session, state.params, op.host_pair) or latest is None:
            return date
        return max(date, latest)
    if live is None:
        return None
    dates = Counter(state.live_dates)
    dates[live[1]] -= 1
    return max((d for d, n in dates.items() if n > 0), default=live[1])


def _step_rows(
    state: ReplayState,
    subjects: list[tuple[int, str, float]],
    as_of: dt.date | None,
    own: list[tuple],
    withdrawn: int | None,
) -> tuple[dict[int, list[tuple]], dict[int, tuple[int, int]]]:
    """Each subject's history rows the step needs, in date order, and for a subject read from
    the cut on, the sessions and boards of its rows before the cut: ``(rows, older)`` by
    subject id.

    A grade on ``as_of`` weighs only the sessions after ``years_before(as_of)``, the cut (S4:
    the 2000-board window lies within the 3 years, S14.6); the rows before it decide the
    padding, the career and "300 once" (S14.7, S14.8), which no longer matter once the
    sessions after the cut hold ``padding_boards``: the last session's own 3 years then hold
    them, so its career reached them, and there is no padding. So a subject with that many
    boards after the cut in the state the step grades it in (before a process, after a
    withdrawal) is read from the cut on; any other is read whole (a short or thin history).
    The rows withdrawn are read whatever their date; a late session older than the cut only
    adds a row. Three queries (four when some subject is read whole)."""
    ids = [pk for pk, _, _ in subjects]
    history = LedgerHistory.objects.filter(subject_id__in=ids)
    if withdrawn is not None:
        history = history.exclude(version_id=withdrawn)
    cut = years_before(as_of, state.params.window_years) if as_of is not None else None
    if not isinstance(cut, dt.date):  # no date asked, or a cut before year 1: everything
        return tables.history_rows(history, own), {}
    rows = tables.history_rows(history.filter(date__gt=cut), own)
    older = {
        pk: (n, boards)
        for pk, n, boards in history.filter(date__lte=cut)
        .values("subject_id")
        .annotate(n=Count("pk"), b=Sum("boards"))
        .order_by()
        .values_list("subject_id", "n", "b")
    }
    tables.rows_count(len(older))
    padding = state.params.padding_boards
    thin = [
        pk
        for pk in older
        if sum(
            row[ROW_BOARDS]
            for row in rows.get(pk, ())
            if cut < row[ROW_DATE] <= as_of and row[ROW_VERSION] != withdrawn
        )
        < padding
    ]
    if thin:
        before = tables.history_rows(history.filter(subject_id__in=thin, date__lte=cut), [])
        for pk in thin:
            rows[pk] = sorted([*before.get(pk, ()), *rows.get(pk, ())], key=tables.row_order)
            del older[pk]
    return rows, older


class _Cut:
    """A history read from the step's cut on (``_step_rows``): the sessions before the cut still
    count in its sessions and graded boards (S9.1's 150 boards; a partnership's boards and
    sessions together)."""

    older_sessions = 0
    older_boards = 0

    def graded_boards(self) -> int:
        return super().graded_boards() + self.older_boards  # type: ignore[misc]

    def session_count(self) -> int:
        return super().session_count() + self.older_sessions  # type: ignore[misc]


class _CutIncremental(_Cut, IncrementalHistory):
    pass


class _CutReference(_Cut, ReferenceHistory):
    pass


def _live_dates(state: ReplayState, also: dt.date | None) -> None:
    """The counts of live versions on the two latest dates of play (and on ``also``, the date
    of the version withdrawn): enough for ``latest_date`` before and after one operation.
    Three queries on the date index, whatever the number of live versions."""
    live = LedgerLive.objects
    latest = live.aggregate(d=Max("date"))["d"]
    dates = {latest, also} - {None}
    if latest is not None:
        dates |= {live.filter(date__lt=latest).aggregate(d=Max("date"))["d"]} - {None}
    counts = live.filter(date__in=dates).values("date").annotate(n=Count("pk")).order_by()
    state.live_dates = Counter({row["date"]: row["n"] for row in counts})
    state._latest = max(state.live_dates) if state.live_dates else None


def subjects_step(params: NGSParams, last_seq: int, op: ProcessOp | WithdrawOp):
    """Load, apply, store: one ledger operation graded from the database. Returns the step and
    the partial state it was applied to."""
    state = subjects_state(params, last_seq, op)
    step = apply(state, op)
    state.steps.clear()
    tables.subjects_store(step, state)
    return step, state


__all__ = ["subjects_state", "subjects_step"]
