"""The member's rows read once for both their pages (``members.selectors.digest``, issue 31
item 3): what the card and the history work out from them is what the queries they replace
gave, for every member of the world (a correction, a late upload and a session not graded
among their sessions), and the second page reads none of them."""

import datetime as dt

import pytest
from django.core.cache import cache
from django.template.defaultfilters import floatformat
from hypothesis import given, settings
from hypothesis import strategies as st

from grading.models import SessionGrade
from members.selectors import digest
from members.selectors import history as histories
from members.templatetags.figures import two_places
from tests.members.conftest import url


def _members(graded):
    p = graded.people
    numbers = [p.me, p.partner, p.private, p.public, *p.newcomers, *p.others]
    return [graded.member(number) for number in numbers]


def _graded_by_query(member):
    """What ``live_graded`` read before: the member's live graded rows, by date and ledger."""
    rows = (
        SessionGrade.objects.filter(member=member, live=True, session_grade__isnull=False)
        .order_by("date", "entry__seq")
        .values_list(
            "pk",
            "entry__seq",
            "date",
            "boards",
            "session_grade",
            "factor",
            "version__session__event__name",
            "version__session__event__club__name",
        )
    )
    return [histories.LiveGraded(*row) for row in rows]


def _choices_by_query(member):
    """What ``history_choices`` read before: over the history's own rows."""
    clubs, partners, years = set(), set(), set()
    for club_id, club, partner_id, partner, date in (
        histories.history_rows(member=member)
        .order_by()
        .values_list(
            "version__session__event__club_id",
            "version__session__event__club__name",
            "partner_id",
            "partner__name",
            "date",
        )
    ):
        clubs.add((club_id, club))
        if partner_id:
            partners.add((partner_id, partner))
        years.add(date.year)
    return histories.HistoryChoices(
        sorted(clubs, key=lambda c: c[1]),
        sorted(partners, key=lambda p: p[1]),
        sorted(years, reverse=True),
    )


def test_the_live_graded_sessions_are_the_querys(graded):
    checked = 0
    for member in _members(graded):
        cache.clear()
        assert histories.live_graded(member=member) == _graded_by_query(member)
        checked += bool(_graded_by_query(member))
    assert checked >= 5


def test_the_filters_choices_are_the_querys(graded):
    for member in _members(graded):
        assert histories.history_choices(member=member) == _choices_by_query(member)
    mine = histories.history_choices(member=graded.me)
    assert mine.clubs and mine.partners and mine.years


def test_each_filters_count_is_the_querys(graded):
    """The history's page count, for no filter and for each club, partner and year, with the
    withdrawn version of the correction and the session not graded among the rows."""
    member = graded.me
    choices = histories.history_choices(member=member)
    filters = [histories.HistoryFilters()]
    filters += [histories.HistoryFilters(club=c) for c, _ in choices.clubs]
    filters += [histories.HistoryFilters(partner=p) for p, _ in choices.partners]
    filters += [histories.HistoryFilters(year=y) for y in choices.years]
    filters.append(histories.HistoryFilters(choices.clubs[0][0], choices.partners[0][0]))
    filters.append(histories.HistoryFilters(year=1999))
    for chosen in filters:
        rows = histories.history_filtered(member=member, filters=chosen)
        counted = histories.history_counted(member=member, filters=chosen, rows=rows)
        assert counted.count() == rows.count()
        assert list(counted[0:5]) == list(rows[0:5])
    withdrawn = SessionGrade.objects.filter(member=member, live=False).count()
    assert withdrawn and SessionGrade.objects.filter(member=member).count() > rows.count()


def test_the_members_rows_are_read_by_the_compiled_query_as_the_orm_reads_them(graded):
    """Compiled once per connection with the member as its one parameter (not the ORM's
    compilation on every cold page), and giving the ORM's rows."""
    member = graded.me
    rows = digest._rows_of(member.pk)
    assert rows and sorted(rows) == sorted(digest._rows_query(member.pk))
    assert digest._rows_of._compiled()[1] is not None


def test_the_card_and_the_history_read_the_members_rows_once(me_client, graded, monkeypatch):
    reads = []
    read = digest._rows_of
    monkeypatch.setattr(digest, "_rows_of", lambda *a: reads.append(a) or read(*a))
    cache.clear()
    assert me_client.get(url("card")).status_code == 200
    assert me_client.get(url("sessions")).status_code == 200
    assert me_client.get(url("sessions") + "?page=2").status_code == 200
    assert len(reads) == 1
    cache.clear()
    assert me_client.get(url("sessions")).status_code == 200
    assert len(reads) == 2


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(-(10**30), 10**30),
        st.integers(0, 100_000).map(lambda n: n / 1000),
        st.sampled_from([None, True, False, "", "n/a", dt.date(2026, 1, 1), -0.0, 1e27]),
    )
)
def test_two_places_is_floatformat_2(value):
    assert two_places(value) == floatformat(value, 2)


@pytest.mark.parametrize("value", [0.005, 0.015, 2.675, 12.345, -0.004, 1e-7])
def test_two_places_rounds_halves_as_floatformat(value):
    assert two_places(value) == floatformat(value, 2)
