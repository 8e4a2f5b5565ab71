"""Brambledown on the database (S11, issue 8): per club that keeps it, the open quarter's
sessions recorded after each upload, quarters closed by the command, the task, or a session of
a later quarter; everything equal to the engine's replay of the same sessions."""

import datetime as dt
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.template.loader import render_to_string

from grading.engine.brambledown import Quarter, brambledown_replay
from grading.models import (
    BrambledownClubState,
    BrambledownGrade,
    BrambledownListEntry,
    BrambledownPoint,
    BrambledownQuarter,
    BrambledownRating,
)
from grading.schemes.brambledown.update import brambledown_club_update, brambledown_regrade_due
from grading.schemes.selectors import club_schemes, member_schemes
from members.models import Member
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import ClubFactory
from tests.schemes.conftest import live_sessions_in_processing_order

Q3_DATES = ["2026-07-06", "2026-07-20", "2026-08-03", "2026-08-17", "2026-09-07"]
SCORES = [
    [62.5, 55.0, 52.5, 50.0, 47.5, 45.0, 44.0, 43.5],
    [48.0, 58.0, 51.0, 49.0, 53.0, 47.0, 46.0, 48.0],
    [60.0, 50.0, 45.0, 55.0, 44.0, 52.0, 46.0, 48.0],
    [57.0, 53.0, 49.0, 51.0, 50.0, 46.0, 47.0, 47.0],
    [55.0, 61.0, 43.0, 50.0, 48.0, 49.0, 47.0, 47.0],
]


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.fixture
def quarter_uploaded(upload):
    """Five sessions of 2026Q3 in one file (graded one after another, in file order)."""
    upload(
        csv_bytes(
            *[
                mp_session_rows(event_id=f"E{i}", date=day, scores=scores)
                for i, (day, scores) in enumerate(zip(Q3_DATES, SCORES, strict=True))
            ]
        )
    )


def grades() -> dict[str, int | None]:
    return {
        g.member.national_number: g.grade for g in BrambledownGrade.objects.select_related("member")
    }


def test_sessions_of_the_open_quarter_are_recorded(club, quarter_uploaded):
    engine = brambledown_replay(live_sessions_in_processing_order(), "2026Q2")
    assert BrambledownRating.objects.filter(club=club).count() == 5 * 16
    ipr = {
        (r.date, r.member.national_number): r.ipr
        for r in BrambledownRating.objects.select_related("member")
    }
    for ratings in engine.open_sessions:
        for player in ratings.players:
            assert ipr[(ratings.date, player.number)] == pytest.approx(player.ipr, abs=1e-9)
    first = BrambledownRating.objects.get(member__national_number="1001", date="2026-07-06")
    assert first.field_average == 135 and first.own is None  # everyone new at first
    assert first.ppr == pytest.approx(first.ipr)  # new with a new partner: the PPR itself
    # New players get their grade at the third performance, at once (S11).
    assert grades() == {n: p.grade for n, p in engine.state.players.items()}
    assert all(g is not None for g in grades().values())
    assert BrambledownPoint.objects.filter(reason="new").count() == 16
    state = BrambledownClubState.objects.get(club=club)
    assert (state.regraded, state.open_quarter) == ("", "2026Q3")
    assert not BrambledownQuarter.objects.exists()


