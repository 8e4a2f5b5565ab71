"""The member's own grade card and session history, kept rendered per member and version.

Rendering them reads every graded session the member played, yet they change only when the
member's grades do. The rendered content is kept under the member's ``pages_version``, which
every write that changes what these pages show bumps in its own transaction
(``grading.common.stale.member_pages_invalidate``: grading and withdrawing a session, refolds, the
nightly refresh, PPI and Brambledown updates, a privacy change), and under today's date (PPI
and Brambledown figures are as of today). The version is read with the member, so a cached
page costs no extra query, and every web process sees a bump at once, whatever the cache.
Values the pages are built from and that cost a recomputation (the grade chart's as-of
points, the member's rows both pages are worked out from) are kept the same way
(``member_page_value``), so the API reads them too. The page
around the content (navigation, messages, the log-out form's CSRF token) is
rendered for each request. A cache that is down only means rendering every time.

A club's grade list is kept the same way under the club's ``pages_version``
(``grading.common.stale.club_pages_invalidate``, called by ``member_pages_invalidate`` for the clubs
of every member it bumps, and by every change of a club's members or roles). Its content is
rendered without the request, so nothing in it can depend on who asks: who may see it at all
is decided before (``clubs.views.administered_club``), and what each row shows by
``grading.privacy`` for every viewer alike (S7).
"""

import hashlib
import logging
import pickle
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import TypeVar

from django.conf import settings
from django.core.cache import cache, caches
from django.core.cache.backends.locmem import LocMemCache
from django.http import QueryDict
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from members.models import Member

log = logging.getLogger(__name__)
T = TypeVar("T")

# A safety net for writes that do not go through a service (a club renamed in the admin).
TTL_SECONDS = 3600
# Only the unfiltered history and its pages are kept, so the pages one member can make the
# cache hold are as many as their history has pages (and the cache's other keys, such as
# login-throttling counts, are not pushed out); filtered views render every time.
CACHEABLE_QUERY = re.compile(r"(page=[1-9][0-9]{0,4})?")
_SOURCES = ("templates/**/*.html", "members/**/*.py", "clubs/**/*.py", "grading/**/*.py")
# A query string longer than this is never a page's own link: rendered every time.
LONGEST_KEPT_QUERY = 200


def _code_digest() -> str:
    """Changes when a deployment changes the templates or the code that fills them, so no page
    kept by the old code is served by the new."""
    digest = hashlib.sha256()
    base = Path(settings.BASE_DIR)
    for path in sorted(p for pattern in _SOURCES for p in base.glob(pattern)):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


_DIGEST = _code_digest()


def _digest() -> str:
    # runserver does not restart when a template changes: read them afresh in development.
    return _code_digest() if settings.DEBUG else _DIGEST


def cacheable_query(query_string: str) -> str | None:
    """The query string as part of a cache key (empty, or ``page=N``), or None when the page
    is rendered every time."""
    return query_string if CACHEABLE_QUERY.fullmatch(query_string) else None


def choice_query(query_string: str, choices: Mapping[str, Collection[str]]) -> str | None:
    """The query string as part of a cache key when each of its fields is one of ``choices``'
    names, given once, with one of that name's values; None (rendered every time) otherwise.
    So the pages of one key the cache can hold are bounded by the choices, whatever is asked."""
    if len(query_string) > LONGEST_KEPT_QUERY:
        return None
    fields = QueryDict(query_string)
    for name, values in fields.lists():
        if name not in choices or len(values) != 1 or values[0] not in choices[name]:
            return None
    return query_string


def _key(kind: str, pk: int, version: int, page: str, variant: str) -> str:
    variant_digest = hashlib.sha256(variant.encode()).hexdigest()[:16]
    return (
        f"{kind}:{_digest()}:{pk}:{version}:{timezone.localdate().isoformat()}:{page}:"
        f"{variant_digest}"
    )


def page_key(*, member: Member, page: str, variant: str) -> str:
    return _key("member-page", member.pk, member.pages_version, page, variant)


