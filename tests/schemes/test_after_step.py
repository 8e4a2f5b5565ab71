"""The NGS grade first (issue 31 item 2; docs/decisions.md): an upload's grading step commits
the NGS grades and logs what they mean for the schemes (S14.17); PPI (S10) and Brambledown (S11)
follow in their own task, in the log's order, folding nothing twice."""

from __future__ import annotations

import pytest

from grading.common.queue import FOLLOW_PRIORITY
from grading.models import (
    BrambledownClubState,
    PPIRating,
    SchemeHead,
    SessionGrade,
    SessionVersion,
    Upload,
)
from grading.models.schemes import SchemeEntry
from grading.schemes import after_step
from grading.schemes.after_step import schemes_catch_up
from grading.schemes.log import last_seq
from grading.schemes.ppi import ppi_check
from grading.uploads.services import upload_create
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.schemes.test_brambledown_from_rows import SCORES, check


@pytest.fixture
def queued(monkeypatch) -> list[tuple[str, int | None]]:
    """The tasks the schemes' hook queues for the commit, with their priority."""
    calls: list[tuple[str, int | None]] = []
    real = after_step.task_queue

    def recording(name, *args, priority=None):
        calls.append((name, priority))
        real(name, *args, priority=priority)

    monkeypatch.setattr(after_step, "task_queue", recording)
    return calls


@pytest.fixture
def graded_without_schemes(club, queued, django_capture_on_commit_callbacks):
    """Upload files and run the grading their commits queue, but not the schemes' task the
    grading's own commit queues (held back: a busy worker has not taken it yet)."""

    def send(rows: list[dict]) -> Upload:
        queued.clear()
        with django_capture_on_commit_callbacks() as received:
            upload = upload_create(club=club, filename="results.csv", data=csv_bytes(rows))
        with django_capture_on_commit_callbacks():  # what the grading queues: not run
            for callback in received:
                callback()  # the upload's processing and grading (eager Celery)
        # the schemes' fold, after any upload waiting to be graded (once a step: a correction
        # is two, its withdrawal and its new version)
        assert queued and set(queued) == {("grading.schemes_catch_up", FOLLOW_PRIORITY)}
        upload.refresh_from_db()
        assert upload.status == Upload.Status.GRADED, upload.problems
        return upload

    return send


def test_the_ngs_grade_is_committed_before_the_schemes_fold_it(club, graded_without_schemes):
    graded_without_schemes(mp_session_rows(event_id="MON", date="2026-10-05"))

    assert SessionGrade.objects.filter(version__session__event__event_id="MON").count() == 16
    assert SchemeEntry.objects.count() == 1  # logged in the grading step...
    assert not PPIRating.objects.exists()  # ...and folded by neither scheme yet
    assert SchemeHead.objects.get_or_create(pk=1)[0].steps_seq == 0

    assert schemes_catch_up() == 1
    assert PPIRating.objects.count() == 16
    assert SchemeHead.objects.get().steps_seq == last_seq() == 1
    assert ppi_check() == []
    check(club)  # Brambledown: the club's full replay stores the same tables
    assert schemes_catch_up() == 0  # delivered again: nothing folded twice
    assert ppi_check() == []


def test_steps_folded_late_and_together_leave_what_a_replay_leaves(club, graded_without_schemes):
    """Several uploads graded before the schemes' task runs once: a correction (withdrawal and
    new version of one session), a late session of a quarter a later one has closed, sessions of
    a later quarter. The fold takes them in the log's order and ends where both replays do."""
    days = ["2025-01-06", "2025-01-13", "2025-01-20", "2025-04-07"]
    for i, day in enumerate(days):
        graded_without_schemes(mp_session_rows(event_id=f"A{i}", date=day, scores=SCORES[i % 3]))
    graded_without_schemes(mp_session_rows(event_id="A1", date="2025-01-13", scores=SCORES[2]))
    graded_without_schemes(mp_session_rows(event_id="L", date="2025-02-03", scores=SCORES[1]))
    graded_without_schemes(mp_session_rows(event_id="B", date="2025-07-07", scores=SCORES[0]))
    assert SessionVersion.objects.filter(state=SessionVersion.State.WITHDRAWN).count() == 1
    assert not PPIRating.objects.exists()

    entries = SchemeEntry.objects.count()
    assert entries == 8  # 7 processed, 1 withdrawn
    assert schemes_catch_up() == entries
    assert ppi_check() == []
    check(club)
    state = BrambledownClubState.objects.get(club=club)
    assert state.seq == entries and state.open_quarter == "2025Q3"
    assert schemes_catch_up() == 0