def test_regrade_command_closes_the_quarter_with_grades_and_lists(club, quarter_uploaded):
    out = run("regrade_brambledown", "--quarter", "2026Q3")
    assert "riverside: 2026Q3; open quarter 2026Q4, 5 sessions rated" in out
    engine = brambledown_replay(live_sessions_in_processing_order(), "2026Q3")
    (closed,) = engine.quarters
    assert grades() == {n: p.grade for n, p in closed.state.players.items()}
    quarter = BrambledownQuarter.objects.get(club=club)
    assert quarter.quarter == "2026Q3" and quarter.sessions == 5
    assert quarter.changes == [[c.number, c.old, c.new, len(c.iprs)] for c in closed.changes]
    lists = BrambledownListEntry.objects.filter(club=club, quarter="2026Q3")
    b_list = [e.member.national_number for e in lists.filter(kind="B").order_by("rank")]
    assert b_list == [e.number for e in closed.b_list] and len(b_list) == 16  # 5 tournaments
    assert not lists.filter(kind="A").exists()  # 20 tournaments needed
    pairs = [
        (e.member.national_number, e.partner.national_number)
        for e in lists.filter(kind="pairs").order_by("rank")
    ]
    assert pairs == [e.players for e in closed.pairs_list] and len(pairs) == 8
    assert BrambledownGrade.objects.filter(on_b_list=True, quarter="2026Q3").count() == 16
    assert BrambledownPoint.objects.filter(reason="regrade", date="2026-10-01").count() == 16
    # Again: the quarter is closed already and nothing changes.
    assert "2026Q3 already closed" in run("regrade_brambledown", "--quarter", "2026Q3")
    assert BrambledownQuarter.objects.count() == 1


def test_a_session_of_a_later_quarter_closes_the_open_one(club, upload, quarter_uploaded):
    upload(csv_bytes(mp_session_rows(event_id="OCT", date="2026-10-05")))
    engine = brambledown_replay(live_sessions_in_processing_order(), "2026Q3")
    assert BrambledownClubState.objects.get(club=club).open_quarter == "2026Q4"
    assert BrambledownQuarter.objects.get(club=club).quarter == "2026Q3"
    assert grades() == {n: p.grade for n, p in engine.state.players.items()}
    assert BrambledownRating.objects.filter(date="2026-10-05").count() == 16
    assert BrambledownGrade.objects.get(member__national_number="1001").quarter_iprs == 1


def test_a_late_session_of_a_closed_quarter_replays(club, upload, quarter_uploaded):
    run("regrade_brambledown", "--quarter", "2026Q3", "--club", "riverside")
    upload(csv_bytes(mp_session_rows(event_id="LATE", date="2026-09-21", scores=[50] * 8)))
    engine = brambledown_replay(live_sessions_in_processing_order(), "2026Q3")
    assert grades() == {n: p.grade for n, p in engine.state.players.items()}
    assert BrambledownQuarter.objects.get(club=club).sessions == 6
    assert BrambledownRating.objects.filter(club=club).count() == 6 * 16


def test_the_quarterly_task_is_idempotent(club, quarter_uploaded):
    done = brambledown_regrade_due(today=dt.date(2026, 10, 1))
    assert done["riverside"].closed == ("2026Q3",)
    again = brambledown_regrade_due(today=dt.date(2026, 10, 2))
    assert again["riverside"].closed == ()
    assert BrambledownQuarter.objects.count() == 1


def test_a_club_that_does_not_keep_brambledown_gets_nothing(upload):
    other = ClubFactory(slug="elsewhere", national_number="", keeps_brambledown=False)
    upload(csv_bytes(mp_session_rows(date="2026-07-06")), target=other)
    assert not BrambledownRating.objects.exists()
    assert not BrambledownGrade.objects.exists()
    assert not BrambledownClubState.objects.exists()
    with pytest.raises(CommandError, match="does not keep"):
        run("regrade_brambledown", "--quarter", "2026Q3", "--club", "elsewhere")
    with pytest.raises(CommandError, match="not a quarter"):
        run("regrade_brambledown", "--quarter", "2026-13")


def test_beat_schedule_has_the_quarterly_task():
    from django.conf import settings

    entry = settings.CELERY_BEAT_SCHEDULE["regrade-brambledown"]
    assert entry["task"] == "grading.regrade_brambledown"
    schedule = entry["schedule"]
    assert schedule.day_of_month == {1} and schedule.month_of_year == {1, 4, 7, 10}


def stored_rows(model, fields) -> list[tuple]:
    return sorted(model.objects.values_list(*fields))


