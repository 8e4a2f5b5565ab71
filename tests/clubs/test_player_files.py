"""Per-player handicap files for the scoring programs (issue 20 items 8-9; docs/handicaps.md):
EBUScore (whole-number band steps, Ace -6 ... Two +6, negative lowers the score), ScoreBridge
and Pianola (percentage points, grade - 50: positive lowers the score) and this site's own
(percentage points added to the score, 50 - grade, S8). Private and provisional members are
left out and counted (S7, FAQ 36)."""

import csv
import io

import pytest
from django.urls import reverse

from clubs.handicaps.players import split_name
from grading.common.spreadsheet import cell_text
from grading.engine.ngs.decay import band
from grading.engine.ngs.handicap import (
    BAND_STEPS,
    ebuscore_handicap,
    own_handicap,
    pair_figures,
    scorebridge_handicap,
)
from grading.models import CurrentGrade
from members.models import Member

# One member in every band (S4), grade as stored -> EBUScore, ScoreBridge, own.
EVERY_BAND = {
    "1001": (67.5, "Ace of Spades", -6, "17.50", "-17.50"),
    "1002": (62.0, "Ace of Clubs", -6, "12.00", "-12.00"),
    "1004": (60.0, "King", -5, "10.00", "-10.00"),
    "1005": (58.25, "Queen", -4, "8.25", "-8.25"),
    "1006": (56.0, "Jack", -3, "6.00", "-6.00"),
    "1007": (54.0, "Ten", -2, "4.00", "-4.00"),
    "1008": (52.0, "Nine", -1, "2.00", "-2.00"),
    "1009": (50.0, "Eight", 0, "0.00", "0.00"),
    "1010": (48.0, "Seven", 1, "-2.00", "2.00"),
    "1011": (46.0, "Six", 2, "-4.00", "4.00"),
    "1012": (44.0, "Five", 3, "-6.00", "6.00"),
    "1013": (42.0, "Four", 4, "-8.00", "8.00"),
    "1014": (40.0, "Three", 5, "-10.00", "10.00"),
    "1015": (37.0, "Two", 6, "-13.00", "13.00"),
    # Rounding: the grade as shown decides. 48.996 shows 49.00 (Eight); 48.994 shows 48.99.
    "1016": (48.996, "Eight", 0, "-1.00", "1.00"),
}
ROUNDED_DOWN = ("1016", 48.994, "Seven", 1, "-1.01", "1.01")


@pytest.fixture
def banded(graded):
    for number, (grade, band_name, *_) in EVERY_BAND.items():
        CurrentGrade.objects.filter(member__national_number=number).update(
            grade=grade, band=band_name, status=CurrentGrade.Status.MATURE
        )
    Member.objects.filter(national_number="1001").update(name="Archer, Alice")
    Member.objects.filter(national_number="1002").update(name="Mary Jane Baker")
    return graded


def export(client, club, fmt) -> dict[str, list[str]]:
    response = client.get(reverse("clubs:handicaps-export", args=[club.slug, fmt]))
    assert response["Content-Type"].startswith("text/csv")
    assert f"handicaps-{fmt}" in response["Content-Disposition"]
    header, *rows = csv.reader(io.StringIO(response.content.decode()))
    assert header == ["membership_number", "first_name", "surname", "handicap"]
    return {row[0]: row for row in rows}


@pytest.mark.parametrize("column, fmt", [(2, "ebuscore"), (3, "scorebridge"), (4, "own")])
def test_every_band_in_every_convention(admin_client, banded, column, fmt):
    rows = export(admin_client, banded, fmt)
    for number, expected in EVERY_BAND.items():
        value = expected[column]
        assert rows[number][3] == (str(value) if isinstance(value, int) else value), number


def test_the_signs_are_the_programs_own(admin_client, banded):
    """A strong player (Ace): EBUScore -6 and this site's own -17.50 lower the score;
    ScoreBridge's +17.50 lowers it too, with the opposite sign."""
    ebu, score_bridge, own = (
        export(admin_client, banded, fmt)["1001"][3] for fmt in ("ebuscore", "scorebridge", "own")
    )
    assert int(ebu) < 0 and float(score_bridge) > 0 and float(own) < 0
    assert float(score_bridge) == -float(own)


def test_rounding_follows_the_grade_as_shown(admin_client, banded):
    number, grade, band_name, step, own, score_bridge = ROUNDED_DOWN
    assert band(grade) == band_name
    CurrentGrade.objects.filter(member__national_number=number).update(grade=grade)
    assert export(admin_client, banded, "ebuscore")[number][3] == str(step)
    assert export(admin_client, banded, "own")[number][3] == score_bridge
    assert export(admin_client, banded, "scorebridge")[number][3] == own


def test_private_and_provisional_members_are_left_out_and_counted(admin_client, banded):
    """1003 is private, 1017 and 1018 provisional (tests/clubs/data.py)."""
    for fmt in ("ebuscore", "scorebridge", "own"):
        rows = export(admin_client, banded, fmt)
        assert not {"1003", "1017", "1018"} & set(rows), fmt
        assert len(rows) == 15
    html = admin_client.get(reverse("clubs:handicaps", args=[banded.slug])).content.decode()
    left_out = html[html.index('data-testid="left-out"') :]
    left_out = left_out[: left_out.index("</p>")]
    assert "15 members in each file" in left_out
    # and the administrator of the fixture, who has never played
    assert "4 left out: 1 private, 2 provisional, 1 without a grade yet" in left_out


def test_names_are_split_into_first_name_and_surname(admin_client, banded):
    rows = export(admin_client, banded, "own")
    assert rows["1001"][1:3] == ["Alice", "Archer"]
    assert rows["1002"][1:3] == ["Mary Jane", "Baker"]
    assert rows["1004"][1:3] == ["Player", "1004"]
    assert split_name("Cher") == ("", "Cher")


def test_the_engine_steps_cover_every_band():
    assert BAND_STEPS["Ace"] == -6 and BAND_STEPS["Eight"] == 0 and BAND_STEPS["Two"] == 6
    assert list(BAND_STEPS.values()) == list(range(-6, 7))
    assert ebuscore_handicap(61.0) == -6 and ebuscore_handicap(60.999) == -6  # shows 61.00
    assert ebuscore_handicap(60.99) == -5
    assert scorebridge_handicap(53.33) == 3.33 and own_handicap(53.33) == -3.33


@pytest.mark.parametrize(
    "ga, gb, average, handicap",
    [(47.88, 47.89, 47.89, 2.11), (53.33, 50.90, 52.12, -2.12), (50.0, 50.0, 50.0, 0.0)],
)
def test_pair_figures_add_up_to_50(ga, gb, average, handicap):
    assert pair_figures(ga, gb) == (average, handicap)
    assert f"{average + handicap:.2f}" == "50.00"


@pytest.mark.parametrize(
    "value, text",
    [
        ("=1+1", "'=1+1"),
        ("-Ann", "'-Ann"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\t=x", "'\t=x"),
        ("Ann", "Ann"),
        (-3.5, "-3.50"),
        (-6, "-6"),
        (None, ""),
    ],
)
def test_cell_text_escapes_formulas_and_keeps_numbers(value, text):
    assert cell_text(value) == text
