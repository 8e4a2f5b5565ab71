"""The fixtures of issue 29 go through the product as a club sends them: uploaded, graded,
and `replay --check` reproduces every stored grade (S5.4). The readings that matter are
checked in the grades stored: the cross-IMP factor of a Swiss pairs session (S14.23), this
session's own boards and figures (S14.22), a Swiss teams session not graded (S14.24)."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from grading.models import PairResult, SessionGrade, SessionVersion, Upload
from tests.factories import ClubFactory

FIDELITY = sorted((Path(__file__).resolve().parent.parent / "fixtures" / "fidelity").iterdir())


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_every_fidelity_fixture_is_graded_as_read_and_replay_check_reproduces_it():
    ClubFactory(slug="handmade", national_number="12345")
    for path in FIDELITY:
        run("import_results", "--club", "handmade", "--sync", str(path))
    refused = Upload.objects.filter(status=Upload.Status.REFUSED)
    assert not refused.exists(), [u.problems for u in refused]
    assert "every stored grade is reproduced" in run("replay", "--check")

    swiss = SessionVersion.objects.get(session__event__event_id="SWX1")
    term = SessionGrade.objects.get(version=swiss, member__national_number="2001").score_term
    assert term == pytest.approx(6.48 * 12 / 4)  # 19.44: cross-IMPs take F_cross

    teams = SessionVersion.objects.get(session__event__event_id="SWT1")
    assert teams.state != "graded"
    assert "two tables only" in teams.not_graded_reason

    butler = SessionVersion.objects.get(session__event__event_id="BUT26")
    boards = dict(butler.pairs.values_list("pair_id", "boards"))
    assert boards == {"1": 4, "2": 4, "3": 2, "4": 4, "5": 2}  # sit-outs not counted

    championship = PairResult.objects.filter(
        version__session__event__event_id="CPC2026", pair_id="1"
    ).values_list("score", "boards")
    assert set(championship) == {(87.5, 4)}  # this session's own, both files alike
