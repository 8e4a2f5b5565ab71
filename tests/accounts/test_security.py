"""Logins and staff (issue 21 item 5): the admin cannot link a login to a member, API tokens
are not readable in the admin, demo staff is not a superuser, and answers carrying a member's
own grade are never stored by a cache."""

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.urls import reverse
from rest_framework.authtoken.models import Token

from grading.models import AuditEvent
from grading.site.demo import demo_seed
from members.accounts.tokens import api_token_create, token_key_digest
from tests.factories import ClubRoleFactory, MemberFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client):
    user = UserFactory(username="boss", is_staff=True, is_superuser=True)
    client.force_login(user)
    return user


def test_staff_cannot_link_their_login_to_a_member_in_the_admin(client, staff):
    """Found by the hostile tester: staff linked their own login to a member with a private
    grade in the admin and read it."""
    member = MemberFactory(grade_private=True)
    url = reverse("admin:members_member_change", args=[member.pk])
    page = client.get(url).content.decode()
    assert 'name="user"' not in page
    client.post(
        url, {"national_number": member.national_number, "name": member.name, "user": staff.pk}
    )
    member.refresh_from_db()
    assert member.user is None


def test_the_admin_shows_the_link_read_only(client, staff):
    member = MemberFactory(user=UserFactory(username="linked-login"))
    page = client.get(reverse("admin:members_member_change", args=[member.pk])).content.decode()
    assert "linked-login" in page and 'name="user"' not in page


def test_api_tokens_are_not_shown_in_the_admin(client, staff):
    """Found by the hostile tester: tokens in plain text at /admin/authtoken/."""
    owner = UserFactory(username="uploader")
    token = Token.objects.create(user=owner)
    for url in (
        reverse("admin:authtoken_tokenproxy_changelist"),
        reverse("admin:authtoken_tokenproxy_change", args=[owner.pk]),
        reverse("admin:authtoken_tokenproxy_delete", args=[owner.pk]),
    ):
        page = client.get(url, follow=True)
        assert page.status_code == 200
        assert token.key not in page.content.decode(), url
    assert (
        "uploader" in client.get(reverse("admin:authtoken_tokenproxy_changelist")).content.decode()
    )


def test_staff_cannot_create_a_token_for_another_user(client, staff):
    """Issue 32 item 1 (S14.25): staff made a token for any login at
    /admin/authtoken/tokenproxy/add/, saw its key, and read that member's private grade through
    /api/v1/me/. The add page is refused, a post to it makes nothing, and no key is shown."""
    owner = UserFactory(username="victim")
    MemberFactory(user=owner, grade_private=True)
    add = reverse("admin:authtoken_tokenproxy_add")
    page = client.get(add)
    assert page.status_code == 403
    assert "victim" not in page.content.decode()
    response = client.post(add, {"user": owner.pk}, follow=True)
    assert response.status_code == 403
    assert not Token.objects.exists()
    changelist = client.get(reverse("admin:authtoken_tokenproxy_changelist")).content.decode()
    assert add not in changelist  # no "Add" button


def test_a_member_makes_their_own_token_shown_once_and_stored_as_a_digest(client, db):
    from rest_framework.test import APIClient

    from grading.models import AuditEvent

    user = UserFactory(username="owner")
    ClubRoleFactory(member=MemberFactory(user=user))
    client.force_login(user)
    url = reverse("accounts:api-token")
    assert "You have no token" in client.get(url).content.decode()
    made = client.post(url, {"action": "create"}).content.decode()
    stored = Token.objects.get(user=user)
    key = made.split('data-testid="new-token"')[1].split("<code>")[1].split("</code>")[0]
    assert len(key) >= 40 and stored.key != key  # only the digest is kept
    assert key not in client.get(url).content.decode()  # shown once
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get(reverse("members:api-card")).status_code == 200
    api.credentials(HTTP_AUTHORIZATION=f"Token {stored.key}")  # the stored digest is no key
    assert api.get(reverse("members:api-card")).status_code in {401, 403}
    client.post(url, {"action": "revoke"})
    assert not Token.objects.exists()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get(reverse("members:api-card")).status_code in {401, 403}
    events = AuditEvent.objects.filter(subject="API token of owner").order_by("pk")
    assert [(e.action, e.actor) for e in events] == [
        (AuditEvent.Action.TOKEN_CREATE, "owner"),
        (AuditEvent.Action.TOKEN_REVOKE, "owner"),
    ]


def test_a_new_token_replaces_the_old_one(client, db):
    user = UserFactory()
    first = api_token_create(user=user)
    second = api_token_create(user=user)
    assert first != second
    assert list(Token.objects.values_list("key", flat=True)) == [token_key_digest(second)]


def test_a_token_can_be_deleted_without_showing_it(client, staff):
    owner = UserFactory(username="uploader")
    token = Token.objects.create(user=owner)
    response = client.post(
        reverse("admin:authtoken_tokenproxy_delete", args=[owner.pk]), {"post": "yes"}, follow=True
    )
    assert token.key not in response.content.decode()
    assert not Token.objects.exists()
    assert not LogEntry.objects.filter(object_repr__contains=token.key).exists()
    revoked = AuditEvent.objects.get(action=AuditEvent.Action.TOKEN_REVOKE)
    assert (revoked.actor, revoked.subject) == ("boss", "API token of uploader")


def test_demo_staff_is_staff_not_superuser(client):
    demo_seed()
    user = get_user_model().objects.get(username="demo-staff")
    assert user.is_staff and not user.is_superuser
    client.force_login(user)
    assert client.get(reverse("staff-parameters")).status_code == 200
    assert client.get(reverse("admin:members_member_changelist")).status_code == 200
    assert client.get(reverse("admin:auth_user_changelist")).status_code == 403


def test_demo_logins_are_linked_through_the_audited_flow(db):
    from grading.models import AuditEvent

    demo_seed()
    demo_seed()  # again: nothing new
    linked = AuditEvent.objects.filter(action=AuditEvent.Action.LOGIN_LINK)
    assert sorted(e.details["username"] for e in linked) == ["demo-admin", "demo-member"]


@pytest.fixture
def member_login(client):
    user = UserFactory()
    ClubRoleFactory(member=MemberFactory(user=user))
    client.force_login(user)
    return user


@pytest.mark.parametrize(
    "name", ["members:card", "members:sessions", "members:privacy", "dashboard", "members:api-card"]
)
def test_pages_with_the_members_own_grade_are_not_stored(client, member_login, name):
    response = client.get(reverse(name))
    assert response.status_code == 200
    directives = {d.strip() for d in response["Cache-Control"].split(",")}
    assert {"private", "no-store"} <= directives


def test_an_api_answer_by_token_is_not_stored(client, db):
    from rest_framework.test import APIClient

    user = UserFactory()
    ClubRoleFactory(member=MemberFactory(user=user))
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {api_token_create(user=user)}")
    response = api.get(reverse("members:api-card"))
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"] and "private" in response["Cache-Control"]


def test_public_pages_for_visitors_stay_cacheable(client, db):
    response = client.get(reverse("members:top"))
    assert "no-store" not in response.get("Cache-Control", "")
