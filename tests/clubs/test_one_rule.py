"""Each rule in one place (issue 16): the band counts of the club page and of the public band
page, the team handicap and the active parameter set, the session page and the engine's
comparison group, and a pair's average and handicap adding up to 50 (S7, S8, S3.2, S14.14).
Each test fails on the code before the fix."""

import csv
import datetime as dt
import io

import pytest
from django.urls import reverse
from django.utils import timezone
from openpyxl import load_workbook

from clubs.selectors.sessions import club_session_detail
from clubs.services import planned_session_create
from grading.models import (
    CurrentGrade,
    Event,
    LedgerHead,
    Match,
    PairResult,
    Session,
    SessionVersion,
)
from members.models import Member

# ------------------------------------------------------------- band counts agree (S7)

OUT_OF_DATE = ["1001", "1002", "1004", "1005", "1006", "1007"]


def test_band_counts_agree_between_the_club_page_and_the_public_band_page(
    client, admin_client, graded
):
    """Out-of-date grades are grades (S4): both pages count them (the club page once did and
    the public page did not)."""
    CurrentGrade.objects.filter(member__national_number__in=OUT_OF_DATE).update(
        status=CurrentGrade.Status.OUT_OF_DATE, grade=50.0, band="Eight"
    )
    club_rows = (
        admin_client.get(reverse("clubs:bands", args=[graded.slug])).context["distribution"].rows
    )
    club_counts = {row.band: row.club for row in club_rows}
    national_counts = {row.band: row.national for row in club_rows}
    assert club_counts["Eight"] >= len(OUT_OF_DATE)

    public = client.get("/api/v1/grades/bands/").json()
    national, *clubs = public
    (mine,) = [d for d in clubs if d["slug"] == graded.slug]
    public_club = {b["band"]: b["count"] for b in mine["bands"]}
    public_national = {b["band"]: b["count"] for b in national["bands"]}
    assert public_club["Eight"] == club_counts["Eight"]
    for band, count in public_club.items():
        assert club_counts[band] == count, band
    for band, count in public_national.items():
        assert national_counts[band] == count, band


# ------------------------------------------------- team handicap and parameter set (S9)

TEAM = {
    "kind": "teams",
    "boards": "24",
    "r1name": "Visitors",
    **{f"r1p{j}": f"Guest {j}" for j in range(1, 5)},
    **{f"r1e{j}": "45" for j in range(1, 5)},
}


@pytest.mark.parametrize(
    "params_name, factor, imps, whole",
    [
        ("ngs-15a", "0.3086", "37.04", 37),  # FR 7: 0.3086 x 24 x 5 = 37 (2 / 6.48)
        ("fr18-factors", "0.3268", "39.22", 39),  # 2 / 6.12 x 24 x 5
    ],
)
def test_team_handicap_follows_the_active_parameter_set(
    admin_client, graded, params_name, factor, imps, whole
):
    LedgerHead.objects.update_or_create(pk=1, defaults={"params_name": params_name})
    response = admin_client.get(reverse("clubs:handicaps", args=[graded.slug]), TEAM)
    (line,) = response.context["lines"]
    assert (f"{line.handicap:.2f}", line.handicap_whole) == (imps, whole)
    html = response.content.decode()
    assert f"{factor} × boards" in html and ("0.3086" in html) == (factor == "0.3086")
    exported = response = admin_client.get(
        reverse("clubs:handicaps-export", args=[graded.slug, "csv"]), TEAM
    )
    (row,) = list(csv.reader(io.StringIO(exported.content.decode())))[1:]
    assert row[-2:] == [imps, str(whole)]
    printed = admin_client.get(reverse("clubs:handicaps-print", args=[graded.slug]), TEAM)
    assert imps in printed.content.decode()


# ---------------------------------------------- the engine's comparison group (S3.2)


def teams_session(club, *, private_number: str, met: dict[str, list[str]] | None = None):
    """A graded multiple-teams session stored as grading stores it: 3 NS and 3 EW pairs,
    every pair with SOpp, par and excess; ``private_number`` plays in NS pair 1."""
    event = Event.objects.create(club=club, event_id="TEAMS", name="Winter Teams")
    session = Session.objects.create(event=event, date="2026-11-20")
    version = SessionVersion.objects.create(
        session=session,
        number=1,
        scoring="MULTIPLE_TEAMS",
        movement="ONE_WINNER",
        content_hash="x" * 64,
        payload={},
        state=SessionVersion.State.GRADED,
        sof=50.0,
        total_pairs=6,
        known_pairs=6,
    )
    session.live_version = version
    session.save(update_fields=["live_version"])
    numbers = iter(
        ["1001", private_number, "1004", "1005", "1006", "1007"]
        + [str(n) for n in range(1008, 1014)]
    )
    for i, direction in enumerate(["NS", "NS", "NS", "EW", "EW", "EW"], 1):
        first = Member.objects.get(national_number=next(numbers))
        second = Member.objects.get(national_number=next(numbers))
        PairResult.objects.create(
            version=version,
            pair_id=str(i),
            direction=direction,
            player1=first,
            player2=second,
            score=3.0 * i,
            boards=24,
            sopp=50.0 + i / 10,
            par=1.0 + i,
            excess=0.5 * i,
        )
    for pair_id, opponents in (met or {}).items():
        Match.objects.create(
            version=version, pair_id=pair_id, round=1, opponents=opponents, boards=8, score=0
        )
    return session


