"""NGS session grades: SOpp, score terms, par, unknowns, hosts, regular pairs (SPEC S3, S8, S9)."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grading.engine.ngs import (
    FR18_FACTORS,
    NGS_2018,
    NGS_DEFAULT,
    PlayerStanding,
    Reason,
    Status,
    forecast,
    forecast_table,
    get_params,
    grade_session,
    match_handicap,
    pair_handicap,
    par,
    score_term,
    team_handicap,
    why_not_graded,
)
from grading.engine.ngs.decay import decay_weights
from grading.engine.ngs.terms import CROSS_IMPS, imp_factor
from grading.engine.types import (
    Direction,
    Movement,
    PairEntry,
    Player,
    Scoring,
    SessionKey,
    SessionResult,
    SwissMatch,
    TravellerLine,
)

DAY = dt.date(2021, 5, 4)
NS, EW = Direction.NS, Direction.EW


def pair(pid, a, b, score, direction=None, boards=24, mean=None, host=False):
    players = (Player(a, rateable=not host), Player(b))
    return PairEntry(pid, players, score, direction, boards, mean)


def session(pairs, scoring=Scoring.MP, movement=Movement.ONE_WINNER, **kw):
    key = SessionKey("club", "ev", 1, kw.pop("date", DAY))
    return SessionResult(key, "Event", scoring, movement, tuple(pairs), **kw)


def field(scores, grades=None):
    """Pairs 1..n of members (2i-1, 2i) with the given MP scores."""
    pairs = [pair(str(i + 1), f"m{2 * i + 1}", f"m{2 * i + 2}", s) for i, s in enumerate(scores)]
    grades = grades or {}
    return pairs, {f"m{k}": grades.get(f"m{k}", 50.0) for k in range(1, 2 * len(scores) + 1)}


# ------------------------------------------------------------------ seed worked examples


def test_faq37_weak_partner_par_40():
    """FAQ 37: a 30 and a 50 in a field of 50 expect 40%."""
    assert par(Scoring.MP, 30.0, 50.0, 50.0, 24) == pytest.approx(40.0)


def test_fr5_par_and_table_of_chances():
    """FR 5: grades 50 and 46 in a 49 field: par 49%; Normal around par with sd ~6%."""
    p = par(Scoring.MP, 50.0, 46.0, 49.0, 24)
    assert p == pytest.approx(49.0)
    # the seed's round figures come from sd 6 (Sheffield analysis)
    assert 1 / forecast(p, 61.0, sd=6.0) == pytest.approx(40, rel=0.15)  # 1 in 40 above 61%
    assert 1 / forecast(p, 55.0, sd=6.0) == pytest.approx(6, rel=0.06)  # 1 in 6 above 55%
    between = forecast(p, 49.0, sd=6.0) - forecast(p, 55.0, sd=6.0)
    assert 1 / between == pytest.approx(3, rel=0.05)  # 1 in 3 between 49% and 55%
    assert 1 / (1 - forecast(p, 37.0, sd=6.0)) == pytest.approx(40, rel=0.15)  # below 37%
    # FR 5/18: with the scheme's 6.34 the figures stay "close enough"
    assert 1 / forecast(p, 55.0) == pytest.approx(6, rel=0.1)
    assert forecast(p, 49.0) == pytest.approx(0.5)
    assert [t for t, _ in forecast_table(p)] == [37.0, 43.0, 49.0, 55.0, 61.0]


def test_fr7_team_handicap_37_imps():
    """FR 7: a 45% team in a 24-board multiple teams gets 0.3086 x 24 x 5 = 37 IMPs."""
    assert round(team_handicap(45.0, 24)) == 37
    assert team_handicap(45.0, 24) == pytest.approx(0.3086 * 24 * 5, abs=0.01)
    assert match_handicap(55.0, 50.0, 10) == pytest.approx(0.3086 * 10 * 5, abs=0.01)


def test_fr3_cross_imps_against_match_points():
    """Seed 000 (FAQ on IMP pairs): "+20 IMPs ... you get the equivalent of 179.60% on that
    board" (20 x 6.48 % above 50 %), and 1 IMP on a board is "the equivalent MP score of
    56.48%"."""
    assert 50 + score_term(Scoring.CROSS_IMP, 20, 1) == pytest.approx(179.60)
    assert 50 + score_term(Scoring.CROSS_IMP, 1, 1) == pytest.approx(56.48)


