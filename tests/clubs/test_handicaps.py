"""Handicap tables (S8, FR 7, FAQ 36): pairs and teams, estimates for withheld grades, exports
and the member autocomplete."""

import csv
import io

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from clubs.handicaps.figures import handicap_figures
from clubs.handicaps.table import PAIRS, TEAMS, RawEntry, handicap_table_build
from grading.engine.ngs.handicap import whole
from grading.engine.ngs.params import NGS_DEFAULT
from grading.models import CurrentGrade
from members.models import Member

PRIVATE = "1003"
FACTOR = 2 / 6.48  # S3.3: FR 7's 0.3086 is 2 / F_cross


def shown(number):
    return round(CurrentGrade.objects.get(member__national_number=number).grade, 2)


def table_url(club, name="handicaps", fmt=None):
    args = [club.slug] + ([fmt] if fmt else [])
    return reverse(f"clubs:{name}", args=args)


def test_fr7_team_of_45_in_24_boards_gets_37_imps(club):
    entries = [RawEntry(1, "Visitors", ("A", "B", "C", "D", "", ""), (45.0,) * 4 + (None,) * 2)]
    table = handicap_table_build(club=club, kind=TEAMS, boards=24, entries=entries)
    (team,) = handicap_figures(table, NGS_DEFAULT).lines
    assert team.average == 45.0
    assert team.handicap == pytest.approx(0.3086 * 24 * 5, abs=0.01)
    assert team.handicap_whole == 37


def test_match_handicap_between_two_teams(club):
    entries = [
        RawEntry(1, "Strong", ("A", "B", "C", "D"), (55.0, 53.0, 54.0, 54.0)),
        RawEntry(2, "Weak", ("E", "F", "G", "H"), (47.0, 48.0, 46.0, 47.0)),
    ]
    table = handicap_table_build(club=club, kind=TEAMS, boards=32, entries=entries)
    figures = handicap_figures(table, NGS_DEFAULT)
    (match,) = figures.matches
    assert (match.stronger.label, match.weaker.label) == ("Strong", "Weak")
    # FR 7: the weaker starts with 0.3086 x boards x (54 - 47) IMPs = 69.1 over 32 boards,
    # which is also the difference of the two teams' multiple-teams handicaps.
    assert match.imps == pytest.approx(FACTOR * 32 * 7, abs=0.005)
    strong, weak = figures.lines
    assert match.imps == pytest.approx(weak.handicap - strong.handicap, abs=0.011)
    assert match.imps_whole == 69


@pytest.mark.parametrize("value, rounded", [(37.5, 38), (-37.5, -38), (36.49, 36), (0.0, 0)])
def test_whole_imps_rounds_halves_away_from_zero(value, rounded):
    assert whole(value) == rounded


def test_pairs_handicap_is_50_minus_the_average_grade(admin_client, graded):
    response = admin_client.get(
        table_url(graded),
        {"r1p1": "Player 1001 (1001)", "r1p2": "1002", "r2p1": "player 1004", "r2p2": "1005"},
    )
    table = response.context["table"]
    assert not table.problems
    first, second = response.context["lines"]
    cent = 0.005 + 1e-9
    assert first.handicap == pytest.approx(50 - (shown("1001") + shown("1002")) / 2, abs=cent)
    assert second.handicap == pytest.approx(50 - (shown("1004") + shown("1005")) / 2, abs=cent)
    assert [p.number for p in second.entry.players] == ["1004", "1005"]  # found by name
    html = response.content.decode()
    assert f"{first.handicap:.2f}" in html


