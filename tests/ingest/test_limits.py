"""What the database can hold, checked when a file is read (issue 21 items 1 and 4): the
earliest date of play, and every length against its column; refused with the place, nothing
stored (S12: all or nothing)."""

from __future__ import annotations

import datetime as dt

import pytest

from clubs.models import Club
from grading.ingest import limits, parse_file
from grading.models import Event, PairResult, SessionVersion, TravellerLine
from members.models import Member
from tests.ingest import usebio_builder as ub
from tests.ingest.conftest import fixture_bytes

PBN = fixture_bytes("pbn/ruter_norway/pairs.pbn")
CSV = fixture_bytes("malformed/good.csv")
USEBIO = fixture_bytes("handmade/usebio-1.3-host-phantom.xml")


def _length(model, field: str) -> int:
    return model._meta.get_field(field).max_length


def test_the_lengths_are_the_models_lengths():
    """The parsers may not import the models: this is what keeps their copy honest."""
    assert limits.EVENT_ID_LENGTH == _length(Event, "event_id")
    assert limits.EVENT_NAME_LENGTH == _length(Event, "name")
    assert limits.REASON_LENGTH == _length(SessionVersion, "not_graded_reason")
    assert limits.PAIR_ID_LENGTH == _length(PairResult, "pair_id")
    assert limits.PAIR_ID_LENGTH == _length(TravellerLine, "ns_pair")
    assert limits.PAIR_ID_LENGTH == _length(TravellerLine, "ew_pair")
    assert limits.SECTION_LENGTH == _length(PairResult, "section")
    assert limits.TEAM_LENGTH == _length(PairResult, "team")
    assert limits.PLAYER_NAME_LENGTH == _length(PairResult, "player1_name")
    assert limits.PLAYER_NAME_LENGTH == _length(PairResult, "player2_name")
    assert limits.PLAYER_NAME_LENGTH == _length(Member, "name")
    assert limits.MEMBER_NUMBER_LENGTH == _length(Member, "national_number")
    assert limits.CLUB_NAME_LENGTH == _length(Club, "name")
    assert limits.CLUB_NUMBER_LENGTH == _length(Club, "national_number")
    assert limits.CONTRACT_LENGTH == _length(TravellerLine, "contract")
    assert limits.DECLARER_LENGTH == _length(TravellerLine, "declarer")
    assert limits.LEAD_LENGTH == _length(TravellerLine, "lead")
    assert limits.ADJUSTED_LENGTH == _length(TravellerLine, "ns_adjusted")
    assert limits.ADJUSTED_LENGTH == _length(TravellerLine, "ew_adjusted")


def test_the_setting_defaults_to_the_parsers_default():
    from django.conf import settings as django_settings

    assert django_settings.EARLIEST_PLAY_DATE == limits.EARLIEST_PLAY_DATE == dt.date(2000, 1, 1)


# ---- dates -------------------------------------------------------------------------------


def _usebio_dated(written: str) -> bytes:
    return USEBIO.replace(b"<DATE>2026-01-05</DATE>", f"<DATE>{written}</DATE>".encode())


def _csv_dated(written: str) -> bytes:
    return CSV.replace(b"2026-11-16", written.encode())


def _pbn_dated(written: str) -> bytes:
    data = PBN
    for tag in (b"Date", b"EventDate"):
        data = data.replace(b"[" + tag + b' "2022.05.08"]', b"[" + tag + f' "{written}"]'.encode())
    return data.replace(b'content="2022-05-08">', b'content="">')


@pytest.mark.parametrize(
    "build, written, shown, location",
    [
        (_usebio_dated, "1999-12-31", "31/12/1999", "EVENT/DATE"),
        (_usebio_dated, "01/01/0001", "01/01/0001", "EVENT/DATE"),
        (_usebio_dated, "01/01/0999", "01/01/0999", "EVENT/DATE"),
        (_usebio_dated, "01/01/1900", "01/01/1900", "EVENT/DATE"),
        (_csv_dated, "0001-01-01", "01/01/0001", "line 2, column date"),
        (_csv_dated, "1900-06-30", "30/06/1900", "line 2, column date"),
        (_pbn_dated, "0999.01.01", "01/01/0999", "line 49"),
        (_pbn_dated, "1900.01.01", "01/01/1900", "line 49"),
    ],
)
def test_a_date_before_the_earliest_is_refused_naming_both(build, written, shown, location):
    result = parse_file("early", build(written), "club")
    assert result.sessions == ()
    problems = [p for p in result.problems if p.code == "date-too-early"]
    assert problems, result.problems
    assert problems[0].location == location
    assert shown in problems[0].message and "01/01/2000" in problems[0].message
    assert "S1" not in problems[0].message  # no SPEC citations in a scorer's messages