def test_fr7_imps_per_board_per_grade_point():
    """Seed 000 (FR 7): a pair 1 % stronger scores 50.5 % against 49.5 % on a board, "+0.0772
    IMPs" at cross-IMPs; a team 1 % stronger gains "0.1543 IMPs per board"."""
    assert 0.5 / NGS_DEFAULT.f_cross == pytest.approx(0.0772, abs=5e-5)
    assert NGS_DEFAULT.team_handicap_factor / 2 == pytest.approx(0.1543, abs=5e-5)


def test_fr9_aggregate_points_against_match_points():
    """Seed 000 (FR 9): "a 56.72% score is equivalent to scoring 55 aggregate points above the
    mean", so "a 100% score in MPs is equivalent to 409 aggregate points" on one board. The
    factor 8.2 is 55 / 6.72 rounded, so 55 points give 56.71 %."""
    assert 50 + score_term(Scoring.AGGREGATE, 55, 1, direction_mean=0) == pytest.approx(
        56.72, abs=0.02
    )
    assert 50 + score_term(Scoring.AGGREGATE, 409, 1, direction_mean=0) == pytest.approx(
        100, abs=0.2
    )


def test_faq_a_sessions_effect_halves_after_1000_more_boards():
    """Seed 000: playing two 25-board sessions a week, "the effect of one session will halve in
    20 weeks and disappear in 40 weeks" (S4: 2000 boards, linear decay)."""
    weights = decay_weights([25] * 81)
    assert weights[40] / weights[0] == pytest.approx(0.5, abs=0.01)  # 20 weeks later
    assert weights[80] == 0  # 40 weeks later


def test_pair_handicap():
    """S8: handicap = 50 - (Ga + Gb)/2."""
    assert pair_handicap(44.0, 48.0) == 4.0


def test_fr12_unknown_players_sof_formula():
    """FR 12 / S3.8: SoF = (sum g + sum s_u) / M and h_u = s_u + SoF for unknowns."""
    pairs = [
        pair("1", "a", "b", 58.0),
        pair("2", "c", "d", 50.0),
        pair("3", "e", "f", 46.0),
        pair("4", "g", None, 46.0),  # a member with an unknown partner: both in U
    ]
    grades = {"a": 52.0, "b": 48.0, "c": 50.0, "d": 54.0, "e": 44.0, "f": 46.0, "g": 60.0}
    out = grade_session(session(pairs), grades)
    known = [52, 48, 50, 54, 44, 46]
    sof_group = (sum(known) + 2 * (46.0 - 50.0)) / len(known)
    h = (46.0 - 50.0) + sof_group
    unknown = next(p for p in out.pairs if p.pair_id == "4")
    assert unknown.grade_value == pytest.approx(h)
    assert out.sof == pytest.approx(sof_group)  # equation (1): the mean of all M + U grades
    first = next(p for p in out.pairs if p.pair_id == "1")
    assert first.sopp == pytest.approx((52 + 45 + h) / 3)  # other pairs: 52, 45 and h
    g = out.player("g")
    assert (g.session_grade, g.reason) == (None, Reason.PARTNER_UNKNOWN)
    # FR 12: the unknown pair's session grade equals its assumed grade up to the leave-one-out
    # term of SOpp: its excess is -s_u/(n-1), so the pairs' excesses still sum to zero.
    assert unknown.excess == pytest.approx(-(46.0 - 50.0) / 3)
    assert sum(p.excess for p in out.pairs) == pytest.approx(0.0, abs=1e-9)