def test_an_upload_rewrites_only_the_rows_it_changes_and_matches_a_full_replay(club, upload):
    """After each upload only what changed is written (``grading.common.bulk.rows_sync``): four
    newcomers' session leaves the other players' grade rows and histories untouched, and the
    stored rows are exactly those a full replay of the club writes."""

    upload(
        csv_bytes(
            *[
                mp_session_rows(event_id=f"E{i}", date=day, scores=scores)
                for i, (day, scores) in enumerate(zip(Q3_DATES[:3], SCORES[:3], strict=True))
            ]
        )
    )
    before = dict(BrambledownGrade.objects.values_list("member__national_number", "pk"))
    points_before = set(BrambledownPoint.objects.values_list("pk", flat=True))
    newcomers = [("1001", "1002"), ("1003", "1004"), ("2001", "2002"), ("2003", "2004")]
    upload(
        csv_bytes(
            mp_session_rows(
                event_id="E9", date="2026-08-24", scores=[55, 50, 48, 47], numbers=newcomers
            )
        )
    )
    after = dict(BrambledownGrade.objects.values_list("member__national_number", "pk"))
    played = {n for pair in newcomers for n in pair}
    # The others' rows are left as they are (the players' are updated in place, or replaced).
    assert set(before) - played <= {n for n in before if before[n] == after[n]}
    assert points_before <= set(BrambledownPoint.objects.values_list("pk", flat=True))

    grade_fields = [
        "member__national_number",
        "grade",
        "performances",
        "quarter_iprs",
        "tournaments",
        "quarter",
        "on_a_list",
        "on_b_list",
        "last_date",
    ]
    point_fields = ["member__national_number", "date", "quarter", "grade", "reason"]
    rating_fields = [
        "version_id",
        "member__national_number",
        "partner_id",
        "date",
        "pair_id",
        "percent",
        "field_average",
        "ppr",
        "own",
        "partner_grade",
        "ipr",
    ]
    synced = [
        stored_rows(m, f)
        for m, f in (
            (BrambledownGrade, grade_fields),
            (BrambledownPoint, point_fields),
            (BrambledownRating, rating_fields),
        )
    ]
    BrambledownGrade.objects.all().delete()
    BrambledownPoint.objects.all().delete()
    BrambledownRating.objects.all().delete()
    brambledown_club_update(club=club, replay=True)
    replayed = [
        stored_rows(m, f)
        for m, f in (
            (BrambledownGrade, grade_fields),
            (BrambledownPoint, point_fields),
            (BrambledownRating, rating_fields),
        )
    ]
    assert synced == replayed
    assert synced[0] and synced[1] and synced[2]


def test_a_grade_below_zero_is_stored_and_blocks_nothing(club, upload):
    """S11 sets no lower limit: a new player's IPR is 2 x PPR - partner's grade. P and Q score
    80 % three times (P's grade becomes 244), then newcomer N scores 20 % with P three times:
    N's grade is -200, stored like any other; every upload is graded, equal to the replay."""
    others = [("4001", "4002"), ("4003", "4004"), ("4005", "4006")]
    for i, day in enumerate(["2026-07-06", "2026-07-13", "2026-07-20"]):
        upload(
            csv_bytes(
                mp_session_rows(
                    event_id=f"A{i}",
                    date=day,
                    scores=[80, 40, 40, 40],
                    numbers=[("3001", "3002"), *others],
                )
            )
        )
    for i, day in enumerate(["2026-08-03", "2026-08-10", "2026-08-17"]):
        result = upload(
            csv_bytes(
                mp_session_rows(
                    event_id=f"B{i}",
                    date=day,
                    scores=[20, 60, 60, 60],
                    numbers=[("3003", "3001"), *others],
                )
            )
        )
        assert result.status == "graded", result.problems
    engine = brambledown_replay(live_sessions_in_processing_order(), "2026Q2")
    assert grades()["3003"] == engine.state.players["3003"].grade < 0
    assert grades() == {n: p.grade for n, p in engine.state.players.items()}


