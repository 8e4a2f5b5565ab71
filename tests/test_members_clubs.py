import pytest
from django.db import IntegrityError

from clubs.models import ClubRole
from clubs.selectors import clubs_administered_by, user_can_administer
from clubs.services import club_role_set
from members.models import Member
from members.services import InvalidMembershipNumber, member_get_or_create


@pytest.mark.django_db
def test_membership_numbers_are_normalised_so_one_person_is_one_member():
    """S14.2: spaces and leading zeros are stripped."""
    first, _ = member_get_or_create(number="00123 456", name="Ann Smith")
    again, warnings = member_get_or_create(number="123456", name="Ann Smith")
    assert first.pk == again.pk
    assert first.national_number == "123456"
    assert warnings == []


@pytest.mark.django_db
@pytest.mark.parametrize("unknown", ["", "0", "-", "88888888", "  ", "000"])
def test_unknown_numbers_are_not_members(unknown):
    with pytest.raises(InvalidMembershipNumber):
        member_get_or_create(number=unknown, name="Visitor")
    assert not Member.objects.exists()


@pytest.mark.django_db
def test_a_different_name_is_a_warning_not_a_new_member():
    """S14.2: a later name that differs is a warning, never a new member."""
    member_get_or_create(number="777", name="Ann Smith")
    member, warnings = member_get_or_create(number="777", name="Anne Smythe")
    assert Member.objects.count() == 1
    assert member.name == "Ann Smith"
    assert "Anne Smythe" in warnings[0]
    _, reordered = member_get_or_create(number="777", name="Smith, Ann")
    assert reordered == []


@pytest.mark.django_db
def test_database_refuses_an_unnormalised_number():
    with pytest.raises(IntegrityError):
        Member.objects.create(national_number="0123", name="Leading Zero")


@pytest.mark.django_db
def test_admin_role_is_never_demoted_by_a_membership(club_admin):
    user, member, club = club_admin
    club_role_set(club=club, member=member)
    assert ClubRole.objects.get(club=club, member=member).role == "admin"


@pytest.mark.django_db
def test_who_may_administer_a_club(member_user, club_admin, other_club, django_user_model):
    """S13: the club's admins and staff; not a member, not another club's admin."""
    member, _, club = member_user
    admin, _, admin_club = club_admin
    staff = django_user_model.objects.create_user("staffer", is_staff=True)
    assert user_can_administer(user=admin, club=admin_club)
    assert not user_can_administer(user=admin, club=other_club)
    assert not user_can_administer(user=member, club=club)
    assert user_can_administer(user=staff, club=other_club)
    assert list(clubs_administered_by(user=admin)) == [admin_club]
