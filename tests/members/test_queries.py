"""No N+1: each list page costs a bounded number of queries, whatever the history's size."""

import datetime as dt

import pytest
from django.utils import timezone

from clubs.services import exemption_request_create, planned_session_create
from tests.members.conftest import url


@pytest.mark.parametrize(
    "name, limit",
    [
        ("sessions", 14),
        ("sessions-csv", 12),
        ("partners", 12),
        ("api-sessions", 14),
        # card: +4 for the PPI and Brambledown cards (constant, not per row)
        ("api-partners", 10),
        ("card", 16),
        ("api-card", 10),
        ("forecast", 16),
    ],
)
def test_member_list_pages(me_client, graded, django_assert_max_num_queries, name, limit):
    with django_assert_max_num_queries(limit):
        assert me_client.get(url(name)).status_code == 200


@pytest.mark.parametrize(
    "name, limit", [("top", 6), ("api-top", 4), ("bands", 8), ("api-bands", 6)]
)
def test_public_list_pages(client, graded, django_assert_max_num_queries, name, limit):
    with django_assert_max_num_queries(limit):
        assert client.get(url(name)).status_code == 200


def test_explain_page(me_client, graded, django_assert_max_num_queries):
    grade = graded.me.session_grades.filter(date="2026-06-22").get()
    with django_assert_max_num_queries(16):
        assert me_client.get(url("explain", grade.version.session_id)).status_code == 200


def test_host_exemption_page(me_client, graded, django_assert_max_num_queries):
    for day in range(1, 6):
        planned = planned_session_create(
            club=graded.riverside,
            event_name=f"Night {day}",
            start=dt.time(19, 30),
            date=timezone.localdate() + dt.timedelta(days=day),
        )
        exemption_request_create(
            member=graded.me,
            partner=graded.member(graded.people.partner),
            planned_session=planned,
            now=timezone.now(),
        )
    with django_assert_max_num_queries(14):
        body = me_client.get(url("host-exemption")).content.decode()
    assert body.count('data-testid="request"') == 5
