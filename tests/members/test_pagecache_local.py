"""Each web process keeps a copy of the kept pages it served last (members/pagecache.py), in
front of the shared cache: the same content for the same key, gone when the shared copy's time
is up, within a bounded memory, and none at all where the cache is the process's own already."""

import pytest
from django.core.cache import cache

from members import pagecache


class SharedCache:
    """The shared cache (Redis in production) as the module sees it, counting reads."""

    def __init__(self):
        self.kept, self.reads = {}, 0

    def get(self, key):
        self.reads += 1
        return self.kept.get(key)

    def set(self, key, value, timeout):
        self.kept[key] = value


@pytest.fixture
def shared(monkeypatch):
    fake = SharedCache()
    monkeypatch.setattr(pagecache, "cache", fake)
    monkeypatch.setattr(pagecache, "_local_wanted", lambda: pagecache.LOCAL_BYTES > 0)
    pagecache.local_clear()
    yield fake
    pagecache.local_clear()


@pytest.fixture
def clock(monkeypatch):
    now = [1_000_000.0]
    monkeypatch.setattr(pagecache.time, "time", lambda: now[0])
    return now


def test_a_second_request_does_not_ask_the_shared_cache(shared, clock):
    built = []
    page = pagecache._kept_content("k", lambda: built.append(1) or "<p>page</p>")
    again = pagecache._kept_content("k", lambda: built.append(1) or "<p>other</p>")
    assert page == again == "<p>page</p>" and built == [1]
    assert shared.reads == 1  # the first request's miss only


def test_another_process_takes_its_copy_from_the_shared_cache(shared, clock):
    pagecache._kept_content("k", lambda: "<p>page</p>")
    pagecache.local_clear()  # another process: nothing of its own yet
    assert pagecache._kept_content("k", lambda: "<p>rebuilt</p>") == "<p>page</p>"
    assert pagecache._kept_content("k", lambda: "<p>rebuilt</p>") == "<p>page</p>"
    assert shared.reads == 2


def test_the_copy_expires_with_the_shared_one(shared, clock):
    pagecache._kept_content("k", lambda: "<p>page</p>")
    clock[0] += pagecache.TTL_SECONDS - 60
    pagecache.local_clear()  # another process, an hour less a minute after it was built...
    assert pagecache._kept_content("k", lambda: "<p>new</p>") == "<p>page</p>"
    clock[0] += 61  # ...keeps its copy no longer than the shared cache keeps its own
    shared.kept.clear()
    assert pagecache._kept_content("k", lambda: "<p>new</p>") == "<p>new</p>"


def test_memory_is_bounded_oldest_out_first(shared, clock, monkeypatch):
    monkeypatch.setattr(pagecache, "LOCAL_BYTES", 1000)
    for n in range(10):
        pagecache._kept_content(f"k{n}", lambda n=n: str(n) * 120)
    assert pagecache._local_size <= 1000
    assert "k9" in pagecache._local and "k0" not in pagecache._local
    pagecache._kept_content("k9", lambda: "x")  # a hit moves it to the young end
    assert list(pagecache._local)[-1] == "k9"


def test_values_are_kept_too(shared, clock):
    """The chart's points (``member_page_value``) go through the same two levels."""
    pagecache._cache_set("v", [1.5, 2.5])
    assert pagecache._cache_get("v") == [1.5, 2.5] and shared.reads == 0


def test_no_copy_where_the_cache_is_the_processs_own(db):
    """Development and tests: LocMemCache already lives in the process."""
    assert not pagecache._local_wanted()
    pagecache._cache_set("own", "<p>page</p>")
    assert "own" not in pagecache._local
    assert cache.get("own")[1] == "<p>page</p>"
