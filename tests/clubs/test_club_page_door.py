"""The role check every club page shares (``clubs.pages``): ``club_page`` for the club's pages,
``staff_club_page`` for the union's staff pages of a club. The view is called with the club
the address names, only once the user may see it there (S13, S15)."""

import pytest
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.test import RequestFactory

from clubs.pages import club_page, staff_club_page
from tests.factories import ClubFactory, ClubRoleFactory, MemberFactory, UserFactory

pytestmark = pytest.mark.django_db


@club_page
def _club_view(request, club, extra):
    return HttpResponse(f"{club.slug}:{extra}")


@staff_club_page
def _staff_view(request, club):
    return HttpResponse(club.slug)


def _request(user):
    request = RequestFactory().get("/")
    request.user = user
    return request


def test_a_club_page_is_called_with_the_club_for_its_administrator_and_staff():
    role = ClubRoleFactory(member=MemberFactory(user=UserFactory()), role="admin")
    slug = role.club.slug
    assert _club_view(_request(role.member.user), slug, "x").content.decode() == f"{slug}:x"
    staff = UserFactory(is_staff=True)
    assert _club_view(_request(staff), slug=slug, extra="y").content.decode() == f"{slug}:y"


def test_a_club_page_refuses_another_clubs_administrator_and_a_club_that_does_not_exist():
    role = ClubRoleFactory(member=MemberFactory(user=UserFactory()), role="admin")
    with pytest.raises(PermissionDenied):
        _club_view(_request(role.member.user), ClubFactory().slug, "x")
    with pytest.raises(Http404):
        _club_view(_request(role.member.user), "no-such-club", "x")


def test_a_staff_club_page_is_for_staff_only_even_the_clubs_own_administrator_is_refused():
    role = ClubRoleFactory(member=MemberFactory(user=UserFactory()), role="admin")
    with pytest.raises(PermissionDenied):
        _staff_view(_request(role.member.user), role.club.slug)
    staff = UserFactory(is_staff=True)
    assert _staff_view(_request(staff), role.club.slug).content.decode() == role.club.slug
    with pytest.raises(Http404):
        _staff_view(_request(staff), "no-such-club")
