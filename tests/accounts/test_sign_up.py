"""Sign-up (issue 19 item 1): a member gives their number, name and email; nothing is linked
until an administrator of one of their clubs approves, and then only the mailbox they gave
receives the link. Knowing someone's number is not enough to reach their record."""

import pytest
from django.core import mail
from django.urls import reverse

from grading.models import AuditEvent
from members.models import Invitation, SignUpRequest
from tests.accounts.conftest import last_email, link_in
from tests.factories import ClubRoleFactory, MemberFactory, UserFactory

pytestmark = pytest.mark.django_db


def sign_up(client, number="700001", name="Maud Player", email="maud@example.org", **kwargs):
    return client.post(
        reverse("accounts:sign-up"), {"number": number, "name": name, "email": email}, **kwargs
    )


def decide(client, club, sign_up_pk, decision):
    return client.post(
        reverse("club_members:decide", args=[club.slug, sign_up_pk]), {"decision": decision}
    )


def test_sign_up_then_approval_then_login(
    client, club_with_admin, django_capture_on_commit_callbacks
):
    club, admin_user, member = club_with_admin
    assert sign_up(client).status_code == 302
    request = SignUpRequest.objects.get()
    member.refresh_from_db()
    assert member.user is None and not mail.outbox  # nothing linked, nothing sent yet

    client.force_login(admin_user)
    page = client.get(reverse("club_members:members", args=[club.slug])).content.decode()
    assert "maud@example.org" in page and "Maud Player" in page
    with django_capture_on_commit_callbacks(execute=True):
        assert decide(client, club, request.pk, "approve").status_code == 302
    message = last_email()
    assert message.to == ["maud@example.org"]
    client.logout()
    link = link_in(message)
    client.post(
        link, {"username": "maud", "password1": "pass-phrase-99x", "password2": "pass-phrase-99x"}
    )
    member.refresh_from_db()
    assert member.user.username == "maud"
    hows = list(AuditEvent.objects.order_by("pk").values_list("details__how", flat=True))
    assert hows == ["sign-up approved", "invitation accepted"]


def test_knowing_a_number_is_not_enough(
    client, club_with_admin, django_capture_on_commit_callbacks
):
    """An impostor's request is declined; even an approved one sends the link only to the
    address given, and the record stays unlinked until that link is followed."""
    club, admin_user, member = club_with_admin
    sign_up(client, name="Someone Else", email="impostor@example.org")
    request = SignUpRequest.objects.get()
    client.force_login(admin_user)
    with django_capture_on_commit_callbacks(execute=True):
        decide(client, club, request.pk, "decline")
    request.refresh_from_db()
    member.refresh_from_db()
    assert request.status == "declined" and member.user is None
    assert not mail.outbox and not Invitation.objects.exists()
    assert AuditEvent.objects.get().details["how"] == "sign-up declined"


def test_only_an_administrator_of_one_of_the_members_clubs_decides(client, club_with_admin):
    club, admin_user, member = club_with_admin
    sign_up(client)
    request = SignUpRequest.objects.get()
    stranger_admin = UserFactory()
    other = ClubRoleFactory(member=MemberFactory(user=stranger_admin), role="admin").club
    client.force_login(stranger_admin)
    assert decide(client, other, request.pk, "approve").status_code == 404
    assert (
        "maud@example.org"
        not in client.get(reverse("club_members:members", args=[other.slug])).content.decode()
    )
    # An ordinary member with a login cannot open the page at all.
    plain = UserFactory()
    ClubRoleFactory(club=club, member=MemberFactory(user=plain))
    client.force_login(plain)
    assert decide(client, club, request.pk, "approve").status_code == 403
    request.refresh_from_db()
    assert request.status == "waiting"


def test_sign_up_answers_the_same_whatever_the_number(client, club_with_admin):
    """Issue 32 item 10: the messages "no such member", "already has a login" and "no club"
    told anyone which numbers exist, have a login, or are on a club's list. Every request now
    gets the same answer; only a number a club can confirm makes a request."""
    _, _, member = club_with_admin
    MemberFactory(national_number="700050")  # known, but on no club's list
    with_login = MemberFactory(national_number="700060", user=UserFactory())
    ClubRoleFactory(member=with_login, club=club_with_admin[0])
    answers = {}
    for number in (member.national_number, "999999", "700050", "700060"):
        response = sign_up(client, number=number, follow=True)
        chain = tuple(response.redirect_chain)
        answers[number] = (response.status_code, chain, strip_csrf(response))
    assert len(set(answers.values())) == 1, answers.keys()
    assert SignUpRequest.objects.get().member == member


def strip_csrf(response) -> str:
    import re

    return re.sub(r'value="[^"]+"', "", response.content.decode())


def test_the_same_request_twice_is_one_request(client, club_with_admin):
    sign_up(client)
    sign_up(client)
    assert SignUpRequest.objects.count() == 1


def test_an_answered_request_cannot_be_answered_again(client, club_with_admin):
    club, admin_user, _ = club_with_admin
    sign_up(client)
    request = SignUpRequest.objects.get()
    client.force_login(admin_user)
    decide(client, club, request.pk, "decline")
    response = decide(client, club, request.pk, "approve")
    assert response.status_code == 302
    request.refresh_from_db()
    assert request.status == "declined" and not Invitation.objects.exists()


def test_one_connection_cannot_flood_the_clubs_with_requests(client, club_with_admin):
    for i in range(5):
        sign_up(client, email=f"x{i}@example.org")
    page = sign_up(client, email="x9@example.org")
    assert "Too many requests from this connection" in page.content.decode()
    assert SignUpRequest.objects.count() == 5


def test_a_post_without_a_decision_changes_nothing(client, club_with_admin):
    club, admin_user, _ = club_with_admin
    sign_up(client)
    request = SignUpRequest.objects.get()
    client.force_login(admin_user)
    client.post(reverse("club_members:decide", args=[club.slug, request.pk]), {})
    request.refresh_from_db()
    assert request.status == "waiting"