# ------------------------------------------------------------------ formulas per scoring


def test_match_points_session_grade_gain_two():
    """S3.4: SG = G + gain x (p - 50 + SOpp - (Ga + Gb)/2), gain 2 (FAQ 42)."""
    pairs, grades = field([60.0, 50.0, 40.0])
    grades.update(m1=54.0, m2=50.0)
    out = grade_session(session(pairs), grades)
    sopp = 50.0
    excess = 10.0 + sopp - 52.0
    rec = out.player("m1")
    assert rec.sopp == pytest.approx(sopp)
    assert rec.excess == pytest.approx(excess)
    assert rec.session_grade == pytest.approx(54.0 + 2 * excess)
    assert out.player("m2").session_grade == pytest.approx(50.0 + 2 * excess)
    assert rec.par == pytest.approx(52.0)


@pytest.mark.parametrize(
    ("scoring", "score", "term"),
    [
        (Scoring.BUTLER, 12.0, 5.4 * 12 / 24),
        (Scoring.CROSS_IMP, -6.0, 6.48 * -6 / 24),
    ],
)
def test_imp_score_terms_and_par(scoring, score, term):
    """S3.3: Butler 5.4 i/x, cross-IMPs 6.48 i/x; S3.5 par_imps = x (G - SOpp)/F."""
    pairs = [pair("1", "a", "b", score), pair("2", "c", "d", -score)]
    out = grade_session(session(pairs, scoring), {"a": 56, "b": 52, "c": 50, "d": 50})
    rec = out.player("a")
    assert rec.score_term == pytest.approx(term)
    factor = 5.4 if scoring is Scoring.BUTLER else 6.48
    assert rec.par == pytest.approx(24 * (54 - 50) / factor)
    # scoring exactly par gives excess 0
    assert factor * rec.par / 24 + 50 - 54 == pytest.approx(0.0)


def test_aggregate_two_winner_uses_direction_mean():
    """S3.3: (g - m) / (8.2 x); m the direction mean, else the group's mean (S14.12)."""
    pairs = [
        pair("1", "a", "b", 1500.0, NS),
        pair("2", "c", "d", 500.0, NS),
        pair("3", "e", "f", -800.0, EW, mean=-1000.0),
        pair("4", "g", "h", -1200.0, EW, mean=-1000.0),
    ]
    grades = dict.fromkeys("abcdefgh", 50.0)
    out = grade_session(session(pairs, Scoring.AGGREGATE, Movement.TWO_WINNER), grades)
    assert out.player("a").score_term == pytest.approx((1500 - 1000) / (8.2 * 24))
    assert out.player("e").score_term == pytest.approx(200 / (8.2 * 24))
    assert out.player("a").par == pytest.approx(1000.0)  # par_points = m + 8.2 x (G - SOpp)


def test_two_winner_sopp_is_same_direction():
    """S3.2: in a two-winner movement SOpp averages the other pairs in the pair's direction."""
    pairs = [
        pair("1", "a", "b", 55.0, NS),
        pair("2", "c", "d", 45.0, NS),
        pair("3", "e", "f", 50.0, NS),
        pair("4", "g", "h", 50.0, EW),
        pair("5", "i", "j", 50.0, EW),
    ]
    grades = {k: 50.0 for k in "abcdefghij"} | {"c": 60.0, "d": 58.0, "g": 70.0, "h": 70.0}
    out = grade_session(session(pairs, movement=Movement.TWO_WINNER), grades)
    assert out.player("a").sopp == pytest.approx((59.0 + 50.0) / 2)
    assert out.player("i").sopp == pytest.approx(70.0)


