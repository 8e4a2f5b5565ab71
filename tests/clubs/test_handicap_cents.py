"""Handicap figures to the cent (S8; docs/decisions.md, "Club pages": from the
grade as shown to 2 decimals, rounded half away from zero) and the handicap form keeping what
the administrator typed."""

import csv
import io
from decimal import Decimal

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from grading.engine.ngs.handicap import (
    cents,
    match_handicap,
    mean_grade,
    pair_handicap,
    team_handicap,
)
from grading.models import CurrentGrade

# Grades as shown whose handicaps are exact half cents: binary floats put them just short.
SHOWN = {"1001": 53.33, "1002": 50.90, "1004": 48.67, "1005": 50.61}
# (handicap at 100 %, handicap at 50 %): 50 - G, and (50 - G) / 2 rounded half away from zero.
EXPECTED = {
    "1001": ("-3.33", "-1.67"),
    "1002": ("-0.90", "-0.45"),
    "1004": ("1.33", "0.67"),
    "1005": ("-0.61", "-0.31"),
}


@pytest.fixture
def half_cents(graded):
    for number, grade in SHOWN.items():
        CurrentGrade.objects.filter(member__national_number=number).update(grade=grade)
    assert set(
        CurrentGrade.objects.filter(member__national_number__in=SHOWN).values_list(
            "status", flat=True
        )
    ) <= {"E", "M"}  # published (S7)
    return graded


def read_csv(content: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(content.decode())))


def read_xlsx(content: bytes, sheet=None) -> list[list]:
    """The sheet's table: from the header on (a handicap table's sheet starts with the event
    and its date, then a blank row)."""
    book = load_workbook(io.BytesIO(content))
    rows = [list(r) for r in (book[sheet] if sheet else book.active).iter_rows(values_only=True)]
    blank = next((i for i, r in enumerate(rows) if all(v is None for v in r)), -1)
    return rows[blank + 1 :]


def test_cents_rounds_exact_half_cents_away_from_zero():
    assert cents(-1.665) == -1.67 and cents(0.665) == 0.67 and cents(-0.305) == -0.31
    assert cents(Decimal("-2.115")) == -2.12


def test_engine_handicaps_are_exact_for_grades_as_shown():
    """S8: 50 - (Ga + Gb)/2 from the grades as shown, exactly; FR 7's team figures too."""
    assert repr(pair_handicap(53.33, 50.90)) == "-2.115"
    assert repr(mean_grade([53.33, 50.90])) == "52.115"
    assert repr(mean_grade([44.46, 52.97, 47.9, 51.52])) == "49.2125"
    # 25/81 x 54 x (50 - 49.2125) = 13.125 exactly (binary arithmetic gives 13.1249999...)
    assert repr(team_handicap(49.2125, 54)) == "13.125"
    assert repr(match_handicap(50.0, 49.2125, 54)) == "13.125"
    assert pair_handicap(44.0, 48.0) == 4.0


def test_grade_list_page_and_exports_give_handicaps_to_the_cent(admin_client, half_cents):
    slug = half_cents.slug
    csv_rows = {
        row[0]: row
        for row in read_csv(
            admin_client.get(reverse("clubs:grades-export", args=[slug, "csv"])).content
        )
    }
    xlsx_rows = {
        row[0]: row
        for row in read_xlsx(
            admin_client.get(reverse("clubs:grades-export", args=[slug, "xlsx"])).content
        )
    }
    page = {
        r.number: r for r in admin_client.get(reverse("clubs:grades", args=[slug])).context["rows"]
    }
    html = admin_client.get(reverse("clubs:grades", args=[slug])).content.decode()
    for number, (full, half) in EXPECTED.items():
        assert csv_rows[number][4:6] == [full, half], number
        assert xlsx_rows[number][4:6] == [float(full), float(half)], number
        assert (page[number].handicap_100, page[number].handicap_50) == (float(full), float(half))
        row_html = html[html.index(f"<td>{number}</td>") :][:600]
        assert f">{full}<" in row_html and f">{half}<" in row_html, number


PAIR = {"event": "Charity Pairs", "r1p1": "1001", "r1p2": "1002"}  # 53.33 and 50.90