def test_private_and_provisional_players_need_an_estimate(admin_client, graded):
    CurrentGrade.objects.filter(member__national_number=PRIVATE).update(grade=66.661)
    params = {"r1p1": "1001", "r1p2": PRIVATE, "r2p1": "1017", "r2p2": "1018"}
    response = admin_client.get(table_url(graded), params)
    table = response.context["table"]
    assert [line.handicap for line in response.context["lines"]] == [None, None]
    assert [p.withheld for p in table.missing_estimates] == [
        "Private",
        "Provisional",
        "Provisional",
    ]
    html = response.content.decode()
    assert "Private: estimate needed" in html and "Provisional: estimate needed" in html
    assert "66.66" not in html and "-16.66" not in html
    # The administrator types estimates for this table only.
    params.update({"r1e2": "52", "r2e1": "44.5", "r2e2": "45.5"})
    response = admin_client.get(table_url(graded), params)
    first, second = response.context["lines"]
    assert first.handicap == pytest.approx(50 - (shown("1001") + 52) / 2, abs=0.005 + 1e-9)
    assert second.handicap == pytest.approx(5.0)
    assert Member.objects.get(national_number=PRIVATE).current_grade.grade == 66.661
    for fmt in ("csv", "xlsx", "own", "ebuscore", "scorebridge"):
        content = admin_client.get(table_url(graded, "handicaps-export", fmt), params).content
        text = (
            content.decode(errors="ignore")
            if fmt != "xlsx"
            else repr(list(load_workbook(io.BytesIO(content)).active.iter_rows(values_only=True)))
        )
        assert "66.66" not in text and "16.66" not in text
        assert fmt in ("csv", "xlsx") or PRIVATE not in text  # no private member in a file


def test_an_estimate_never_replaces_a_published_grade(admin_client, graded):
    response = admin_client.get(
        table_url(graded), {"r1p1": "1001", "r1p2": "1002", "r1e1": "60", "r1e2": "60"}
    )
    (entry,) = response.context["table"].entries
    assert [p.grade for p in entry.players] == [shown("1001"), shown("1002")]


def test_problems_are_reported(admin_client, graded):
    response = admin_client.get(
        table_url(graded),
        {
            "r1p1": "1001",
            "r1p2": "999999",
            "r2p1": "1001",
            "r2p2": "1004",
            "r3p1": "1005",
            "r4p1": "1006",
            "r4p2": "1007",
            "r4e1": "fifty",
            "r5p1": "1008",
            "r5p2": "1009",
            "r5e1": "95",
        },
    )
    problems = " ".join(response.context["table"].problems)
    assert "No member has number 999999" in problems
    assert "entered twice" in problems
    assert "Pair 3 has 1 player" in problems
    assert "'fifty' is not a grade" in problems and "between 20 and 80" in problems


def read_csv(content):
    return list(csv.reader(io.StringIO(content.decode())))


def table_rows(sheet) -> list[list]:
    """A sheet's table: the rows from its header on (the event and date head the sheet)."""
    rows = [list(r) for r in sheet.iter_rows(values_only=True)]
    blank = next(i for i, r in enumerate(rows) if all(v is None for v in r))
    return rows[blank + 1 :]


def test_pair_exports_csv_xlsx_and_the_per_player_file_agree(admin_client, graded):
    params = {
        "event": "Charity Pairs",
        "r1p1": "1001",
        "r1p2": "1002",
        "r2p1": "1004",
        "r2p2": PRIVATE,
        "r2e2": "51.25",
        "r3p1": "1017",
        "r3p2": "1006",
    }
    csv_rows = read_csv(
        admin_client.get(table_url(graded, "handicaps-export", "csv"), params).content
    )
    response = admin_client.get(table_url(graded, "handicaps-export", "xlsx"), params)
    assert "charity-pairs" in response["Content-Disposition"]
    xlsx_rows = table_rows(load_workbook(io.BytesIO(response.content)).active)
    assert xlsx_rows[0] == csv_rows[0]
    assert csv_rows[0][-2:] == ["average_grade", "handicap_percent"]
    assert len(csv_rows) == len(xlsx_rows) == 4
    for text_row, cell_row in zip(csv_rows[1:], xlsx_rows[1:], strict=True):
        for text, value in zip(text_row, cell_row, strict=True):
            assert (value is None and text == "") or str(value) == text or float(text) == value
    by_entry = {row[0]: row for row in csv_rows[1:]}
    assert float(by_entry["1"][-1]) == pytest.approx(
        50 - (shown("1001") + shown("1002")) / 2, abs=0.005 + 1e-9
    )
    assert by_entry["2"][8] == "51.25" and by_entry["2"][9] == "estimate"  # player 2
    assert by_entry["3"][4] == "" and by_entry["3"][5] == "estimate needed"
    assert by_entry["3"][-1] == ""

    own = read_csv(admin_client.get(table_url(graded, "handicaps-export", "own")).content)
    by_number = {row[0]: row for row in own[1:]}
    for n in ("1001", "1002", "1004", "1006"):
        assert by_number[n] == [n, "Player", n, f"{50 - shown(n):.2f}"]
    assert PRIVATE not in by_number and "1017" not in by_number