def test_swiss_pairs_per_match_opponents_board_weighted():
    """S3.2: Swiss pairs SOpp is the board-weighted average of each match's opponents; the
    score is the match points before VP conversion (S3.1)."""
    pairs = [pair(str(i), f"p{i}a", f"p{i}b", None, boards=None) for i in range(1, 5)]
    matches = (
        SwissMatch("1", 1, ("2",), 8, 62.5),
        SwissMatch("1", 2, ("3",), 6, 40.0),
        SwissMatch("2", 1, ("1",), 8, 37.5),
        SwissMatch("3", 2, ("1",), 6, 60.0),
        SwissMatch("4", 1, ("3",), 8, 50.0),
    )
    grades = {f"p{i}{s}": 50.0 + i for i in range(1, 5) for s in "ab"}
    out = grade_session(session(pairs, Scoring.SWISS_PAIRS_MP, matches=matches), grades)
    rec = out.player("p1a")
    assert rec.boards == 14
    assert rec.sopp == pytest.approx((8 * 52 + 6 * 53) / 14)
    assert rec.score_term == pytest.approx((8 * 12.5 + 6 * -10) / 14)


def test_teams_quarter_rule_and_travellers_cross_imps():
    """S3.2/FAQ 46: a pair that met fewer than a quarter of the pairs uses its table opponents;
    S3.6: without per-pair figures the cross-IMPs come from the travellers."""
    # 8 pairs (4 teams); pair 1N met only pair 2E at the table: 1 of 8 < 1/4 -> per match.
    ids = ["1N", "1E", "2N", "2E", "3N", "3E", "4N", "4E"]
    pairs = [
        pair(pid, f"{pid}a", f"{pid}b", None, NS if pid.endswith("N") else EW, boards=None)
        for pid in ids
    ]
    lines = []
    for board, ns_scores in ((1, (420, 450, -50, 420)), (2, (-100, 110, -100, 140))):
        for table, (ns, ew) in enumerate((("1N", "2E"), ("2N", "1E"), ("3N", "4E"), ("4N", "3E"))):
            lines.append(TravellerLine(board, ns, ew, ns_score=ns_scores[table]))
    grades = {f"{pid}{s}": 50.0 for pid in ids for s in "ab"} | {"2Ea": 60.0, "2Eb": 58.0}
    out = grade_session(session(pairs, Scoring.MULTIPLE_TEAMS, travellers=tuple(lines)), grades)
    rec = out.player("1Na")
    assert rec.sopp == pytest.approx(59.0)  # met 2E on both boards
    assert rec.boards == 2
    # board 1: 420 v 450 (-1), -50 (+10), 420 (0) -> 9/3; board 2: -100 v 110 (-5), -100 (0),
    # 140 (-6) -> -11/3: total -2/3 cross-IMP
    assert rec.score_term == pytest.approx(6.48 * (-2 / 3) / 2)


def test_teams_travellers_are_scored_even_when_the_file_gives_pair_figures():
    """S3.6: "Where an upload has travellers, the product computes these cross-IMPs itself";
    the file's per-pair totals (here 5 IMPs and 3 boards for everyone) are not used. Board 3
    was played at one table only: no comparison, so not a board (docs/decisions.md)."""
    ids = ["1N", "1E", "2N", "2E", "3N", "3E", "4N", "4E"]
    pairs = [
        pair(pid, f"{pid}a", f"{pid}b", 5.0, NS if pid.endswith("N") else EW, boards=3)
        for pid in ids
    ]
    lines = [TravellerLine(3, "1N", "2E", ns_score=100)]
    for board, ns_scores in ((1, (420, 450, -50, 420)), (2, (-100, 110, -100, 140))):
        for table, (ns, ew) in enumerate((("1N", "2E"), ("2N", "1E"), ("3N", "4E"), ("4N", "3E"))):
            lines.append(TravellerLine(board, ns, ew, ns_score=ns_scores[table]))
    grades = {f"{pid}{s}": 50.0 for pid in ids for s in "ab"}
    out = grade_session(session(pairs, Scoring.MULTIPLE_TEAMS, travellers=tuple(lines)), grades)
    rec = out.player("1Na")
    assert rec.boards == 2
    assert rec.score_term == pytest.approx(6.48 * (-2 / 3) / 2)  # as in the test above


