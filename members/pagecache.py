"""The member's own grade card and session history, kept rendered per member and version.

Rendering them reads every graded session the member played, yet they change only when the
member's grades do. The rendered content is kept under the member's ``pages_version``, which
every write that changes what these pages show bumps in its own transaction
(``members.services.member_pages_invalidate``: grading and withdrawing a session, refolds, the
nightly refresh, PPI and Brambledown updates, a privacy change), and under today's date (PPI
and Brambledown figures are as of today). The version is read with the member, so a cached
page costs no extra query, and every web process sees a bump at once, whatever the cache.
The page around the content (navigation, messages, the log-out form's CSRF token) is
rendered for each request.
"""

import hashlib
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qsl

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from members.models import Member

# A safety net for writes that do not go through a service (a club renamed in the admin).
TTL_SECONDS = 3600
# Only the history's own filters make distinct cached pages; anything else renders uncached,
# so odd query strings cannot fill the cache.
CACHEABLE_QUERY_KEYS = frozenset({"club", "partner", "year", "page"})
MAX_QUERY_LENGTH = 200


def _templates_digest() -> str:
    """Changes when a deployment changes any template, so no page kept with old markup is
    served after it."""
    digest = hashlib.sha256()
    for path in sorted((Path(settings.BASE_DIR) / "templates").rglob("*.html")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


_DIGEST = _templates_digest()


def _digest() -> str:
    # runserver does not restart when a template changes: read them afresh in development.
    return _templates_digest() if settings.DEBUG else _DIGEST


def cacheable_query(query_string: str) -> str | None:
    """The query string as part of a cache key, or None when it should not be cached."""
    if len(query_string) > MAX_QUERY_LENGTH:
        return None
    items = parse_qsl(query_string, keep_blank_values=True)
    if any(key not in CACHEABLE_QUERY_KEYS for key, _ in items):
        return None
    return "&".join(f"{key}={value}" for key, value in sorted(items))


def page_key(*, member: Member, page: str, variant: str) -> str:
    variant_digest = hashlib.sha256(variant.encode()).hexdigest()[:16]
    return (
        f"member-page:{_digest()}:{member.pk}:{member.pages_version}:"
        f"{timezone.localdate().isoformat()}:{page}:{variant_digest}"
    )


def member_page_content(
    *, member: Member, page: str, build: Callable[[], str], variant: str | None = ""
) -> SafeString:
    """The page's content from the cache, or ``build()`` kept for next time. ``variant``
    None: not cacheable (built every time)."""
    if variant is None:
        return mark_safe(build())  # noqa: S308 - our own rendered template
    key = page_key(member=member, page=page, variant=variant)
    content = cache.get(key)
    if content is None:
        content = str(build())
        cache.set(key, content, TTL_SECONDS)
    return mark_safe(content)  # noqa: S308 - our own rendered template, kept as a string