def test_teams_session_hides_figures_in_the_private_players_direction_only(admin_client, graded):
    """Teams pairs are compared within their direction (the engine's group): a private player
    in an NS pair hides the NS pairs' SOpp, par and excess, and the EW pairs keep theirs (the
    page once hid the whole field)."""
    Member.objects.filter(national_number="1003").update(grade_private=True)
    session = teams_session(graded, private_number="1003")
    detail = club_session_detail(club=graded, session_id=session.pk)
    hidden = {line.pair.pair_id: bool(line.hidden) for line in detail.lines}
    assert hidden == {"1": True, "2": True, "3": True, "4": False, "5": False, "6": False}
    html = admin_client.get(reverse("clubs:session", args=[graded.slug, session.pk])).content
    html = html.decode()
    assert "50.40" in html and "50.10" not in html  # EW pair 4's SOpp; NS pair 1's hidden
    assert "<th>Dir</th>" in html


def test_a_teams_pair_that_met_the_private_pair_at_the_table_is_hidden_too(graded):
    """A teams pair's SOpp may average the opponents met at the table, across directions
    (S3.2): a pair that met the private player's pair shows no figures either."""
    Member.objects.filter(national_number="1003").update(grade_private=True)
    session = teams_session(graded, private_number="1003", met={"5": ["1"], "6": ["2"]})
    detail = club_session_detail(club=graded, session_id=session.pk)
    hidden = {line.pair.pair_id: bool(line.hidden) for line in detail.lines}
    assert hidden == {"1": True, "2": True, "3": True, "4": False, "5": True, "6": False}


# ------------------------------------------------ average + handicap = 50 (S8)

RECONCILE = {"event": "Club Pairs", "r1p1": "1001", "r1p2": "1002"}


def test_a_pairs_average_and_handicap_add_up_to_50_as_shown(admin_client, graded):
    """47.88 and 47.89 average 47.885: shown 47.89, so the handicap shown is 2.11 (rounding
    50 - 47.885 = 2.115 on its own would show 2.12, and the two would add up to 50.01)."""
    CurrentGrade.objects.filter(member__national_number="1001").update(grade=47.88)
    CurrentGrade.objects.filter(member__national_number="1002").update(grade=47.89)
    slug = graded.slug
    (line,) = admin_client.get(reverse("clubs:handicaps", args=[slug]), RECONCILE).context["lines"]
    assert (line.average, line.handicap) == (47.89, 2.11)
    assert f"{line.average:.2f}" == "47.89" and f"{line.handicap:.2f}" == "2.11"
    for name in ("clubs:handicaps", "clubs:handicaps-print"):
        html = admin_client.get(reverse(name, args=[slug]), RECONCILE).content.decode()
        assert ">47.89<" in html and ">2.11<" in html and "2.12" not in html, name
    (row,) = list(
        csv.reader(
            io.StringIO(
                admin_client.get(
                    reverse("clubs:handicaps-export", args=[slug, "csv"]), RECONCILE
                ).content.decode()
            )
        )
    )[1:]
    assert row[-2:] == ["47.89", "2.11"]
    assert float(row[-2]) + float(row[-1]) == 50.0


def test_the_xlsx_names_the_event_and_date_and_shows_two_decimals(admin_client, graded):
    content = admin_client.get(
        reverse("clubs:handicaps-export", args=[graded.slug, "xlsx"]), RECONCILE
    ).content
    sheet = load_workbook(io.BytesIO(content)).active
    assert sheet["A1"].value == "Event" and sheet["B1"].value == "Club Pairs"
    assert sheet["A2"].value == "Made on" and sheet["B2"].is_date
    header_row = next(r for r in range(1, 10) if sheet.cell(r, 1).value == "entry")
    figures = [c for c in sheet[header_row + 1] if isinstance(c.value, float)]
    assert figures and all(c.number_format == "0.00" for c in figures)


def test_the_xlsx_of_a_planned_session_carries_its_date_and_start(admin_client, graded):
    day = timezone.localdate() + dt.timedelta(days=5)
    planned = planned_session_create(
        club=graded, event_name="Charity Pairs", date=day, start=dt.time(19, 30)
    )
    content = admin_client.get(
        reverse("clubs:handicaps-export", args=[graded.slug, "xlsx"]),
        {"planned": planned.pk, "r1p1": "1001", "r1p2": "1002"},
    ).content
    sheet = load_workbook(io.BytesIO(content)).active
    assert [sheet["A1"].value, sheet["B1"].value] == ["Event", "Charity Pairs"]
    assert sheet["A2"].value == "Date" and sheet["B2"].value.date() == day
    assert [sheet["A3"].value, sheet["B3"].value] == ["Start", "19:30"]
