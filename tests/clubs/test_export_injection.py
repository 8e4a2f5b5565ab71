"""No spreadsheet formula comes out of an export (OWASP CSV injection). A name
from an upload (S14.2: a new number takes the file's name) or typed into the handicap form
is text in every export; negative numbers stay numbers (S8 handicaps, S7 grade list)."""

import csv
import io
import zipfile

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from grading.models import CurrentGrade
from members.models import Member

NAMES = {
    "1001": '=HYPERLINK("http://evil.example","Click")',
    "1002": "+1+2",
    "1004": "-2+3",
    "1005": "@SUM(A1:A9)",
    "1006": "\t=1+1",
    "1007": "\r=1+1",
}


@pytest.fixture
def hostile(graded):
    for number, name in NAMES.items():
        Member.objects.filter(national_number=number).update(name=name)
    # Above 50: a negative handicap, which must stay a number.
    CurrentGrade.objects.filter(member__national_number="1001").update(grade=53.33)
    return graded


def read_csv(content: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(content.decode(), newline="")))


def xlsx_cells(content: bytes, sheet=None):
    """The sheet's table from its header on (a handicap sheet starts with the event and date)."""
    book = load_workbook(io.BytesIO(content))
    rows = [list(row) for row in (book[sheet] if sheet else book.active).iter_rows()]
    blank = next((i for i, r in enumerate(rows) if all(c.value is None for c in r)), -1)
    return rows[blank + 1 :]


def no_formula_in(content: bytes) -> bool:
    """No ``<f>`` element in any sheet of the workbook: nothing a spreadsheet would evaluate."""
    with zipfile.ZipFile(io.BytesIO(content)) as book:
        return not any(
            b"<f>" in book.read(name) or b"<f " in book.read(name)
            for name in book.namelist()
            if name.startswith("xl/worksheets/")
        )


def test_grade_list_csv_neutralises_formula_names_and_keeps_negative_numbers(admin_client, hostile):
    rows = read_csv(
        admin_client.get(reverse("clubs:grades-export", args=[hostile.slug, "csv"])).content
    )
    by_number = {row[0]: row for row in rows[1:]}
    for number, name in NAMES.items():
        assert by_number[number][1] == "'" + name, number
    negatives = [row for row in rows[1:] if row[4].startswith("-")]
    assert [row[0] for row in negatives] == ["1001"]
    for row in negatives:
        assert float(row[4]) < 0 and float(row[5]) < 0  # numbers, not "'-..." text
    assert all(not row[1].startswith(("=", "+", "-", "@", "\t", "\r")) for row in rows[1:])


def test_grade_list_xlsx_writes_names_as_text_and_numbers_as_numbers(admin_client, hostile):
    content = admin_client.get(reverse("clubs:grades-export", args=[hostile.slug, "xlsx"])).content
    assert no_formula_in(content)
    rows = {row[0].value: row for row in xlsx_cells(content)[1:]}
    for number, name in NAMES.items():
        cell = rows[number][1]
        # (an XML reader reads a carriage return back as a line feed: still text)
        assert cell.data_type == "s" and cell.value.replace("\n", "\r") == name.replace(
            "\n", "\r"
        ), number
    negatives = [
        row for row in rows.values() if isinstance(row[4].value, float) and row[4].value < 0
    ]
    assert negatives
    for row in negatives:
        assert row[4].data_type == "n" and row[5].data_type == "n"


HANDICAPS = {
    "kind": "teams",
    "boards": "24",
    "r1name": "=1+1",
    "r1p1": "1001",
    "r1p2": "1002",
    "r1p3": "1004",
    "r1p4": "1005",
    "r2name": "@Guests",
    "r2p1": "-Ann",
    "r2p2": "+Bob",
    "r2p3": "=Cy",
    "r2p4": "Di",
    "r2e1": "58",
    "r2e2": "58",
    "r2e3": "58",
    "r2e4": "58",
}


def test_handicap_csv_neutralises_typed_and_uploaded_text(admin_client, hostile):
    url = reverse("clubs:handicaps-export", args=[hostile.slug, "csv"])
    header, *rows = read_csv(admin_client.get(url, HANDICAPS).content)
    first, second = rows
    assert first[1] == "'=1+1" and second[1] == "'@Guests"
    assert first[3] == "'" + NAMES["1001"] and first[7] == "'+1+2"
    assert [second[i] for i in (3, 7, 11, 15)] == ["'-Ann", "'+Bob", "'=Cy", "Di"]
    # Guests average 58: a negative handicap, written as a number.
    assert second[header.index("handicap_imps")].startswith("-")
    assert float(second[header.index("handicap_imps")]) < 0
    assert int(second[header.index("handicap_imps_rounded")]) < 0


def test_handicap_xlsx_writes_text_cells_and_numeric_cells(admin_client, hostile):
    url = reverse("clubs:handicaps-export", args=[hostile.slug, "xlsx"])
    content = admin_client.get(url, HANDICAPS).content
    assert no_formula_in(content)
    header, *rows = xlsx_cells(content, "Teams")
    names = [c.value for c in header]
    first, second = rows
    assert (first[1].value, first[1].data_type) == ("=1+1", "s")
    assert (first[3].value, first[3].data_type) == (NAMES["1001"], "s")
    assert (second[3].value, second[3].data_type) == ("-Ann", "s")
    imps = second[names.index("handicap_imps")]
    assert imps.data_type == "n" and imps.value < 0
    (match,) = xlsx_cells(content, "Matches")[1:]
    assert {match[0].value, match[2].value} == {"=1+1", "@Guests"}
    assert match[0].data_type == match[2].data_type == "s"


def test_per_player_file_and_pairs_export(admin_client, hostile):
    params = {"r1p1": "1001", "r1p2": "1002", "r2p1": "=Visitor", "r2p2": "1004", "r2e1": "60"}
    rows = read_csv(
        admin_client.get(
            reverse("clubs:handicaps-export", args=[hostile.slug, "csv"]), params
        ).content
    )
    assert rows[2][3] == "'=Visitor"
    assert rows[1][3] == "'" + NAMES["1001"]
    for fmt in ("ebuscore", "scorebridge", "own"):
        header, *rows = read_csv(
            admin_client.get(reverse("clubs:handicaps-export", args=[hostile.slug, fmt])).content
        )
        assert header == ["membership_number", "first_name", "surname", "handicap"]
        by_number = {row[0]: row for row in rows}
        for number in ("1001", "1002", "1004", "1005", "1006", "1007"):
            first, surname = by_number[number][1:3]
            for text in (first, surname):
                assert not text.startswith(("=", "+", "-", "@", "\t", "\r")), (fmt, number)
            float(by_number[number][3])  # a number, never quoted text
        assert by_number["1002"][2] == "'+1+2" and by_number["1004"][2] == "'-2+3"
    # 1001's grade 53.33 is above 50: negative in this site's own file, as a number
    own = read_csv(
        admin_client.get(reverse("clubs:handicaps-export", args=[hostile.slug, "own"])).content
    )
    assert {row[0]: row[3] for row in own}["1001"] == "-3.33"
