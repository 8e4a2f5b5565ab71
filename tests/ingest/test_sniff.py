"""Refusals that say what the file is (issue 29 item 4; S12: where and what, and what to do):
a scoring program's database, an image, a document, another program's CSV, a ranking with no
pair numbers. Each is named and the administrator is told what to send instead."""

from __future__ import annotations

import pytest

from grading.ingest import parse_file
from grading.ingest.sniff import foreign_text, sniff_binary

# The first bytes of a Bridgemate .bws (a Jet 4 database) and of an Access 2007+ file: the
# page header (0x00 0x01 0x00 0x00), then the engine's name, then a page of NULs.
JET = b"\x00\x01\x00\x00Standard Jet DB\x00\x01\x00\x00\x00" + b"\x00" * 2000
ACE = b"\x00\x01\x00\x00Standard ACE DB\x00\x02\x00\x00\x00" + b"\x00" * 2000
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * 200
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 200
GIF = b"GIF89a\x10\x00\x10\x00" + b"\x00" * 100
PDF = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n"
XLSX = b"PK\x03\x04\x14\x00\x06\x00" + b"[Content_Types].xml xl/workbook.xml" + b"\x00" * 50


def _refusal(name: str, data: bytes):
    result = parse_file(name, data, "club")
    assert not result.ok and result.sessions == ()
    (problem,) = result.problems  # one refusal, not "line 1 contains a NUL byte"
    assert "NUL" not in problem.message
    return problem


@pytest.mark.parametrize("data", [JET, ACE])
def test_a_bridgemate_database_is_named_and_the_usebio_file_asked_for(data):
    problem = _refusal("club-night.bws", data)
    assert problem.code == "scoring-database"
    assert "Bridgemate scoring database" in problem.message
    assert "USEBIO XML" in problem.message
    # another Access file, by its content alone
    other = _refusal("results.mdb", data)
    assert "Microsoft Access database" in other.message


@pytest.mark.parametrize(
    "name, data, what",
    [
        ("photo.png", PNG, "a PNG image"),
        ("photo.jpg", JPEG, "a JPEG image"),
        ("scan.gif", GIF, "a GIF image"),
    ],
)
def test_an_image_is_named_as_an_image(name, data, what):
    problem = _refusal(name, data)
    assert problem.code == "image"
    assert what in problem.message and "picture" in problem.message


def test_documents_and_archives_are_named():
    assert _refusal("sheet.pdf", PDF).code == "document"
    xlsx = _refusal("results.xlsx", XLSX)
    assert xlsx.code == "archive" and "Excel workbook" in xlsx.message
    assert "CSV UTF-8" in xlsx.message


def test_another_programs_csv_is_named_as_not_the_products_format():
    data = b"PairNumber,Name,ABF No,Initial Seating,Phone\n1,Ann Smith,123,1-NS,\n"
    problem = _refusal("players.csv", data)
    assert problem.code == "foreign-csv"
    assert "not the product's CSV format" in problem.message
    assert "PairNumber,Name,ABF No" in problem.message
    bridgewebs = _refusal("bw.csv", b"#VERSION,EBUScore\r#DATE,12/02/2026\r#SCORES\r")
    assert "BridgeWebs" in bridgewebs.message and "membership numbers" in bridgewebs.message


def test_a_ranking_with_no_pair_numbers_says_so():
    data = b"Pos;Names;Score %\n1;Ann Smith & Bob Jones;61.2\n2;Cy Dee & Di Eve;55.0\n"
    problem = _refusal("ranking.csv", data)
    assert problem.code == "ranking-no-pairs"
    assert "no pair numbers" in problem.message


def test_a_pbn_ranking_with_no_pair_numbers_says_so():
    data = (
        b'% PBN 2.1\n[Event "Club"]\n[Date "2026.02.12"]\n[Board "1"]\n[Scoring "MP"]\n'
        b'[TotalScoreTable "Rank\\2R;Names\\30L;TotalPercentage\\5R"]\n'
        b' 1 "Ann Smith - Bob Jones" 61.20\n 2 "Cy Dee - Di Eve" 38.80\n'
    )
    result = parse_file("r.pbn", data, "club")
    assert any(p.code == "pbn-columns" and "no pair numbers" in p.message for p in result.problems)


def test_text_that_is_not_a_table_is_left_to_the_readers():
    assert foreign_text("a.txt", "hello world") is None
    assert sniff_binary("a.xml", b"<?xml version='1.0'?><USEBIO/>") is None
    # "BM" starting a text file is not a bitmap
    assert sniff_binary("bm.txt", b"BM Club results\n") is None


def test_a_damaged_text_file_still_gets_the_nul_byte_message():
    result = parse_file("x.csv", b"event_id,a\n1,2\n3\x004\n", "club")
    assert [p.code for p in result.problems] == ["nul-byte"]