def test_teams_with_many_opponents_use_direction_field():
    """FAQ 46: meeting at least a quarter of the pairs makes it multiple teams (direction SOpp)."""
    ids = ["1N", "1E", "2N", "2E"]
    pairs = [pair(pid, f"{pid}a", f"{pid}b", 3.0, NS if pid.endswith("N") else EW) for pid in ids]
    matches = (SwissMatch("1N", 1, ("2E",), 12, 3.0),)
    grades = {f"{pid}{s}": 50.0 for pid in ids for s in "ab"} | {"2Na": 60.0, "2Nb": 60.0}
    out = grade_session(session(pairs, Scoring.SWISS_TEAMS, matches=matches), grades)
    assert out.player("1Na").sopp == pytest.approx(60.0)  # 1 of 4 pairs: the other NS pair


def test_team_league_at_two_tables_not_graded():
    """S3.1: team leagues are graded only when boards are played at more than two tables."""
    lines = (TravellerLine(1, "1N", "2E", ns_score=100), TravellerLine(1, "2N", "1E", ns_score=90))
    pairs = [pair(p, f"{p}a", f"{p}b", 1.0) for p in ("1N", "1E", "2N", "2E")]
    s = session(pairs, Scoring.TEAM_LEAGUE, travellers=lines)
    assert why_not_graded(s) == Reason.TWO_TABLES
    assert why_not_graded(session(pairs, Scoring.HEAD_TO_HEAD)) == Reason.HEAD_TO_HEAD


# ------------------------------------------------------------------ who is graded


def test_more_than_two_thirds_of_pairs_known():
    """S3.8/S14.3: 7 known of 10 is graded, 6 of 9 is not."""

    def mixed(known, total):
        return [pair(str(i), f"k{i}", f"l{i}" if i < known else None, 50.0) for i in range(total)]

    assert why_not_graded(session(mixed(7, 10))) == ""
    assert why_not_graded(session(mixed(6, 9))) == Reason.TOO_FEW_KNOWN
    outcome = grade_session(session(mixed(6, 9)), {})
    assert not outcome.graded and outcome.players == ()
    # S9.1: ngs-2018 counts players: 15 of 18 players known (6 of 9 pairs) is graded
    assert why_not_graded(session(mixed(6, 9)), NGS_2018) == ""


def test_a_host_pair_counts_as_known():
    """S14.3: "a host pair counts as known". Four known pairs, a host with a visitor partner and
    an unknown pair: 5 of 6 known is graded; without the host's mark, 4 of 6 is not."""
    pairs = [pair(str(i), f"a{i}", f"b{i}", 50.0) for i in range(1, 5)]
    pairs += [pair("5", "h1", None, 50.0, host=True), pair("6", None, None, 50.0)]
    assert why_not_graded(session(pairs)) == ""
    outcome = grade_session(session(pairs), {})
    assert outcome.graded and (outcome.known_pairs, outcome.total_pairs) == (5, 6)
    unmarked = [*pairs[:4], pair("5", "h1", None, 50.0), pairs[5]]
    assert why_not_graded(session(unmarked)) == Reason.TOO_FEW_KNOWN
    # an approved request (S3.9) makes its pair the host just as the file's mark does
    assert why_not_graded(session(unmarked), host_pair="5") == ""
    assert grade_session(session(unmarked), {}, host_pair="5").graded
    # ngs-2018 counts graded members (S9.1): the host's partner without a number is not one,
    # marked or not (5 of 8 either way); a third known pair makes 7 of 10
    few = [*pairs[:2], pairs[4], pairs[5]]
    assert why_not_graded(session(few), NGS_2018) == Reason.TOO_FEW_KNOWN_PLAYERS
    assert why_not_graded(session([*pairs[:2], unmarked[4], pairs[5]]), NGS_2018) != ""
    assert why_not_graded(session([*pairs[:3], pairs[4], pairs[5]]), NGS_2018) == ""


