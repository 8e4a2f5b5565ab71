"""The club grade list and its exports (S7, S8, S13), and the band distribution (S7)."""

import csv
import io

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from grading.models import CurrentGrade
from members.models import Member

PRIVATE, PROVISIONAL = "1003", ("1017", "1018")


def published(club):
    """Independently: {number: grade to 2 decimals} of the club's public, non-provisional
    members."""
    return {
        g.member.national_number: round(g.grade, 2)
        for g in CurrentGrade.objects.filter(
            member__club_roles__club=club, member__grade_private=False, status__in="EMO"
        ).select_related("member")
    }


def test_list_shows_published_grades_and_withholds_the_rest(admin_client, graded):
    rows = {
        r.number: r
        for r in admin_client.get(reverse("clubs:grades", args=[graded.slug])).context["rows"]
    }
    expected = published(graded)
    assert len(expected) == 15  # 16 regulars, one of them private
    for number, grade in expected.items():
        assert rows[number].grade == grade
        assert rows[number].band == CurrentGrade.objects.get(member__national_number=number).band
    assert rows[PRIVATE].grade is None and rows[PRIVATE].withheld == "Private"
    for number in PROVISIONAL:
        assert rows[number].grade is None and rows[number].withheld == "Provisional"


@pytest.fixture
def secrets(graded):
    """The private and provisional grades made recognisable: 66.66 and 31.11."""
    CurrentGrade.objects.filter(member__national_number=PRIVATE).update(grade=66.661)
    CurrentGrade.objects.filter(member__national_number__in=PROVISIONAL).update(grade=31.111)
    return ("66.66", "31.11", "-16.66", "18.89")  # and the handicaps they would give


def test_no_private_or_provisional_grade_reaches_the_page_or_exports(admin_client, graded, secrets):
    html = admin_client.get(reverse("clubs:grades", args=[graded.slug])).content.decode()
    csv_text = admin_client.get(reverse("clubs:grades-export", args=[graded.slug, "csv"]))
    xlsx = read_xlsx(
        admin_client.get(reverse("clubs:grades-export", args=[graded.slug, "xlsx"])).content
    )
    xlsx_text = repr(xlsx)
    for secret in secrets:
        assert secret not in html
        assert secret not in csv_text.content.decode()
        assert secret not in xlsx_text and float(secret) not in [v for r in xlsx for v in r]
    row = html[html.index(">1003<") :]
    assert "Private" in row[: row.index("</tr>")]


def test_sorting_by_grade_puts_withheld_grades_last_whatever_they_are(admin_client, graded):
    # Make the private member the strongest: sorting must not reveal it by their place.
    CurrentGrade.objects.filter(member__national_number=PRIVATE).update(grade=70.0)
    url = reverse("clubs:grades", args=[graded.slug])
    for sort in ("-grade", "grade"):
        rows = admin_client.get(url, {"sort": sort}).context["rows"]
        grades = [r.grade for r in rows if r.grade is not None]
        assert grades == sorted(grades, reverse=sort.startswith("-"))
        assert all(r.grade is None for r in rows[len(grades) :])


def test_search_by_name_or_number(admin_client, graded):
    url = reverse("clubs:grades", args=[graded.slug])
    assert [r.number for r in admin_client.get(url, {"q": "1012"}).context["rows"]] == ["1012"]
    Member.objects.filter(national_number="1005").update(name="Gwendolyn Fairfax")
    assert [r.number for r in admin_client.get(url, {"q": "fairf"}).context["rows"]] == ["1005"]


def read_csv(content: bytes):
    return list(csv.reader(io.StringIO(content.decode())))


def read_xlsx(content: bytes):
    sheet = load_workbook(io.BytesIO(content)).active
    return [list(row) for row in sheet.iter_rows(values_only=True)]


