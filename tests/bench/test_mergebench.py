"""The merge benchmark (grading/lab/mergebench.py, issue 27): it merges two members with long
histories who never met, runs the refold and the schemes' rebuild the merge queues, and leaves
the database as it was. Nothing here is timed."""

import pytest

from grading.lab.mergebench import merge_bench
from grading.models import AuditEvent, CurrentGrade, PairResult, SessionGrade
from members.models import Member
from tests.factories import ClubFactory
from tests.union.test_merge import upload_world

pytestmark = pytest.mark.django_db


def _state() -> tuple:
    return (
        sorted(CurrentGrade.objects.values_list("member__national_number", "grade")),
        sorted(SessionGrade.objects.values_list("member_id", "partner_id", "grade_after")),
        sorted(PairResult.objects.values_list("pk", "player1_id", "player2_id")),
        Member.objects.filter(merged_into__isnull=False).count(),
        AuditEvent.objects.count(),
    )


def test_the_merge_bench_merges_two_members_who_never_met_and_leaves_the_database_as_it_was(
    django_capture_on_commit_callbacks,
):
    club = ClubFactory()
    # Two worlds that share no player: the busiest members of one never met the other's.
    upload_world(club, 1, ["100001"] * 4, django_capture_on_commit_callbacks)
    upload_world(club, 2, ["200001"] * 4, django_capture_on_commit_callbacks)
    before = _state()
    with django_capture_on_commit_callbacks(execute=True) as queued:
        figures = merge_bench(baseline=True)
    assert queued == []  # the merge's tasks were run here, and rolled back with it
    merged, survivor = figures["merge_members"]
    assert merged[0] != survivor[0]  # one of each world
    assert figures["merge_sessions"] == [4, 4]
    assert figures["merge_pair_rows"] == 4 and figures["merge_left_on_merged"] == 0
    assert figures["merge_seconds"] >= figures["merge_refold_seconds"] > 0
    assert figures["refold_seconds"] > 0
    assert _state() == before


def test_the_merge_bench_finds_a_pair_beyond_the_busiest_when_they_all_met_and_have_logins(
    django_capture_on_commit_callbacks, monkeypatch
):
    """As in a region's three months: every one of the busiest members met the others and has
    a login, so the merged number is the busiest member further down without one."""
    from grading.lab import mergebench
    from tests.factories import UserFactory

    club = ClubFactory()
    upload_world(club, 1, ["100001"] * 4, django_capture_on_commit_callbacks)
    upload_world(club, 2, ["200001"] * 4, django_capture_on_commit_callbacks)
    for number in ("100001", "100002", "200001", "200002"):
        Member.objects.filter(national_number=number).update(user=UserFactory())
    monkeypatch.setattr(mergebench, "CANDIDATES", 2)  # the two busiest: 100001 and 100002
    old, new, old_sessions, new_sessions = mergebench._pair()
    assert new.national_number in {"100001", "100002"}
    assert old.national_number.startswith("2") and old.user_id is None
    assert new_sessions == 4 and old_sessions >= 1

    def sessions(member):
        rows = PairResult.objects.filter(player1=member) | PairResult.objects.filter(player2=member)
        return set(rows.values_list("version__session_id", flat=True))

    assert not sessions(old) & sessions(new)  # they never played in one session
