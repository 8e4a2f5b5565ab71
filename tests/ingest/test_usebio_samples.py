"""Every real USEBIO sample (samples/SOURCES.md) imports with the counts read off the file by
hand, or is refused / stored not graded with its reason (FORMATS 2, 5, 7.6; SPEC S3.1, S12)."""

from __future__ import annotations

import datetime as dt

import pytest

from grading.engine.types import Direction, Movement, Scoring
from tests.ingest.conftest import parse_fixture

# file, scoring, movement, pairs, boards in session, known players, boards per pair, event id
GRADED = [
    (
        "usebio/cobalt/butler_howell.xml",
        Scoring.BUTLER,
        Movement.ONE_WINNER,
        8,
        35,
        16,
        {35},
        "11309",
    ),
    (
        "usebio/cobalt/butler_mitchell.xml",
        Scoring.BUTLER,
        Movement.TWO_WINNER,
        14,
        35,
        28,
        {35},
        "11316",
    ),
    (
        "usebio/cobalt/cross_imp_howell.xml",
        Scoring.CROSS_IMP,
        Movement.ONE_WINNER,
        9,
        27,
        18,
        {24},
        "2592",
    ),
    (
        "usebio/cobalt/mp_pairs_howell.xml",
        Scoring.MP,
        Movement.ONE_WINNER,
        12,
        27,
        24,
        {26, 27},
        "3226",
    ),
    # pair 19EW's partner is "DIRECTOR" with number 0: unknown (FORMATS 5.3)
    (
        "usebio/cobalt/mp_pairs_mitchell.xml",
        Scoring.MP,
        Movement.TWO_WINNER,
        38,
        27,
        75,
        {26, 27},
        "3212",
    ),
    (
        "usebio/cobalt/mp_pairs_mitchell_02.xml",
        Scoring.MP,
        Movement.TWO_WINNER,
        42,
        27,
        84,
        {27},
        "3228",
    ),
    (
        "usebio/cobalt/mp_pairs_mitchell_03.xml",
        Scoring.MP,
        Movement.TWO_WINNER,
        13,
        21,
        25,
        {18, 21},
        "3221",
    ),
    (
        "usebio/cobalt/mp_pairs_mitchell_04.xml",
        Scoring.MP,
        Movement.TWO_WINNER,
        16,
        24,
        32,
        {15, 16, 17},
        "3225",
    ),
    (
        "usebio/cobalt/mp_pairs_mitchell_adjusted_02.xml",
        Scoring.MP,
        Movement.TWO_WINNER,
        42,
        27,
        84,
        {27},
        "3228",
    ),
    # the excerpt keeps 3 of 28 boards: travellers incomplete, boards per pair not reported (S3.7)
    (
        "usebio/scorebridge/scorebridge_mp_pairs_EXCERPT.xml",
        Scoring.MP,
        Movement.ONE_WINNER,
        8,
        None,
        15,
        {None},
        None,
    ),
    (
        "usebio/ukbridge-club/cross-imp-pairs.usebio.xml",
        Scoring.CROSS_IMP,
        Movement.ONE_WINNER,
        17,
        24,
        34,
        {16, 24},
        None,
    ),
    (
        "usebio/ukbridge-club/mp-pairs.usebio.xml",
        Scoring.MP,
        Movement.TWO_WINNER,
        22,
        22,
        44,
        {22},
        None,
    ),
    (
        "usebio/ukbridge-club/multi-section.usebio.xml",
        Scoring.MP,
        Movement.ONE_WINNER,
        35,
        18,
        70,
        {16, 17, 18},
        None,
    ),
    (
        "usebio/ukbridge-club/multiple-teams.usebio.xml",
        Scoring.MULTIPLE_TEAMS,
        Movement.TWO_WINNER,
        20,
        30,
        40,
        {24},
        None,
    ),
    # pair 25 has no NATIONAL_ID_NUMBER for either player
    (
        "usebio/ukbridge-club/public_multi-section-pairs.xml",
        Scoring.MP,
        Movement.TWO_WINNER,
        32,
        24,
        62,
        {20, 21},
        None,
    ),
    (
        "usebio/ukbridge-club/realbridge.usebio.xml",
        Scoring.MP,
        Movement.TWO_WINNER,
        16,
        21,
        32,
        {21},
        "250407124924",
    ),
    (
        "usebio/ukbridge-club/usebio-and-pbn.usebio.xml",
        Scoring.MP,
        Movement.ONE_WINNER,
        13,
        24,
        26,
        {21, 24},
        None,
    ),
]


