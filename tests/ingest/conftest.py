from __future__ import annotations

from pathlib import Path

import pytest

from grading.ingest import ParseResult, parse_file

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def fixture_bytes(relative: str) -> bytes:
    return (FIXTURES / relative).read_bytes()


def parse_fixture(relative: str, club: str = "test-club") -> ParseResult:
    return parse_file(Path(relative).name, fixture_bytes(relative), club)


@pytest.fixture
def parse():
    return parse_fixture
