import re

import pytest
from django.urls import reverse

from grading.site.demo import DEMO_LOGINS, demo_seed
from members.models import Member


@pytest.mark.django_db
def test_home_page_is_public(client):
    response = client.get(reverse("home"))
    assert response.status_code == 200
    assert b"Log in" in response.content


@pytest.mark.django_db
def test_dashboard_requires_login(client):
    response = client.get(reverse("dashboard"))
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))


@pytest.mark.django_db
@pytest.mark.parametrize(
    "username, member_link, admin_links, staff_link",
    [
        ("demo-member", True, 0, False),
        ("demo-admin", True, 1, False),
        ("demo-staff", True, 0, True),
    ],
)
def test_each_demo_login_reaches_its_dashboard(
    client, username, member_link, admin_links, staff_link
):
    demo_seed()
    response = client.post(
        reverse("login"), {"username": username, "password": DEMO_LOGINS[username]}, follow=True
    )
    assert response.redirect_chain[-1][0] == reverse("dashboard")
    body = response.content.decode()
    assert ('data-nav="member"' in body) is member_link
    assert body.count('data-nav="club-admin"') == admin_links
    assert ('data-nav="staff"' in body) is staff_link


@pytest.mark.django_db
def test_club_dashboard_only_for_its_admins(client, member_user, club_admin, other_club):
    admin, _, club = club_admin
    member, _, _ = member_user
    url = reverse("clubs:dashboard", args=[club.slug])
    assert client.get(url).status_code == 302  # anonymous: to the login page
    client.force_login(member)
    assert client.get(url).status_code == 403
    client.force_login(admin)
    assert client.get(url).status_code == 200
    assert client.get(reverse("clubs:dashboard", args=[other_club.slug])).status_code == 403


@pytest.mark.django_db
def test_demo_seed_is_idempotent():
    first = demo_seed()
    second = demo_seed()
    assert first == second == {"clubs": 2, "members": 60}
    assert Member.objects.count() == 60
    demo_member = Member.objects.get(user__username="demo-member")
    assert demo_member.club_roles.count() == 2


@pytest.mark.django_db
def test_logout_is_a_post_and_ends_the_session(client, member_user):
    user, _, _ = member_user
    client.force_login(user)
    response = client.post(reverse("logout"))
    assert response.status_code == 302 and response.url == reverse("home")
    assert client.get(reverse("dashboard")).status_code == 302


@pytest.mark.django_db
def test_api_schema_and_docs_are_served(client):
    assert client.get(reverse("schema")).status_code == 200
    docs = client.get(reverse("api-docs"))
    assert docs.status_code == 200
    # Offline: every asset from this server (not "cdn" in the text: the page's random CSRF
    # token can spell it).
    assets = re.findall(r'(?:src|href)="([^"]*)"', docs.content.decode())
    assert assets and all(url.startswith("/static/") for url in assets), assets