def test_exports_have_scoring_program_columns_and_no_withheld_grade(admin_client, graded):
    csv_rows = read_csv(
        admin_client.get(reverse("clubs:grades-export", args=[graded.slug, "csv"])).content
    )
    assert csv_rows[0] == [
        "national_number",
        "name",
        "grade",
        "band",
        "handicap_100",
        "handicap_50",
        "status",
    ]
    by_number = {row[0]: row for row in csv_rows[1:]}
    for number, grade in published(graded).items():
        row = by_number[number]
        assert float(row[2]) == grade
        assert float(row[4]) == pytest.approx(50 - grade, abs=1e-9)
        assert abs(float(row[5]) - (50 - grade) / 2) <= 0.005 + 1e-9
        assert row[6] in {"Evolving", "Mature", "Out of date"}
    # Issue 30: the rows the page shows, a withheld grade saying why, as on the page.
    assert by_number[PRIVATE][2:] == ["", "", "", "", "Private"]
    for number in PROVISIONAL:
        assert by_number[number][2:] == ["", "", "", "", "Provisional"]
        assert by_number[number][1]  # the member is listed, by name, without a grade
    page = admin_client.get(reverse("clubs:grades", args=[graded.slug])).context["rows"]
    assert [[r.number, r.list_status] for r in page] == [[r[0], r[6]] for r in csv_rows[1:]]


def test_xlsx_holds_the_same_numbers_as_the_csv(admin_client, graded):
    args = [graded.slug]
    csv_rows = read_csv(
        admin_client.get(reverse("clubs:grades-export", args=[*args, "csv"])).content
    )
    response = admin_client.get(reverse("clubs:grades-export", args=[*args, "xlsx"]))
    assert response["Content-Type"].startswith("application/vnd.openxmlformats")
    xlsx_rows = read_xlsx(response.content)
    assert xlsx_rows[0] == csv_rows[0]
    assert (
        len(xlsx_rows)
        == len(csv_rows)
        == 1 + Member.objects.filter(club_roles__club=graded).count()
    )
    for from_csv, from_xlsx in zip(csv_rows[1:], xlsx_rows[1:], strict=True):
        assert from_xlsx[0] == from_csv[0] and from_xlsx[1] == from_csv[1]
        for text, value in zip(from_csv[2:], from_xlsx[2:], strict=True):
            if text == "":
                assert value is None
            elif isinstance(value, float):
                assert float(text) == value
            else:
                assert text == value


def test_grade_list_queries_do_not_grow_with_members(
    admin_client, graded, django_assert_max_num_queries
):
    url = reverse("clubs:grades", args=[graded.slug])
    with django_assert_max_num_queries(8):
        admin_client.get(url, {"sort": "-grade"})
    with django_assert_max_num_queries(6):
        admin_client.get(reverse("clubs:grades-export", args=[graded.slug, "csv"]))


# ------------------------------------------------------------------------- band distribution


def test_band_counts_suppress_small_groups_and_keep_private_apart(admin_client, graded):
    from collections import Counter

    dist = admin_client.get(reverse("clubs:bands", args=[graded.slug])).context["distribution"]
    public = Counter(
        CurrentGrade.objects.filter(member__grade_private=False, status__in="EMO").values_list(
            "band", flat=True
        )
    )
    assert dist.club_total == dist.national_total == sum(public.values()) == 15
    rows = {row.band: row for row in dist.rows}
    assert len(rows) == 16
    for band, row in rows.items():
        count = public.get(band, 0)
        if 0 < count < 5:
            assert row.club is None and row.club_share is None
        else:
            assert row.club == count
            assert row.club_share == pytest.approx(100 * count / 15 if count else 0)
    assert any(row.club is None for row in dist.rows)  # the data has small groups
    assert any(row.club for row in dist.rows)  # and a group of 5 or more
    assert dist.club_private is None  # one private grade: fewer than 5, not shown
    assert (
        "band-chart"
        in admin_client.get(reverse("clubs:bands", args=[graded.slug])).content.decode()
    )


def test_national_distribution_counts_every_club(
    admin_client, graded, other_club, django_capture_on_commit_callbacks
):
    from tests.clubs.data import upload_all

    upload_all(other_club, django_capture_on_commit_callbacks, offset=1000)  # 2001, 2002, ...
    dist = admin_client.get(reverse("clubs:bands", args=[graded.slug])).context["distribution"]
    assert dist.club_total == 15
    national = CurrentGrade.objects.filter(member__grade_private=False, status__in="EMO")
    assert dist.national_total == national.count() == 31  # 15 here, 16 at the other club
    for row in dist.rows:
        count = national.filter(band=row.band).count()
        assert row.national == (None if 0 < count < 5 else count)


def test_band_page_queries(admin_client, graded, django_assert_max_num_queries):
    with django_assert_max_num_queries(10):
        admin_client.get(reverse("clubs:bands", args=[graded.slug]))
