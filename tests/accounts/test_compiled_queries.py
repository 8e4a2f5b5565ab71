"""The queries every signed-in page makes, compiled once per process (grading/common/compiled.py,
issue 31 item 3): the user with their membership (members/auth.py) and the clubs a member
administers with their waiting sign-ups (clubs/selectors/access.py) are the instances and
figures the ORM gives, read in one query, and are compiled once, not fallen back to the ORM."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from clubs.selectors.access import _admin_clubs_of, _admin_clubs_query
from grading.common.compiled import CompiledQuery
from members.auth import MemberBackend, _user_with_member, _user_with_member_query
from members.models import SignUpRequest
from tests.factories import ClubRoleFactory, MemberFactory, UserFactory

pytestmark = pytest.mark.django_db


def _fields(obj) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields}


def _people():
    """A club administrator of two clubs (one with two sign-ups waiting, one answered), a
    member without a role, a login without a membership and a staff login."""
    admin = UserFactory()
    member = MemberFactory(user=admin)
    first = ClubRoleFactory(member=member, role="admin").club
    second = ClubRoleFactory(member=member, role="admin").club
    ClubRoleFactory(member=member)  # a third club, as a plain member
    for status in ("waiting", "waiting", "declined"):
        SignUpRequest.objects.create(member=MemberFactory(), club=first, status=status)
    plain = UserFactory()
    ClubRoleFactory(member=MemberFactory(user=plain))
    bare = UserFactory()
    staff = UserFactory(is_staff=True)
    return {"admin": admin, "plain": plain, "bare": bare, "staff": staff}, (first, second)


def test_the_user_read_for_a_page_is_the_one_the_orm_reads():
    people, _ = _people()
    for name, user in people.items():
        expected = _user_with_member_query(user.pk).get()
        with CaptureQueriesContext(connection) as queries:
            got = MemberBackend().get_user(user.pk)
            member = getattr(got, "member", None)  # read with the user
        assert len(queries) == 1, name
        assert _fields(got) == _fields(expected), name
        assert got.administers_a_club == expected.administers_a_club == (name == "admin")
        if hasattr(expected, "member"):
            assert _fields(member) == _fields(expected.member), name
        else:
            assert member is None, name
    assert _user_with_member._compiled()[1] is not None  # compiled, not the ORM every time


def test_an_unknown_or_malformed_user_id_reads_no_user():
    assert MemberBackend().get_user(2_000_000_000) is None
    assert MemberBackend().get_user(2**40) is None  # beyond the column: no row, no error
    assert MemberBackend().get_user("not a number") is None


def test_the_clubs_a_member_administers_are_those_the_orm_reads_with_their_sign_ups():
    people, (first, second) = _people()
    member = people["admin"].member
    expected = list(_admin_clubs_query(member.pk).order_by("pk"))

    got = sorted(_admin_clubs_of(member.pk), key=lambda club: club.pk)

    assert [c.pk for c in got] == [first.pk, second.pk] == [c.pk for c in expected]
    assert [_fields(c) for c in got] == [_fields(c) for c in expected]
    assert [c.sign_ups_waiting for c in got] == [2, 0]
    assert _admin_clubs_of(people["plain"].member.pk) == []
    assert _admin_clubs_of._compiled()[1] is not None


def test_a_marker_the_orm_does_not_pass_as_one_parameter_runs_the_orm_every_time():
    users = get_user_model()._default_manager
    user = UserFactory()
    twice = CompiledQuery(lambda pk: users.filter(pk=pk) | users.filter(pk=pk), markers=[-5])

    assert twice._compiled()[1] is None
    assert [u.pk for u in twice(user.pk)] == [user.pk]


def test_a_values_list_gives_the_orms_tuples_and_other_iterables_run_the_orm():
    users = get_user_model()._default_manager
    made = [UserFactory(), UserFactory(is_staff=True)]
    pks = [u.pk for u in made]
    rows = CompiledQuery(
        lambda pk: users.filter(pk__gte=pk).order_by("pk").values_list("pk", "is_staff"),
        markers=[-6],
    )
    assert rows._compiled()[1] is not None
    assert rows(pks[0]) == list(
        users.filter(pk__gte=pks[0]).order_by("pk").values_list("pk", "is_staff")
    )
    assert rows(pks[0]) == [(pks[0], False), (pks[1], True)]
    flat = CompiledQuery(lambda pk: users.filter(pk=pk).values_list("pk", flat=True), markers=[-7])
    assert flat._compiled()[1] is None  # flat lists are the ORM's own
    assert flat(pks[1]) == [pks[1]]


def _runs_prepared(connection) -> int:
    """How many times the server ran the user's query as a prepared statement (its custom and
    generic plans' counts, PostgreSQL 14 and later), 0 when it is not prepared."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(sum(custom_plans + generic_plans), 0) FROM pg_prepared_statements "
            "WHERE statement LIKE %s",
            ["%administers_a_club%"],
        )
        return cursor.fetchone()[0]


def test_on_postgresql_a_compiled_query_is_a_prepared_statement_still_counted(postgres):
    """Planned once by the server, not at every request; Django still sees (and counts) it."""
    people, _ = _people()
    before = _runs_prepared(postgres)
    with CaptureQueriesContext(postgres) as queries:
        for _ in range(3):
            got = MemberBackend().get_user(people["admin"].pk)
    assert len(queries) == 3 and got.administers_a_club
    assert _runs_prepared(postgres) == before + 3


def test_with_prepared_statements_off_the_same_rows_come_as_text(postgres, monkeypatch):
    """A connection whose ``prepare_threshold`` is None (``DB_PREPARED_STATEMENTS=0``, Django's
    default) runs no prepared statement and reads the same instances."""
    people, _ = _people()
    postgres.ensure_connection()
    monkeypatch.setattr(postgres.connection, "prepare_threshold", None)
    before = _runs_prepared(postgres)
    for name, user in people.items():
        got = MemberBackend().get_user(user.pk)
        assert _fields(got) == _fields(_user_with_member_query(user.pk).get()), name
    assert _runs_prepared(postgres) == before


@pytest.mark.django_db(transaction=True)
def test_a_connection_the_server_closed_is_replaced_before_a_prepared_query(postgres):
    """As at a request's start: Django's health check finds the closed connection and opens
    another, on which the query is prepared again."""
    from django.db import close_old_connections

    from tests.otherconn import other_connection

    user = UserFactory()
    assert MemberBackend().get_user(user.pk).pk == user.pk
    pid = postgres.connection.info.backend_pid
    with other_connection(autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
    close_old_connections()  # what Django does when a request starts
    assert MemberBackend().get_user(user.pk).pk == user.pk
    assert postgres.connection.info.backend_pid != pid
