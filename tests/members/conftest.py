"""A graded world for the member pages, built once per test module through the real upload
pipeline, inside a transaction rolled back when the module ends; each test runs in a savepoint
of it (pytest-django's ``db``), so tests see it fresh and may change it freely."""

import pytest
from django.db import transaction
from django.test import TestCase
from django.urls import reverse

from members.models import Member
from tests.factories import ClubFactory, ClubRoleFactory, MemberFactory, UserFactory
from tests.members import world


def _send(club, data: bytes, name: str):
    from grading.models import Upload
    from grading.uploads.services import upload_create

    with TestCase.captureOnCommitCallbacks(execute=True):
        upload = upload_create(club=club, filename=name, data=data)
    upload.refresh_from_db()
    assert upload.status == Upload.Status.GRADED, (upload.problems, upload.summary)
    return upload


@pytest.fixture
def sender(db):
    return _send


class World:
    """The graded history of ``tests/members/world.py`` with logins for each viewpoint."""

    def __init__(self, ids: dict):
        from django.contrib.auth import get_user_model

        from clubs.models import Club

        users = get_user_model().objects
        self.people = world.People.numbered(2001)
        self.riverside = Club.objects.get(slug="riverside")
        self.hilltop = Club.objects.get(slug="hilltop")
        self.me = self.member(self.people.me)
        self.private = self.member(self.people.private)
        self.me_user = users.get(username="me")
        self.private_user = users.get(username="private")
        self.other_user = users.get(username="other")
        self.admin_user = users.get(username="admin")
        self.other = Member.objects.get(user=self.other_user)

    @staticmethod
    def member(number: str) -> Member:
        return Member.objects.get(national_number=number)


def _build() -> None:
    riverside = ClubFactory(slug="riverside", national_number="1101", name="Riverside")
    hilltop = ClubFactory(slug="hilltop", national_number="1102", name="Hilltop")
    people = world.People.numbered(2001)
    world.build(_send, riverside, hilltop, people)
    me = Member.objects.get(national_number=people.me)
    me.user = UserFactory(username="me")
    me.save()
    private = Member.objects.get(national_number=people.private)
    private.user = UserFactory(username="private")
    private.grade_private = True
    private.save()
    ClubRoleFactory(member=MemberFactory(user=UserFactory(username="other")), club=riverside)
    admin = MemberFactory(user=UserFactory(username="admin"))
    ClubRoleFactory(member=admin, club=riverside, role="admin")
    ClubRoleFactory(member=admin, club=hilltop, role="admin")


@pytest.fixture(scope="module")
def _world(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            _build()
            yield {}
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


@pytest.fixture
def graded(_world, db):
    return World(_world)


@pytest.fixture
def me_client(client, graded):
    client.force_login(graded.me_user)
    return client


def url(name, *args):
    return reverse(f"members:{name}", args=args)