def test_team_exports_hold_team_and_match_sheets(admin_client, graded):
    params = {
        "kind": "teams",
        "boards": "24",
        "r1name": "Aces",
        "r1p1": "1001",
        "r1p2": "1002",
        "r1p3": "1004",
        "r1p4": "1005",
        "r2name": "Guests",
        "r2p1": "Ann",
        "r2p2": "Bob",
        "r2p3": "Cy",
        "r2p4": "Di",
        "r2e1": "45",
        "r2e2": "45",
        "r2e3": "45",
        "r2e4": "45",
    }
    aces, guests = admin_client.get(table_url(graded), params).context["lines"]
    average = (shown("1001") + shown("1002") + shown("1004") + shown("1005")) / 4
    assert aces.handicap == pytest.approx(FACTOR * 24 * (50 - average), abs=0.005 + 1e-9)
    assert guests.handicap_whole == 37
    csv_rows = read_csv(
        admin_client.get(table_url(graded, "handicaps-export", "csv"), params).content
    )
    assert csv_rows[0][-4:] == ["average_grade", "boards", "handicap_imps", "handicap_imps_rounded"]
    assert csv_rows[2][-2:] == [f"{FACTOR * 120:.2f}", "37"]
    book = load_workbook(
        io.BytesIO(admin_client.get(table_url(graded, "handicaps-export", "xlsx"), params).content)
    )
    assert book.sheetnames == ["Teams", "Matches"]
    teams = table_rows(book["Teams"])
    assert teams[2][-2:] == [round(FACTOR * 120, 2), 37]
    matches = table_rows(book["Matches"])
    assert matches[1][0] == "Guests" if average < 45 else matches[1][0] == "Aces"
    assert matches[1][5] == pytest.approx(round(FACTOR * 24 * abs(average - 45), 2))


def test_print_page_is_printable(admin_client, graded):
    response = admin_client.get(
        table_url(graded, "handicaps-print"),
        {"event": "Charity Pairs", "r1p1": "1001", "r1p2": "1002"},
    )
    html = response.content.decode()
    assert "<h1>Charity Pairs</h1>" in html and "clubs.css" in html
    # A print button (handled by static/js/site.js: no inline script under the CSP).
    assert 'class="nav"' not in html and "data-print" in html and "js/site.js" in html


def test_planned_session_gives_the_title_and_kind(admin_client, graded):
    import datetime as dt

    from django.utils import timezone

    from clubs.services import planned_session_create

    planned = planned_session_create(
        club=graded,
        event_name="Swiss Teams",
        date=timezone.localdate() + dt.timedelta(days=3),
        start=dt.time(10, 0),
        scoring="SWISS_TEAMS",
    )
    response = admin_client.get(table_url(graded), {"planned": planned.pk})
    assert response.context["table"].kind == TEAMS
    assert response.context["table"].title.startswith("Swiss Teams, ")
    assert response.context["table"].kind != PAIRS


def test_handicap_page_queries_do_not_grow_with_entries(
    admin_client, graded, django_assert_max_num_queries
):
    params = {f"r{i}p{j}": str(1000 + 2 * (i - 1) + j) for i in range(1, 9) for j in (1, 2)}
    params["r8p2"] = "Player 1016"  # by name: one more query, whatever the number of names
    with django_assert_max_num_queries(10):
        response = admin_client.get(table_url(graded), params)
    assert len(response.context["table"].entries) == 8


def test_member_autocomplete_gives_names_and_numbers_only(admin_client, graded):
    url = reverse("clubs-api:member-search", args=[graded.slug])
    results = admin_client.get(url, {"q": "player 100"}).json()["results"]
    assert len(results) == 9  # 1001 ... 1009
    assert set(results[0]) == {"national_number", "name", "label"}
    assert results[0]["label"] == f"{results[0]['name']} ({results[0]['national_number']})"
    assert admin_client.get(url, {"q": "1017"}).json()["results"][0]["national_number"] == "1017"
    assert admin_client.get(url, {"q": "p"}).json()["results"] == []
    Member.objects.create(national_number="777", name="A Visitor")  # not in the club
    assert [m["name"] for m in admin_client.get(url, {"q": "777"}).json()["results"]] == [
        "A Visitor"
    ]
    assert admin_client.get(url, {"q": "Visitor"}).json()["results"] == []