def test_a_session_date_inside_the_event_is_checked_too():
    body = (
        '<SESSION SESSION_ID="1"><DATE>02/02/1901</DATE><PARTICIPANTS>'
        + ub.pair(1, "60", ids=("11", "12"))
        + ub.pair(2, "40", ids=("13", "14"))
        + "</PARTICIPANTS></SESSION>"
    )
    result = parse_file("s.xml", ub.usebio(body), "club")
    (problem,) = [p for p in result.problems if p.code == "date-too-early"]
    assert problem.location == "EVENT/SESSION[1]/DATE" and "02/02/1901" in problem.message


def test_the_earliest_date_is_a_parameter_as_a_date_or_text():
    assert parse_file("ok.csv", _csv_dated("2005-05-05"), "club").ok
    for earliest in (dt.date(2010, 1, 1), "2010-01-01"):
        result = parse_file("early.csv", _csv_dated("2005-05-05"), "club", earliest=earliest)
        assert not result.ok and "01/01/2010" in result.problems[0].message
    assert parse_file("old.csv", _csv_dated("1990-05-05"), "club", earliest="1980-01-01").ok


@pytest.mark.parametrize(
    "build, written",
    [
        (_usebio_dated, "00/00/0000"),
        (_usebio_dated, "31/02/2025"),
        (_usebio_dated, "01/01/10000"),
        (_usebio_dated, "99999-01-01"),
        (_usebio_dated, "0000-01-01"),
        (_usebio_dated, "-1-01-01"),
        (_csv_dated, "2025-13-01"),
        (_csv_dated, "9999999999-01-01"),
        (_pbn_dated, "0000.00.00"),
        (_pbn_dated, "2025.02.30"),
    ],
)
def test_absurd_dates_are_refused_and_never_raise(build, written):
    result = parse_file("absurd", build(written), "club")
    assert result.sessions == ()
    assert [p for p in result.problems if p.code in ("date", "csv-row")], result.problems
    assert not [p for p in result.problems if p.code == "internal-error"]


# ---- lengths -----------------------------------------------------------------------------


def _two_pairs(first: str, **header) -> bytes:
    return ub.usebio(
        "<PARTICIPANTS>"
        + first
        + ub.pair(2, "40", ids=("13", "14"))
        + "</PARTICIPANTS>"
        + ub.board(1, ub.line(1, 2, "420", 1, 0)),
        **header,
    )


@pytest.mark.parametrize(
    "data, location, says",
    [
        (
            _two_pairs(ub.pair(1, "60", names=("N" * 5000, "B"), ids=("11", "12"))),
            "T, session of 05 Jan 2026, pair 1, player 1",
            '"NNNN',
        ),
        (
            _two_pairs(ub.pair("1" * 40, "60", ids=("11", "12"))),
            f"T, session of 05 Jan 2026, pair {'1' * 40}",
            "The pair number",
        ),
        (
            _two_pairs(ub.pair(1, "60", ids=("11", "12")), header="").replace(
                b"<EVENT_DESCRIPTION>T<", b"<EVENT_DESCRIPTION>" + b"E" * 300 + b"<"
            ),
            f'"{"E" * 40}..." (300 characters), session of 05 Jan 2026',
            "The event's name",
        ),
        (
            _two_pairs(ub.pair(1, "60", ids=("11", "12"))).replace(
                b"<CLUB_NAME>X<", b"<CLUB_NAME>" + b"C" * 201 + b"<"
            ),
            "the club",
            "The club's name",
        ),
        (
            _two_pairs(ub.pair(1, "60", ids=("11", "12"))).replace(
                b"</CONTRACT>", b"</CONTRACT><LEAD>Ace of spades</LEAD>"
            ),
            "T, session of 05 Jan 2026, board 1, pairs 1 and 2",
            "The opening lead",
        ),
    ],
)
def test_a_value_too_long_for_the_database_is_refused_saying_where(data, location, says):
    result = parse_file("long.xml", data, "club")
    assert result.sessions == ()
    problems = [p for p in result.problems if p.code == "too-long"]
    assert problems, result.problems
    assert problems[0].location == location
    assert says in problems[0].message and "characters the product can keep" in problems[0].message
    assert len(problems[0].message) < 300  # a 5,000-character name is not repeated


def test_a_long_csv_name_and_a_huge_session_number_are_refused():
    lines = CSV.decode().splitlines()
    lines[1] = lines[1].replace("Ann Able", "A" * 201)
    result = parse_file("long.csv", "\n".join(lines).encode(), "club")
    assert [p.code for p in result.problems] == ["too-long"]
    assert result.problems[0].location == "Monday Pairs, session of 16 Nov 2026, pair 1NS, player 1"
    rows = [ln.replace("MON,Monday Pairs,1,", "MON,Monday Pairs,40000,") for ln in lines[:1]]
    rows += [
        ln.replace("MON,Monday Pairs,1,", "MON,Monday Pairs,40000,").replace("A" * 201, "Ann")
        for ln in lines[1:]
    ]
    result = parse_file("huge.csv", "\n".join(rows).encode(), "club")
    assert [p.code for p in result.problems] == ["implausible"]
    assert "40000" in result.problems[0].message
