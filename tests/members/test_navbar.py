"""``{% navbar %}`` (members/templatetags/navbar.py): the navigation bar kept per process is the
bar ``partials/nav.html`` renders for the request, for every kind of visitor, with the request's
own working CSRF token; what it shows changes as soon as what it depends on does."""

import re

import pytest
from django.contrib.auth.models import AnonymousUser
from django.template import engines
from django.template.loader import render_to_string
from django.test import Client, RequestFactory
from django.urls import reverse, set_script_prefix

from clubs.models import ClubRole
from members.auth import MemberBackend
from members.templatetags import navbar
from tests.factories import ClubRoleFactory, MemberFactory, UserFactory

TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


@pytest.fixture(autouse=True)
def _kept_afresh(settings):
    settings.DEBUG = False
    navbar._kept_bar.cache_clear()
    yield
    navbar._kept_bar.cache_clear()


def _request(user):
    request = RequestFactory().get("/me/")
    request.user = user
    return request


def _both(user) -> tuple[str, str]:
    """The bar from the tag and from Django's own include, for the same request."""
    request = _request(user)
    kept = engines["django"].from_string("{% load navbar %}{% navbar %}").render(request=request)
    plain = render_to_string("partials/nav.html", request=request)
    return kept, plain


def _signed_in(user):
    """The user as each request reads them (with their membership and roles)."""
    return MemberBackend().get_user(user.pk)


def _without_tokens(text: str) -> str:
    return TOKEN.sub('name="csrfmiddlewaretoken" value="TOKEN"', text)


def _viewers():
    """A user without a membership, a member, a staff member, and an administrator of two
    clubs (odd characters in every name); the administrator last."""
    plain_user = UserFactory(username="no-membership")
    member = MemberFactory(user=UserFactory(username="a-member"))
    staff = MemberFactory(user=UserFactory(username="staff-member", is_staff=True)).user
    admin = MemberFactory(user=UserFactory(username="admin<&>\"'"))
    for name in ("River & Sons <Bridge>", "Ünïcode “Club”"):
        ClubRoleFactory(member=admin, role=ClubRole.Role.ADMIN, club__name=name)
    return [plain_user, member.user, staff, admin.user]


@pytest.mark.django_db
def test_the_kept_bar_is_the_bar_django_renders_for_every_viewer():
    kept, plain = _both(AnonymousUser())
    assert kept == plain and "Log in" in kept and "csrfmiddlewaretoken" not in kept
    viewers = _viewers()
    for user in viewers:
        signed_in = _signed_in(user)
        for _ in range(2):  # rendered, then kept
            kept, plain = _both(signed_in)
            assert _without_tokens(kept) == _without_tokens(plain)
            assert len(TOKEN.findall(kept)) == 1
    assert navbar._kept_bar.cache_info().hits >= 4
    kept, _ = _both(_signed_in(viewers[-1]))  # the administrator, names escaped
    assert "River &amp; Sons &lt;Bridge&gt;" in kept and "admin&lt;&amp;&gt;" in kept


@pytest.mark.django_db
def test_each_page_gets_its_own_token_and_an_anonymous_bar_asks_for_none():
    user = _signed_in(MemberFactory(user=UserFactory()).user)
    first, second = _both(user)[0], _both(user)[0]
    assert TOKEN.search(first)[1] != TOKEN.search(second)[1]  # a fresh mask on every page
    request = _request(AnonymousUser())
    engines["django"].from_string("{% load navbar %}{% navbar %}").render(request=request)
    assert "CSRF_COOKIE_NEEDS_UPDATE" not in request.META  # no cookie set for a visitor


@pytest.mark.django_db
def test_the_token_in_the_bar_logs_the_member_out():
    user = MemberFactory(user=UserFactory()).user
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    page = client.get(reverse("members:card")).content.decode()
    refused = client.post(reverse("logout"), {"csrfmiddlewaretoken": "x" * 64})
    assert refused.status_code == 403
    token = TOKEN.search(page)[1]
    assert client.post(reverse("logout"), {"csrfmiddlewaretoken": token}).status_code == 302
    assert client.get(reverse("members:card")).status_code == 302  # signed out: to the login


@pytest.mark.django_db
def test_a_new_name_or_role_shows_at_once():
    role = ClubRoleFactory(
        member=MemberFactory(user=UserFactory(username="before")), role=ClubRole.Role.ADMIN
    )
    user = role.member.user
    assert f"Administer {role.club.name}" in _both(_signed_in(user))[0]
    role.club.name = "Renamed Club"
    role.club.save()
    user.username, user.is_staff = "after", True
    user.save()
    kept = _both(_signed_in(user))[0]
    assert "Administer Renamed Club" in kept and "Log out after" in kept and "Staff" in kept
    ClubRole.objects.filter(pk=role.pk).update(role=ClubRole.Role.MEMBER)
    kept = _both(_signed_in(user))[0]
    assert "Administer" not in kept and "Renamed Club" not in kept


@pytest.mark.django_db
def test_with_debug_on_the_bar_is_rendered_every_time(settings):
    settings.DEBUG = True
    user = _signed_in(MemberFactory(user=UserFactory()).user)
    kept, plain = _both(user)
    assert _without_tokens(kept) == _without_tokens(plain)
    assert navbar._kept_bar.cache_info().currsize == 0


@pytest.mark.django_db
def test_the_script_prefix_is_part_of_the_key():
    """A bar kept under one prefix is not served under another (its addresses carry it)."""
    user = _signed_in(MemberFactory(user=UserFactory()).user)
    plain_bar = _both(user)[0]
    try:
        set_script_prefix("/grades/")
        prefixed, expected = _both(user)
    finally:
        set_script_prefix("/")
    assert 'href="/grades/' in prefixed and _without_tokens(prefixed) == _without_tokens(expected)
    assert _without_tokens(_both(user)[0]) == _without_tokens(plain_bar)