def _kept_content(key: str | None, build: Callable[[], str]) -> SafeString:
    if key is None:
        return mark_safe(build())  # noqa: S308 - our own rendered template
    content = _cache_get(key)
    if content is None:
        content = str(build())
        _cache_set(key, content)
    return mark_safe(content)  # noqa: S308 - our own rendered template, kept as a string


def member_page_content(
    *, member: Member, page: str, build: Callable[[], str], variant: str | None = ""
) -> SafeString:
    """The page's content from the cache, or ``build()`` kept for next time. ``variant``
    None: not cacheable (built every time)."""
    key = None if variant is None else page_key(member=member, page=page, variant=variant)
    return _kept_content(key, build)


def club_page_content(*, club, page: str, build: Callable[[], str], variant: str | None = ""):
    """A club page's content (``build()`` renders it without the request), kept under the
    club's ``pages_version`` and slug (its links); ``variant`` None: built every time."""
    key = None
    if variant is not None:
        key = _key("club-page", club.pk, club.pages_version, page, f"{club.slug}?{variant}")
    return _kept_content(key, build)


def member_page_kept(*, member: Member, page: str, variant: str = "") -> bool:
    """Whether the member's page is kept under its current key (what a request for it now
    would be served without rendering)."""
    return _cache_get(page_key(member=member, page=page, variant=variant)) is not None


def member_page_value(*, member: Member, page: str, build: Callable[[], T]) -> T:
    """A value the member's pages are built from (the grade chart's as-of points), kept under
    the same key as the pages: a new ``pages_version`` or a new day builds it afresh."""
    key = page_key(member=member, page=page, variant="value")
    value = _cache_get(key)
    if value is None:
        value = build()
        _cache_set(key, value)
    return value


# Each process keeps a copy of the contents it served last in its own memory, in front of the
# shared cache (Redis), and a warm page then costs no round trip to it. A key names everything
# its content depends on, so the copy is as good as the shared one, and it expires when the
# shared one does (TTL_SECONDS after it was built). With a cache in the process's own memory
# already (LocMemCache: development, tests) there is nothing to gain and no copy is kept.
LOCAL_BYTES = 48 * 1024 * 1024
_local: OrderedDict[str, tuple[float, object, int]] = OrderedDict()
_local_size = 0
_local_lock = threading.Lock()


def _local_wanted() -> bool:
    return LOCAL_BYTES > 0 and not isinstance(caches["default"], LocMemCache)


def _local_get(key: str, now: float):
    global _local_size
    with _local_lock:
        kept = _local.get(key)
        if kept is None:
            return None
        if kept[0] <= now:
            _local_size -= _local.pop(key)[2]
            return None
        _local.move_to_end(key)
        return kept[1]


def _local_put(key: str, expires: float, value) -> None:
    global _local_size
    size = len(value) if isinstance(value, str) else len(pickle.dumps(value, protocol=-1))
    if size > LOCAL_BYTES // 8:
        return
    with _local_lock:
        if key in _local:
            _local_size -= _local.pop(key)[2]
        _local[key] = (expires, value, size)
        _local_size += size
        while _local_size > LOCAL_BYTES:
            _local_size -= _local.popitem(last=False)[1][2]


def local_clear() -> None:
    global _local_size
    with _local_lock:
        _local.clear()
        _local_size = 0


def _cache_get(key: str):
    now = time.time()
    local = _local_wanted()
    if local and (value := _local_get(key, now)) is not None:
        return value
    try:
        kept = cache.get(key)
    except Exception:  # a cache that is down (Redis restarting) is no reason to fail a page
        log.warning("member page cache unavailable", exc_info=True)
        return None
    if not isinstance(kept, tuple):  # nothing kept (or a value kept by other code)
        return None
    built, value = kept
    if local and built + TTL_SECONDS > now:
        _local_put(key, built + TTL_SECONDS, value)
    return value


def _cache_set(key: str, content) -> None:
    built = time.time()
    if _local_wanted():
        _local_put(key, built + TTL_SECONDS, content)
    try:
        cache.set(key, (built, content), TTL_SECONDS)
    except Exception:
        log.warning("member page cache unavailable", exc_info=True)
