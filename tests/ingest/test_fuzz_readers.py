"""Every reader fuzzed with the real samples as seeds (issue 20 item 7): USEBIO, PBN, the CSV
and the pasted traveller. No exception escapes, and every refusal says where and what in a
scorer's words (S12): a location, a sentence, no section numbers, no Python in it.

Seeds are every file under tests/fixtures (copies of the shared samples, SOURCES.md, and the
files written for the tests). Besides byte damage, the mutations put awkward values (empty,
huge, negative, ancient dates, 300 characters, stray markup) into the fields themselves, which
reaches the readers' checks rather than stopping at the XML or CSV syntax."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from grading.ingest import ParseResult, parse_file
from grading.ingest.problems import Problem
from grading.ingest.traveller_paste import parse_traveller_text

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _seeds(*suffixes: str, limit: int = 130_000) -> list[bytes]:
    """The fixtures ending with ``suffixes``; the largest are cut to ``limit`` bytes (the
    readers see a truncated file, itself a case) to keep each example fast."""
    files = sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.name.endswith(suffixes))
    return [p.read_bytes()[:limit] for p in files]


XML_SEEDS = _seeds(".xml")
PBN_SEEDS = _seeds(".pbn", limit=40_000)
CSV_SEEDS = _seeds(".csv")

AWKWARD = [
    b"",
    b" ",
    b"0",
    b"-1",
    b"+7",
    b"99999999999",
    b"1e309",
    b"NaN",
    b"3.5.6",
    b"A5050",
    b"A9999",
    b"01/01/0001",
    b"0999-01-01",
    b"31/02/2025",
    b"1900.01.01",
    b"9999-12-31",
    b"X" * 300,
    "\u00e9\u202e\u0301".encode(),
    b"&amp;",
    b"NS",
    b"EW",
    b"PHANTOM",
    # issue 29: adjusted results, relative tricks, bye lines, cross-IMP modifiers
    b"A+",
    b"A-",
    b"A",
    b"AVE+",
    b"A4050",
    b"^A60",
    b"=",
    b"+1",
    b"-2",
    b"-",
    b"BYE",
    b"IMP;Cross",
    b"IMP;Cross1",
]
CITATION = re.compile(r"\bS\d+(\.\d+)?\b|\bFORMATS\b|\bFAQ \d")
PYTHON = re.compile(r"Traceback|NoneType|object at 0x|Error\(|\bdict\b|\bNone\b|<class ")


def _damaged(data: bytearray, draw) -> None:
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["flip", "delete", "insert", "truncate", "duplicate"]))
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        if kind == "flip" and data:
            data[at] = draw(st.integers(0, 255))
        elif kind == "delete":
            del data[at : at + draw(st.integers(1, 200))]
        elif kind == "insert":
            data[at:at] = draw(st.sampled_from([b"<", b">", b"&", b'"', b",", b"\n", b"\x00"]))
        elif kind == "truncate":
            del data[at:]
        else:
            data[at:at] = data[at : min(len(data), at + draw(st.integers(1, 400)))]


def _fields(pattern: bytes):
    """A strategy: a seed with some field values (``pattern``'s group 1) made awkward, then
    perhaps damaged."""

    @st.composite
    def build(draw, seeds: list[bytes]) -> bytes:
        data = bytearray(draw(st.sampled_from(seeds)))
        spans = [m.span(1) for m in re.finditer(pattern, bytes(data))]
        if spans:
            for _ in range(draw(st.integers(1, 4))):
                start, end = draw(st.sampled_from(spans))
                if end <= len(data):
                    data[start:end] = draw(st.sampled_from(AWKWARD))
                    spans = [m.span(1) for m in re.finditer(pattern, bytes(data))] or spans
        _damaged(data, draw)
        return bytes(data)

    return build


XML_FIELDS = _fields(rb">([^<>]{1,40})</")
PBN_FIELDS = _fields(rb'"([^"\n]{0,40})"|\n([^\[%\n][^\n]{0,30})')
CSV_FIELDS = _fields(rb",([^,\n]{0,40})")


def _assert_scorer_worded(result: ParseResult) -> None:
    assert not [p for p in result.problems if p.code == "internal-error"], result.problems
    assert result.ok == (not result.problems)
    if result.problems:
        assert result.sessions == ()
    for problem in result.problems + result.warnings:
        _assert_located_and_worded(problem)


def _assert_located_and_worded(problem: Problem, source: str = "") -> None:
    """A problem says where and what in a scorer's words; the scorer's own text quoted back
    (``source``: a line that reads "None" is not Python showing through) is left out of the
    check for Python's words."""
    assert problem.location.strip(), problem
    message = problem.message
    assert message[:1].isalnum() or message[:1] in "\"'<", problem
    assert message.rstrip().endswith((".", ")", '"')), problem
    assert not CITATION.search(message), problem
    own = re.sub(r"'([^']*)'", lambda m: "''" if m.group(1) in source else m.group(0), message)
    assert not PYTHON.search(own), problem
    assert len(message) < 1500, problem


_FUZZ = settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@_FUZZ
@given(XML_FIELDS(XML_SEEDS))
def test_usebio_reader(data):
    _assert_scorer_worded(parse_file("fuzz.xml", data, "club"))


@_FUZZ
@given(PBN_FIELDS(PBN_SEEDS))
def test_pbn_reader(data):
    _assert_scorer_worded(parse_file("fuzz.pbn", data, "club"))


@_FUZZ
@given(CSV_FIELDS(CSV_SEEDS))
def test_csv_reader(data):
    _assert_scorer_worded(parse_file("fuzz.csv", data, "club"))


TRAVELLER = "1 8 420\n2,7,-400,-690\n3\t6\tA60\n4 5 AVE+ AVE\n5 4 -50\n"


@_FUZZ
@given(
    st.one_of(
        st.text(max_size=300),
        st.lists(
            st.sampled_from(TRAVELLER.split() + ["\n", ",", "A", "-", "9" * 12]), max_size=60
        ).map(" ".join),
    ),
    st.integers(-5, 40),
)
@example("None", 1)  # found by the fuzzer: the scorer's own "None" quoted back
def test_pasted_traveller_reader(text, board):
    lines, problems = parse_traveller_text(text, board)
    for problem in problems:
        _assert_located_and_worded(problem, text)
    if problems:
        assert all(line.board == board for line in lines)


FIDELITY_PBN = [p.read_bytes() for p in sorted((FIXTURES / "fidelity").glob("*.pbn"))]


@_FUZZ
@given(
    st.sampled_from(FIDELITY_PBN),
    st.sampled_from(["IMP;Cross", "IMP;Cross1", "IMP;Cross2", "IMP;Butler", "MatchPoints"]),
    st.sampled_from(["1", "2", "3", "", "x"]),
    st.lists(st.sampled_from([b"0", b"1", b"2", b"4", b"8", b"99", b"-3", b"?"]), max_size=6),
)
def test_pbn_reader_on_other_programs_totals(data, scoring, session, board_counts):
    """Issue 29 item 3: the shapes of other programs' totals (running totals and a session
    number, summed cross-IMPs, byes, adjusted lines) with the scoring, the session and the
    board counts changed: no internal error, every refusal worded, every reading possible."""
    data = re.sub(rb'\[Scoring "[^"]*"\]', f'[Scoring "{scoring}"]'.encode(), data)
    data = re.sub(rb"crsession content=\"[^\"]*\"", f'crsession content="{session}"'.encode(), data)
    for count in board_counts:  # a ranking line's NrBoards (its last field)
        data = re.sub(rb"( [-0-9.]+) +(\d+)\n", rb"\1 " + count + rb"\n", data, count=1)
    result = parse_file("fuzz.pbn", data, "club")
    _assert_scorer_worded(result)
    for session_result in result.sessions:
        for pair in session_result.pairs:
            assert pair.boards is None or pair.boards >= 0


_MAGIC = [
    b"\x00\x01\x00\x00Standard Jet DB\x00",
    b"\x00\x01\x00\x00Standard ACE DB\x00",
    b"\x89PNG\r\n\x1a\n",
    b"\xff\xd8\xff\xe0",
    b"GIF89a",
    b"%PDF-1.4\n",
    b"PK\x03\x04",
    b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
    b"SQLite format 3\x00",
]


@_FUZZ
@given(st.sampled_from(_MAGIC), st.binary(max_size=400), st.sampled_from(["a.bws", "b.png", ""]))
def test_files_that_are_not_results_are_named(magic, rest, name):
    """Issue 29 item 4: a database, an image, a document or an archive is refused with one
    problem that says what the file is, whatever follows its first bytes."""
    result = parse_file(name, magic + rest, "club")
    _assert_scorer_worded(result)
    (problem,) = result.problems
    assert problem.code in {"scoring-database", "image", "document", "archive"}


def test_every_seed_reads_as_the_samples_tests_expect_it_to():
    """The seeds themselves: no internal error, and the refusals worded (the samples tests
    check what each one holds)."""
    for data in XML_SEEDS + PBN_SEEDS + CSV_SEEDS:
        _assert_scorer_worded(parse_file("seed", data, "club"))
