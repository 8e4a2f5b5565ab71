"""A same-set refold of a ledger graded upload by upload writes no grade (issue 31 item 1;
``grading.ledger.replay.merge.SAME``): the compiled fold sums in another order than the
step-by-step engine and its figures differ from the stored ones in the last bits only, which
``replay --check`` accepts; the merge leaves such rows as they are."""

from grading.ledger.replay import run as replay_run
from grading.ledger.replay.check import ledger_check, ledger_refold
from grading.models import SessionGrade
from grading.uploads.services import upload_create
from tests.csvfiles import BALANCED, butler_session_rows, csv_bytes
from tests.factories import ClubFactory


def test_a_same_set_refold_rewrites_no_grade_that_differs_in_the_last_bits(
    ledger, postgres, django_capture_on_commit_callbacks
):
    rows = butler_session_rows(event_id="BUT", date="2024-03-11", scores=BALANCED)
    with django_capture_on_commit_callbacks(execute=True):
        upload_create(club=ClubFactory(), filename="butler.csv", data=csv_bytes(rows))
    stored = dict(SessionGrade.objects.values_list("pk", "session_grade"))

    ledger_refold()

    written = replay_run.last_refold["stats"].written
    for table in ("session_grades", "history"):
        assert written[f"{table}_updated"] == 0, written
    assert written["pair_figures_updated"] == 0 and written["versions_updated"] == 0
    assert dict(SessionGrade.objects.values_list("pk", "session_grade")) == stored
    assert ledger_check() == []