def known_players(session) -> int:
    return sum(player.known for pair in session.pairs for player in pair.players)


@pytest.mark.parametrize(
    ("path", "scoring", "movement", "pairs", "boards", "known", "pair_boards", "event_id"),
    GRADED,
    ids=[row[0].split("/")[-1] for row in GRADED],
)
def test_graded_sample_imports_with_exact_counts(
    path, scoring, movement, pairs, boards, known, pair_boards, event_id
):
    result = parse_fixture(path)
    assert result.ok, result.problems
    assert len(result.sessions) == 1
    session = result.sessions[0]
    assert session.graded_flag and session.not_graded_reason == ""
    assert session.scoring is scoring
    assert session.movement is movement
    assert len(session.pairs) == pairs
    assert session.boards == boards
    assert known_players(session) == known
    assert {p.boards for p in session.pairs} == pair_boards
    assert session.key.club == "test-club"
    assert session.key.session == 1
    if event_id is not None:
        assert session.key.event_id == event_id
    else:  # S14.1: a stable derived id, the same on every upload of the file
        assert session.key.event_id.startswith("auto-")
        assert parse_fixture(path).sessions[0].key.event_id == session.key.event_id
    assert all(p.score is not None for p in session.pairs)
    if movement is Movement.TWO_WINNER:
        assert {p.direction for p in session.pairs} == {Direction.NS, Direction.EW}
    else:
        assert {p.direction for p in session.pairs} == {None}


def test_dates_are_day_first():
    # FORMATS 2.4: DD/MM/YYYY, never MM/DD
    assert parse_fixture("usebio/cobalt/mp_pairs_mitchell.xml").sessions[0].date == dt.date(
        2022, 7, 11
    )
    assert parse_fixture("usebio/ukbridge-club/multi-section.usebio.xml").sessions[
        0
    ].date == dt.date(2025, 1, 2)


def test_club_identity_is_exposed_for_the_callers_club_check():
    mp = parse_fixture("usebio/ukbridge-club/mp-pairs.usebio.xml")
    assert mp.meta.national_club_id == "458128"  # written "00458128"
    assert mp.meta.club_name == "Sample Bridge Club 5"
    assert mp.meta.format == "usebio" and mp.meta.format_version == "1.2"
    assert mp.meta.program == "PairsScorer 7.2.93"
    rb = parse_fixture("usebio/ukbridge-club/realbridge.usebio.xml")
    assert rb.meta.national_club_id is None and rb.meta.club_name == ""


def test_zero_padded_numbers_and_latin1_encoding_of_brian_1_0():
    session = parse_fixture("usebio/ukbridge-club/usebio-and-pbn.usebio.xml").sessions[0]
    first = session.pairs[0]
    assert first.pair_id == "1" and first.score == pytest.approx(62.01923)
    assert [p.number for p in first.players] == ["607194", "822713"]  # "00607194"
    adjusted = [t for t in session.travellers if t.ns_adjusted]
    assert len(adjusted) == 1 and (adjusted[0].ns_adjusted, adjusted[0].ew_adjusted) == (
        "A50",
        "A50",
    )


def test_director_substitute_with_number_zero_is_unknown():
    session = parse_fixture("usebio/cobalt/mp_pairs_mitchell.xml").sessions[0]
    pair = next(p for p in session.pairs if p.pair_id == "19EW")
    assert [pl.number for pl in pair.players] == ["806119", None]
    assert not pair.known


def test_player_without_national_number_is_unknown():
    session = parse_fixture("usebio/scorebridge/scorebridge_mp_pairs_EXCERPT.xml").sessions[0]
    pair = next(p for p in session.pairs if p.pair_id == "2")
    assert [pl.name for pl in pair.players] == ["Jack Oakes", "Jack Hale"]
    assert [pl.number for pl in pair.players] == ["386692", None]


def test_incomplete_travellers_are_not_used_and_warned():
    result = parse_fixture("usebio/scorebridge/scorebridge_mp_pairs_EXCERPT.xml")
    assert result.sessions[0].travellers == ()
    assert any(w.code == "travellers-incomplete" for w in result.warnings)