def test_pair_table_average_and_handicap_agree_everywhere(admin_client, half_cents):
    """(53.33 + 50.90) / 2 = 52.115 -> 52.12, and 50 - 52.115 = -2.115 -> -2.12 (S8)."""
    slug = half_cents.slug
    for name in ("clubs:handicaps", "clubs:handicaps-print"):
        html = admin_client.get(reverse(name, args=[slug]), PAIR).content.decode()
        assert ">52.12<" in html and "52.11" not in html, name
        assert "-2.12" in html and "-2.11" not in html, name
    (row,) = read_csv(
        admin_client.get(reverse("clubs:handicaps-export", args=[slug, "csv"]), PAIR).content
    )[1:]
    assert row[-2:] == ["52.12", "-2.12"]
    (cells,) = read_xlsx(
        admin_client.get(reverse("clubs:handicaps-export", args=[slug, "xlsx"]), PAIR).content
    )[1:]
    assert cells[-2:] == [52.12, -2.12]
    own = read_csv(admin_client.get(reverse("clubs:handicaps-export", args=[slug, "own"])).content)
    by_number = {row[0]: row[3] for row in own[1:]}
    assert (by_number["1001"], by_number["1002"]) == ("-3.33", "-0.90")


TEAMS = {
    "kind": "teams",
    "boards": "54",
    "r1name": "Guests",
    "r1p1": "Ann",
    "r1p2": "Bob",
    "r1p3": "Cy",
    "r1p4": "Di",
    "r1e1": "44.46",
    "r1e2": "52.97",
    "r1e3": "47.9",
    "r1e4": "51.52",
    "r2name": "Fifty",
    "r2p1": "Eve",
    "r2p2": "Fay",
    "r2p3": "Gil",
    "r2p4": "Hal",
    "r2e1": "50",
    "r2e2": "50",
    "r2e3": "50",
    "r2e4": "50",
}


def test_team_table_and_match_to_the_cent(admin_client, half_cents):
    """Average 49.2125 -> 49.21; 0.3086 x 54 x 0.7875 = 13.125 IMPs exactly -> 13.13 (FR 7),
    both as the team's handicap and as what it starts with against a 50 % team."""
    slug = half_cents.slug
    html = admin_client.get(reverse("clubs:handicaps", args=[slug]), TEAMS).content.decode()
    assert "13.13" in html and "13.12" not in html
    csv_rows = read_csv(
        admin_client.get(reverse("clubs:handicaps-export", args=[slug, "csv"]), TEAMS).content
    )
    assert csv_rows[1][-4:] == ["49.21", "54", "13.13", "13"]
    content = admin_client.get(reverse("clubs:handicaps-export", args=[slug, "xlsx"]), TEAMS)
    assert read_xlsx(content.content, "Teams")[1][-4:] == [49.21, 54, 13.13, 13]
    (match,) = read_xlsx(content.content, "Matches")[1:]
    assert match == ["Fifty", 50.0, "Guests", 49.21, 54, 13.13, 13]


# ----------------------------------------------------------------------- the form as typed


def test_a_rejected_estimate_comes_back_as_typed(admin_client, half_cents):
    params = {
        "r1p1": "1001",
        "r1p2": "1003",
        "r1e2": "abc",  # 1003 is private: needs one
        "r2p1": "Ann Visitor",
        "r2p2": "Bob Visitor",
        "r2e1": "95",
        "r2e2": "4O.5",
    }
    response = admin_client.get(reverse("clubs:handicaps", args=[half_cents.slug]), params)
    problems = " ".join(response.context["table"].problems)
    assert "'abc' is not a grade" in problems and "between 20 and 80" in problems
    html = response.content.decode()
    assert 'name="r1e2" value="abc"' in html
    assert 'name="r2e1" value="95"' in html
    assert 'name="r2e2" value="4O.5"' in html
    # A valid estimate still counts, and comes back as typed too.
    params["r1e2"] = "52.5"
    response = admin_client.get(reverse("clubs:handicaps", args=[half_cents.slug]), params)
    assert 'name="r1e2" value="52.5"' in response.content.decode()
    # (53.33 + 52.5) / 2 = 52.915 -> 52.92 shown, and 50 - 52.92 (S8)
    assert response.context["lines"][0].handicap == -2.92


def test_typed_estimates_are_escaped(admin_client, half_cents):
    params = {"r1p1": "1001", "r1p2": "1003", "r1e2": '"><script>x</script>'}
    html = admin_client.get(
        reverse("clubs:handicaps", args=[half_cents.slug]), params
    ).content.decode()
    assert "<script>x</script>" not in html
    assert 'value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"' in html
