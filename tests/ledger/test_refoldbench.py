"""The bench's refold figures (issue 31; grading/lab/refoldbench.py): ``replay --check``, a
same-set refold, a change of set and the set put back, each timed in its own process, on the
database the bench built. Here each "process" is ``manage.py shell`` run in this one."""

import contextlib
import io

from django.core.management import call_command

from grading.lab.refoldbench import BENCH_STEPS, OTHER_SET, refold_figures
from grading.ledger.replay.check import ledger_check
from grading.models import LedgerHead, SessionGrade
from grading.uploads.services import upload_create
from tests.csvfiles import BALANCED, butler_session_rows, csv_bytes
from tests.factories import ClubFactory


class ShellStack:
    """What ``refold_figures`` needs of ``grading.lab.load.BenchStack``: ``_run`` of
    ``manage.py shell -c CODE``, its standard output returned."""

    def __init__(self):
        self.params_seen: list[str] = []

    def _run(self, *args: str) -> str:
        assert args[:3] == ("manage.py", "shell", "-c")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            call_command("shell", command=args[3])
        self.params_seen.append(LedgerHead.objects.get().params_name)
        return out.getvalue()


def test_refold_figures_time_each_step_and_put_the_set_back(
    ledger, postgres, django_capture_on_commit_callbacks
):
    # A Butler session: graded differently by the other set (its Butler factor), so the
    # change of set rewrites grades and putting the set back must restore them.
    rows = butler_session_rows(event_id="BUT", date="2024-03-11", scores=BALANCED)
    with django_capture_on_commit_callbacks(execute=True):
        upload_create(club=ClubFactory(), filename="butler.csv", data=csv_bytes(rows))
    own = ledger.params_name
    grades = dict(SessionGrade.objects.values_list("pk", "session_grade"))
    stack = ShellStack()
    report = refold_figures(stack, log=lambda line: None)
    for step in BENCH_STEPS:
        assert report[f"{step}_seconds"] > 0
        assert report[f"{step}_peak_rss_mb"] > 0
    assert report["check_problems"] == 0
    # the change of set ran with the other set; the last step put it back
    assert stack.params_seen == [own, own, OTHER_SET, own]
    assert report["refolds"]["refold_changed"]["params"] == OTHER_SET
    # each refold says where its time went; the change and the way back rewrote the Butler
    # session's grades, which the end below finds restored
    for step in BENCH_STEPS[1:]:
        assert report["refolds"][step]["phases"]["write"] > 0
    assert report["refolds"]["refold_changed"]["written"]["session_grades_updated"] > 0
    assert report["refolds"]["refold_back"]["written"]["session_grades_updated"] > 0
    assert LedgerHead.objects.get().params_name == own
    after = dict(SessionGrade.objects.values_list("pk", "session_grade"))
    assert after.keys() == grades.keys()
    assert all(abs(after[k] - grades[k]) <= 1e-9 for k in grades if grades[k] is not None)
    assert ledger_check() == []
