"""grading/privacy.py's small-group rules (S7, S14.14), on members that are never saved."""

from grading.models import Movement, PairResult, Scoring, SessionVersion
from grading.privacy import (
    GradeView,
    average_shown,
    average_view,
    group_hides_grades,
    hidden_from,
    pair_grade_shown,
)
from members.models import Member
from members.selectors.groups import opponents_of


def people(*private: bool) -> list[Member]:
    return [Member(pk=i + 1, name=f"P{i}", grade_private=p) for i, p in enumerate(private)]


def test_an_average_over_four_with_a_private_grade_is_for_that_member_and_staff_only():
    four = people(False, False, True, False)
    assert not average_shown(four, four[0])
    assert average_shown(four, four[2])  # the private member sees their own field
    assert average_shown(four, four[0], staff=True)
    assert average_view(48.5, four, None) is None
    assert average_view(48.5, four, four[2]) == 48.5


def test_five_players_or_no_private_grade_show_the_average():
    assert average_shown(people(False, True, False, False, False), None)
    assert average_shown(people(False, False, False, False), None)
    # an unknown player (None) counts in the group's size but holds no one's grade
    assert not average_shown([*people(True, False, False), None], None)
    assert average_shown([*people(True, False, False), None, None], None)


def test_grades_at_the_start_are_not_listed_beside_an_average_over_a_private_grade():
    field = people(False, True, False, False, False, False)
    assert group_hides_grades(field, field[0])
    assert not group_hides_grades(field, field[1])
    assert hidden_from(field[1], field[0]) and not hidden_from(field[1], field[1])


def test_the_pairs_grade_follows_the_partners():
    assert not pair_grade_shown(GradeView(None, "Private"))
    assert not pair_grade_shown(None)
    assert pair_grade_shown(GradeView(50.0, "50.00"))


def _pairs(n: int, directions: tuple[str, ...] = ()) -> list[PairResult]:
    out = []
    for i in range(n):
        a, b = people(i == 1, False)
        out.append(
            PairResult(
                pair_id=str(i + 1),
                direction=directions[i] if directions else "",
                player1=a,
                player2=b,
            )
        )
    return out


def _met(*opponents: str) -> dict[str, list[tuple[int, tuple[str, ...]]]]:
    """Pair 1's tables: one board against each of ``opponents``."""
    return {"1": [(1, (o,)) for o in opponents]}


def test_sopps_group_is_the_engines():
    """S3.2: teams take the pairs met unless they are a quarter of the field (FAQ 46); Swiss
    pairs the pairs met; a two-winner movement the pair's direction; else the whole field."""
    teams = SessionVersion(scoring=Scoring.TEAM_LEAGUE, movement=Movement.TWO_WINNER)
    field = _pairs(16, ("NS", "EW") * 8)
    met = opponents_of(teams, "1", field, _met("2", "4"))
    assert [p.pair_id for p in met.pairs] == ["2", "4"]
    assert not average_shown(met.players, None)  # 4 players, pair 2 holds a private grade
    many = opponents_of(teams, "1", field, _met("2", "4", "6", "8"))  # a quarter: multiple teams
    assert len(many.pairs) == 7 and all(p.direction == "NS" for p in many.pairs)
    assert len(opponents_of(teams, "1", field).pairs) == 7  # no tables recorded: the direction
    swiss = SessionVersion(scoring=Scoring.SWISS_PAIRS_MP, movement=Movement.ONE_WINNER)
    assert [p.pair_id for p in opponents_of(swiss, "1", field, _met("3")).pairs] == ["3"]
    assert len(opponents_of(swiss, "1", field, {}).pairs) == 15
    mitchell = SessionVersion(scoring=Scoring.MP, movement=Movement.TWO_WINNER)
    assert len(opponents_of(mitchell, "1", field).pairs) == 7
    assert len(opponents_of(mitchell, "1", field, _met("3")).pairs) == 7  # pairs: never tables
    howell = SessionVersion(scoring=Scoring.MP, movement=Movement.ONE_WINNER)
    assert len(opponents_of(howell, "1", field).pairs) == 15