def test_2018_a_host_with_a_visitor_does_not_make_a_field_of_unknowns_graded():
    """S9.1, S3.8, S14.3: the minimal session hypothesis found (ckernel equality under ngs-2018)
    that crashed the reference path with a division by zero: two pairs, each a member with a
    visitor, one of them the file's host pair. Counting the host's visitor as known made 3 of 4
    players "known", so a field without one known pair (no SoF) was graded. Graded members are
    2 of 4: not graded, with the reason, on every path."""
    pairs = [
        pair("1", "m0", None, -10.652522178348892, boards=60),
        pair("2", "m3", None, 3.695292920543494, boards=60, host=True),
    ]
    s = session(pairs, scoring=Scoring.AGGREGATE)
    assert why_not_graded(s, NGS_2018) == Reason.TOO_FEW_KNOWN_PLAYERS
    outcome = grade_session(s, {"m0": 50.0, "m3": 48.0}, NGS_2018)
    assert not outcome.graded and outcome.reason == Reason.TOO_FEW_KNOWN_PLAYERS
    assert outcome.players == ()
    # the pair rule (S3.8, S14.3) counts the host pair as known: 1 of 2 is not more than 2/3
    assert why_not_graded(s) == Reason.TOO_FEW_KNOWN


def test_non_graded_kinds_and_club_flag():
    """S3.1: individuals, point-a-board and club-marked sessions are stored with the reason."""
    pairs, _ = field([50.0, 50.0])
    assert why_not_graded(session(pairs, Scoring.INDIVIDUAL)) == Reason.INDIVIDUAL
    assert why_not_graded(session(pairs, Scoring.POINT_A_BOARD)) == Reason.POINT_A_BOARD
    flagged = session(pairs, graded_flag=False, not_graded_reason="teaching session")
    assert why_not_graded(flagged) == "teaching session"
    assert why_not_graded(session(pairs, graded_flag=False)) == Reason.CLUB_NON_GRADED


def test_host_pair_not_graded_but_counts_as_opponents():
    """S3.9/S14.4: the host pair has SOpp, par and excess shown and no session grade; only the
    first non-rateable pair is the host."""
    pairs = [
        pair("1", "h1", "h2", 40.0, host=True),
        pair("2", "a", "b", 60.0),
        pair("3", "c", "d", 50.0, host=True),
    ]
    grades = {"h1": 70.0, "h2": 70.0, "a": 50.0, "b": 50.0, "c": 50.0, "d": 50.0}
    out = grade_session(session(pairs), grades)
    host = out.player("h1")
    assert out.host_pair == "1"
    assert host.reason == Reason.HOST and host.session_grade is None
    assert host.excess is not None and host.par is not None
    assert out.player("a").sopp == pytest.approx(60.0)
    assert out.player("c").graded and len(out.warnings) == 1
    # an approved request overrides the file
    assert grade_session(session(pairs), grades, host_pair="2").host_pair == "2"


def test_regular_pair_convergence_term():
    """S3.4: a regular pair adds RPCF (Gb - Ga)/2 to each player's session grade."""
    pairs, grades = field([50.0, 50.0, 50.0])
    standing = {k: PlayerStanding(v) for k, v in grades.items()}
    standing["m1"] = PlayerStanding(56.0, regular_partner="m2")
    standing["m2"] = PlayerStanding(48.0, regular_partner="m1")
    out = grade_session(session(pairs), standing)
    excess = 0.0 + 50.0 - 52.0
    assert out.player("m1").regular_adjustment == pytest.approx(0.75 * (48 - 56) / 2)
    assert out.player("m1").session_grade == pytest.approx(56 - 3 + 2 * excess)
    assert out.player("m2").session_grade == pytest.approx(48 + 3 + 2 * excess)
    # only one-sided: no adjustment
    standing["m2"] = PlayerStanding(48.0, regular_partner=None)
    assert grade_session(session(pairs), standing).player("m1").regular_adjustment == 0.0


