"""What the bench's burst pass will find warm (``grading.lab.bench_setup.pages_kept_count``):
the grade cards and first history pages the page cache holds under the members' current keys,
counted before the pass, so a slow burst says whether its pages were rendered ahead or not
(docs/benchmarks.md, session 16)."""

import pytest

from grading.common.stale import member_pages_invalidate
from grading.lab.bench_setup import pages_kept_count
from members import pagecache
from tests.factories import MemberFactory, UserFactory


@pytest.mark.django_db
def test_the_pages_kept_are_counted_under_the_members_current_keys():
    warm, cold = MemberFactory(user=UserFactory()), MemberFactory(user=UserFactory())
    numbers = [warm.national_number, cold.national_number]
    pagecache.member_page_content(member=warm, page="card", build=lambda: "card")
    pagecache.member_page_content(member=warm, page="sessions", build=lambda: "history")
    pagecache.member_page_content(member=cold, page="card", build=lambda: "card")

    assert pages_kept_count(numbers) == {"members": 2, "card": 2, "sessions": 1}

    member_pages_invalidate(member_ids=[warm.pk])  # a later write: its pages are out of date
    assert pages_kept_count(numbers) == {"members": 2, "card": 1, "sessions": 0}
