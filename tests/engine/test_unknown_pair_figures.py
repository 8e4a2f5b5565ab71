"""The S3.8 figure an unknown player stands at, as the results page's strata read it (S16):
``h_u = s_u + SoF_group`` with ``SoF_group = (sum of known grades + sum of s_u) / M``."""

import datetime as dt

import pytest

from grading.engine.ngs.session import unknown_pair_figures
from grading.engine.types import Movement, PairEntry, Player, Scoring, SessionKey, SessionResult


def _session(scores, players):
    pairs = tuple(
        PairEntry(str(i + 1), (Player(a), Player(b)), score, boards=24)
        for i, ((a, b), score) in enumerate(zip(players, scores, strict=True))
    )
    key = SessionKey("c", "E", 1, dt.date(2026, 11, 17))
    return SessionResult(key, "E", Scoring.MP, Movement.ONE_WINNER, pairs)


def test_an_unknown_pair_stands_at_its_score_term_plus_the_field_strength():
    # Known players 50, 50, 40, 60, 55, 45 (M = 6, sum 300); the visitors' pair scored 60%,
    # s_u = 10 for each of its two players: SoF = (300 + 20) / 6, h_u = 10 + SoF.
    session = _session(
        [50.0, 48.0, 52.0, 60.0],
        [("1", "2"), ("3", "4"), ("5", "6"), (None, None)],
    )
    grades = {"1": 50.0, "2": 50.0, "3": 40.0, "4": 60.0, "5": 55.0, "6": 45.0}
    figures = unknown_pair_figures(session, grades)
    assert figures == {"4": pytest.approx(10 + 320 / 6)}


def test_a_member_partnering_a_visitor_stands_at_the_pairs_figure_not_their_own_grade():
    session = _session([50.0, 40.0, 55.0], [("1", "2"), ("3", None), ("5", "6")])
    grades = {"1": 50.0, "2": 50.0, "3": 70.0, "5": 50.0, "6": 50.0}
    # S3.8: member 3 is treated as unknown that session; their 70 is not used anywhere.
    figures = unknown_pair_figures(session, grades)
    assert figures == {"2": pytest.approx(-10 + (200 - 20) / 4)}