def test_2018_mature_player_with_new_partner():
    """S9.1: under ngs-2018 a Mature player partnering someone with < 150 graded boards gets no
    session grade; the new player is graded as usual."""
    pairs, grades = field([55.0, 45.0])
    standing = {k: PlayerStanding(v, Status.MATURE, 2000) for k, v in grades.items()}
    standing["m2"] = PlayerStanding(42.0, Status.PROVISIONAL, 24)
    out = grade_session(session(pairs), standing, NGS_2018)
    assert out.player("m1").reason == Reason.PARTNER_NEW
    assert out.player("m2").graded
    assert grade_session(session(pairs), standing, NGS_DEFAULT).player("m1").graded
    assert [p.key for p in out.partnerships] == [("m3", "m4")]


def test_new_member_starts_at_initial_grade_by_weighting():
    """S5.1: a new member's grade is 42, or 55 in a green-pointed (weighting 3) session."""
    pairs, _ = field([50.0, 50.0])
    assert grade_session(session(pairs), {}).player("m1").grade_before == 42.0
    green = grade_session(session(pairs, weighting=3), {})
    assert green.player("m1").grade_before == 55.0
    assert green.player("m1").factor == 2.0


def test_boards_not_reported_default_24():
    """S3.7/FAQ 26: without boards the session counts 24 and says so."""
    pairs = [pair("1", "a", "b", 60.0, boards=None), pair("2", "c", "d", 40.0, boards=None)]
    rec = grade_session(session(pairs), {}).player("a")
    assert (rec.boards, rec.boards_reported) == (24, False)


def test_alone_in_direction_has_no_opponents():
    """S14.3: a pair alone in its comparison group is "no opponents: not graded"."""
    pairs = [
        pair("1", "a", "b", 60.0, NS),
        pair("2", "c", "d", 40.0, EW),
        pair("3", "e", "f", 50, EW),
    ]
    out = grade_session(session(pairs, movement=Movement.TWO_WINNER), {})
    assert out.player("a").reason == Reason.NO_OPPONENTS
    assert out.player("c").graded


def test_partnership_session_grade():
    """S6/S14.10: SG_p = PG + gain (t + SOpp - PG); a new partnership starts at the average."""
    pairs, grades = field([60.0, 40.0])
    grades.update(m1=56.0, m2=50.0)
    out = grade_session(session(pairs), grades, partnership_grades={("m1", "m2"): 55.0})
    ps = next(p for p in out.partnerships if p.key == ("m1", "m2"))
    assert ps.session_grade == pytest.approx(55.0 + 2 * (10.0 + 50.0 - 55.0))
    other = next(p for p in out.partnerships if p.key == ("m3", "m4"))
    assert other.grade_before == 50.0


def test_parameter_sets():
    """S9, S9.1, S3.3: the named sets."""
    assert get_params("ngs-2018").new_partner_min_boards == 150
    assert (FR18_FACTORS.f_butler, FR18_FACTORS.f_cross) == (5.10, 6.12)
    assert NGS_DEFAULT.team_handicap_factor == pytest.approx(0.3086, abs=1e-4)
    with pytest.raises(KeyError):
        get_params("nope")


# ------------------------------------------------------------------ properties