def test_a_quarter_not_yet_over_cannot_be_closed(club):
    """Found by review: --quarter of the current (or a future) quarter closed it early and
    emptied the club's lists (S11: a quarter is regraded once it has ended)."""
    from django.utils import timezone

    current = Quarter.of(timezone.localdate())
    for quarter in (current, current.next()):
        with pytest.raises(CommandError, match="only a quarter that has ended"):
            run("regrade_brambledown", "--quarter", str(quarter))
    assert not BrambledownQuarter.objects.exists()


def test_the_card_and_the_club_lists_count_the_same_tournaments(club, upload, quarter_uploaded):
    """Issue 19: a member's graded tournaments on their card are those of the club's lists
    (to the end of the last quarter regraded, S11), with the ones played since said apart."""
    upload(csv_bytes(mp_session_rows(event_id="OCT", date="2026-10-05")))  # closes 2026Q3
    lists = club_schemes(club=club)
    assert lists.quarter == "2026Q3" and len(lists.b_list) == 16
    listed = {row.number: row.tournaments for row in lists.b_list}
    assert set(listed.values()) == {5}  # the five sessions of 2026Q3, not the October one
    lists_html = render_to_string("schemes/club_brambledown_lists.html", {"club_schemes": lists})
    for number, count in listed.items():
        member = Member.objects.get(national_number=number)
        (card,) = member_schemes(member=member, viewer=member).brambledown
        assert (card.quarter, card.tournaments, card.tournaments_since) == ("2026Q3", count, 1)
        assert BrambledownGrade.objects.get(member=member).tournaments == count + 1
        html = render_to_string(
            "schemes/brambledown_card.html",
            {"schemes": member_schemes(member=member, viewer=member)},
        )
        assert f'"brambledown-tournaments-count">{count}</span>' in html
        assert "to the end of 2026Q3" in html and "1 played since" in html
        assert f'<td class="num">{count}</td>' in lists_html


def test_before_the_first_regrade_the_card_counts_every_tournament(club, quarter_uploaded):
    member = Member.objects.get(national_number="1001")
    (card,) = member_schemes(member=member, viewer=member).brambledown
    assert (card.quarter, card.tournaments, card.tournaments_since) == ("", 5, 0)


def _copy_rows_to(club, model) -> None:
    rows = list(model.objects.all())
    for row in rows:
        row.pk, row.club = None, club
    model.objects.bulk_create(rows)


def test_the_card_reads_a_members_clubs_in_the_same_queries_however_many(
    club, upload, quarter_uploaded, django_assert_num_queries
):
    """The card's Brambledown part costs the same queries at one club or at two (the counts
    since the last regrade and the grade points are read for every club at once)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    upload(csv_bytes(mp_session_rows(event_id="OCT", date="2026-10-05")))  # closes 2026Q3
    member = Member.objects.get(national_number="1001")
    with CaptureQueriesContext(connection) as one_club:
        (alone,) = member_schemes(member=member, viewer=member).brambledown
    assert alone.chart is not None and alone.tournaments_since == 1

    other = ClubFactory(slug="hillside", name="Hillside", keeps_brambledown=True)
    for model in (BrambledownGrade, BrambledownPoint):  # ratings are one per version: not copied
        _copy_rows_to(other, model)
    with django_assert_num_queries(len(one_club.captured_queries)):
        views = member_schemes(member=member, viewer=member).brambledown
    figures = {
        v.club_slug: (v.grade, v.tournaments, v.tournaments_since, v.quarter, v.chart)
        for v in views
    }
    assert figures == {
        club.slug: (alone.grade, alone.tournaments, 1, alone.quarter, alone.chart),
        # no rating at Hillside since its last regrade: every tournament counts on its lists
        other.slug: (alone.grade, alone.tournaments + 1, 0, alone.quarter, alone.chart),
    }