def test_adjusted_score_codes_on_traveller_lines():
    session = parse_fixture("usebio/cobalt/mp_pairs_mitchell_adjusted_02.xml").sessions[0]
    codes = sorted(
        (t.board, t.ns_pair, t.ns_adjusted, t.ew_adjusted)
        for t in session.travellers
        if t.ns_adjusted
    )
    assert codes == [
        (1, "1NS", "A50", "A50"),
        (1, "2NS", "A60", "A40"),
        (2, "9NS", "A60", "A60"),
        (3, "1NS", "A50", "A50"),
    ]
    assert all(t.ns_score is None for t in session.travellers if t.ns_adjusted)


def test_multi_section_labels_and_unique_pair_ids():
    session = parse_fixture("usebio/ukbridge-club/public_multi-section-pairs.xml").sessions[0]
    assert {p.section for p in session.pairs} == {"A", "B"}
    assert len({p.pair_id for p in session.pairs}) == 32
    unknown = next(p for p in session.pairs if p.pair_id == "25")
    assert [pl.number for pl in unknown.players] == [None, None]


def test_factored_cross_imp_totals_are_scaled_to_boards_played():
    # FORMATS 5.6: Pianola scales totals to 24 boards; pair 4 played 16 (8.57 = 5.72 x 24/16)
    result = parse_fixture("usebio/ukbridge-club/cross-imp-pairs.usebio.xml")
    pair = next(p for p in result.sessions[0].pairs if p.pair_id == "4")
    assert pair.boards == 16 and pair.score == pytest.approx(5.71)
    assert any(w.code == "factored-total" and "PAIR[4]" in w.location for w in result.warnings)


def test_multiple_teams_pairs_graded_on_pair_imps_with_matches():
    result = parse_fixture("usebio/ukbridge-club/multiple-teams.usebio.xml")
    session = result.sessions[0]
    first = session.pairs[0]
    assert (first.pair_id, first.score, first.boards, first.team) == (
        "1-1-2",
        -20.99,
        24,
        "1",
    )  # TEAM_NAME is empty
    # pair 5-1-2 has no PAIR_IMPS: summed from its traveller cross-IMPs (S3.6), with a warning
    missing = next(p for p in session.pairs if p.pair_id == "5-1-2")
    assert missing.score == pytest.approx(28.12)
    assert any(w.code == "score-from-travellers" for w in result.warnings)
    # every pair meets opponents in 8 matches of 3 boards
    by_pair = {}
    for match in session.matches:
        by_pair.setdefault(match.pair_id, []).append(match)
    assert len(by_pair) == 20
    assert all(sum(m.boards for m in ms) == 24 for ms in by_pair.values())
    assert sum(m.score for m in by_pair["1-1-2"]) == pytest.approx(-20.99)


@pytest.mark.parametrize(
    ("path", "scoring", "reason_word", "pairs"),
    [
        ("usebio/ukbridge-club/individual.usebio.xml", Scoring.INDIVIDUAL, "Individual", 0),
        (
            "usebio/ukbridge-club/point-a-board.usebio.xml",
            Scoring.POINT_A_BOARD,
            "Point-a-board",
            16,
        ),
    ],
)
def test_not_graded_event_types_are_stored_with_reason(path, scoring, reason_word, pairs):
    # S3.1: individuals and point-a-board teams are stored and shown, with the reason
    result = parse_fixture(path)
    assert result.ok
    (session,) = result.sessions
    assert session.scoring is scoring
    assert not session.graded_flag
    assert reason_word in session.not_graded_reason
    assert len(session.pairs) == pairs


def test_unsupported_event_type_is_refused_with_a_clear_message():
    result = parse_fixture("usebio/cobalt/notsupported.xml")
    assert not result.ok and result.sessions == ()
    (problem,) = result.problems
    assert problem.code == "event-type"
    assert problem.location == "EVENT@EVENT_TYPE" and problem.line == 8
    assert '"NOTSUP"' in problem.message


def test_point_a_board_keeps_team_names():
    session = parse_fixture("usebio/ukbridge-club/point-a-board.usebio.xml").sessions[0]
    assert session.pairs[0].team == "HOLLIES"