grade_st = st.floats(30.0, 70.0, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(grade_st, grade_st, st.floats(20.0, 80.0)), min_size=2, max_size=12))
def test_no_drift_in_one_winner_sessions(rows):
    """Seed FR 12/S3.4: with known players in a one-winner MP session, sum(SG - CG) = 0."""
    mean = sum(r[2] for r in rows) / len(rows)
    pairs = [pair(str(i), f"a{i}", f"b{i}", r[2] - mean + 50.0) for i, r in enumerate(rows)]
    grades = {f"a{i}": r[0] for i, r in enumerate(rows)} | {
        f"b{i}": r[1] for i, r in enumerate(rows)
    }
    out = grade_session(session(pairs), grades)
    drift = sum(r.session_grade - r.grade_before for r in out.players)
    assert drift == pytest.approx(0.0, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(grade_st, grade_st, st.lists(grade_st, min_size=2, max_size=8), st.integers(1, 40))
def test_scoring_par_keeps_the_grade(ga, gb, others, boards):
    """S3.5: a pair that scores exactly par has excess 0 and SG = CG, for every scoring."""
    for scoring in (Scoring.MP, Scoring.BUTLER, Scoring.CROSS_IMP):
        sopp = sum(others) / len(others)
        target = par(scoring, ga, gb, sopp, boards)
        pairs = [pair("me", "a", "b", target, boards=boards)] + [
            pair(str(i), f"o{i}", f"p{i}", 0.0, boards=boards) for i in range(len(others))
        ]
        grades = {"a": ga, "b": gb} | {f"o{i}": g for i, g in enumerate(others)}
        grades |= {f"p{i}": g for i, g in enumerate(others)}
        out = grade_session(session(pairs, scoring), grades)
        assert out.player("a").session_grade == pytest.approx(ga, abs=1e-9)
        assert out.player("b").session_grade == pytest.approx(gb, abs=1e-9)


def test_a_team_league_with_a_board_at_two_tables_is_not_graded():
    """S3.1: team leagues are graded "where each board is played at more than two tables":
    board 1 at three tables does not make up for board 2 at two."""
    lines = tuple(TravellerLine(1, f"{t}N", f"{t % 3 + 1}E", ns_score=100 + t) for t in (1, 2, 3))
    lines += (TravellerLine(2, "1N", "2E", ns_score=100), TravellerLine(2, "2N", "3E", ns_score=90))
    pairs = [pair(p, f"{p}a", f"{p}b", 1.0) for p in ("1N", "1E", "2N", "2E", "3N", "3E")]
    league = session(pairs, Scoring.TEAM_LEAGUE, travellers=lines)
    assert why_not_graded(league) == Reason.TWO_TABLES
    assert why_not_graded(session(pairs, Scoring.TEAM_LEAGUE, travellers=lines[:3])) == ""


def test_swiss_pairs_imp_factor_follows_the_kind_of_imps_named():
    """S14.23: cross-IMPs take F_cross (6.48), Butler or plain IMPs the Swiss factor (5.4);
    par is the inverse of the term in each case (S3.5)."""
    swiss = Scoring.SWISS_PAIRS_IMP
    assert imp_factor(swiss, NGS_DEFAULT, CROSS_IMPS) == 6.48
    assert imp_factor(swiss, NGS_DEFAULT) == 5.4
    # 12 IMPs over 4 boards: 6.48 x 3 = 19.44 against 5.4 x 3 = 16.2
    assert score_term(swiss, 12.0, 4, imps=CROSS_IMPS) == pytest.approx(19.44)
    assert score_term(swiss, 12.0, 4) == pytest.approx(16.2)
    # par for a pair 3 grade points above its opponents over 24 boards: 24 x 3 / 6.48 = 11.11
    assert par(swiss, 53.0, 53.0, 50.0, 24, imps=CROSS_IMPS) == pytest.approx(24 * 3 / 6.48)
    assert par(swiss, 53.0, 53.0, 50.0, 24) == pytest.approx(24 * 3 / 5.4)
    # the kind named does not change other scorings
    assert score_term(Scoring.BUTLER, 12.0, 4, imps=CROSS_IMPS) == pytest.approx(16.2)
