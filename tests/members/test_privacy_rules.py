"""grading/privacy.py's small-group rules (S7, S14.14), on members that are never saved."""

from grading.privacy import (
    GradeView,
    average_shown,
    average_view,
    group_hides_grades,
    hidden_from,
    pair_grade_shown,
)
from members.models import Member


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
