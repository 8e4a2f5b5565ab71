"""Sessions that survive the cache's outage (issue 32 item 7: with Redis unreachable a
correct-password login, every signed-in page and logout answered 500, since the sessions were
read from the cache first and the cache's errors were not caught).

Django's ``cached_db`` engine with every cache call guarded: when the cache cannot be reached,
a session is read from and written to the database alone (a warning is logged), so members stay
signed in and can log in and out. A session is kept in the cache for at most
``SESSION_CACHE_SECONDS`` (5 minutes), so a logout whose cache entry could not be deleted during
an outage cannot outlive it by more than that once the cache is back.
"""

from __future__ import annotations

import logging

from django.contrib.sessions.backends import cached_db

log = logging.getLogger(__name__)

SESSION_CACHE_SECONDS = 5 * 60


class _GuardedCache:
    """The calls the session engine makes of its cache, each failing quietly: a read gives
    nothing (the database is asked), a write or delete does nothing."""

    def __init__(self, cache):
        self._cache = cache

    def _failed(self, what: str) -> None:
        log.warning("Sessions: the cache is unreachable (%s); using the database", what)

    def get(self, key, default=None):
        try:
            return self._cache.get(key, default)
        except Exception:
            self._failed("read")
            return default

    def set(self, key, value, timeout=None):
        timeout = SESSION_CACHE_SECONDS if timeout is None else min(timeout, SESSION_CACHE_SECONDS)
        try:
            self._cache.set(key, value, timeout)
        except Exception:
            self._failed("write")

    def delete(self, key):
        try:
            return self._cache.delete(key)
        except Exception:
            self._failed("delete")
            return False

    def __contains__(self, key):
        try:
            return key in self._cache
        except Exception:
            self._failed("read")
            return False

    async def aget(self, key, default=None):
        try:
            return await self._cache.aget(key, default)
        except Exception:
            self._failed("read")
            return default

    async def aset(self, key, value, timeout=None):
        timeout = SESSION_CACHE_SECONDS if timeout is None else min(timeout, SESSION_CACHE_SECONDS)
        try:
            await self._cache.aset(key, value, timeout)
        except Exception:
            self._failed("write")

    async def adelete(self, key):
        try:
            return await self._cache.adelete(key)
        except Exception:
            self._failed("delete")
            return False

    async def ahas_key(self, key):
        try:
            return await self._cache.ahas_key(key)
        except Exception:
            self._failed("read")
            return False

    def __str__(self) -> str:
        return str(self._cache)


class SessionStore(cached_db.SessionStore):
    """``cached_db`` whose cache may be down (``SESSION_ENGINE = "grading.common.sessions"``)."""

    def __init__(self, session_key=None):
        super().__init__(session_key)
        self._cache = _GuardedCache(self._cache)
