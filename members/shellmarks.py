"""The marks a page's kept shell (``members.pageshell``) holds where a part made for each
request goes, and the rule every such template tag follows: asked for a shell, it gives its
mark instead of its part."""

from __future__ import annotations

import functools
import secrets

from django.utils.safestring import mark_safe

SHELL = "page_shell"  # the context variable set when a shell is rendered


def placeholder(name: str) -> str:
    """A mark no page's text can hold by chance or by a user's choosing (random per process)."""
    return f"{name}-placeholder-{secrets.token_hex(16)}"


def made_per_request(mark: str):
    """Decorates a ``takes_context`` tag whose output differs from request to request: in a
    shell it gives ``mark``, which the shell's request puts the part in place of."""

    def decorate(tag):
        @functools.wraps(tag)
        def wrapped(context, *args, **kwargs):
            if context.get(SHELL):
                return mark_safe(mark)  # noqa: S308 - a fixed mark, put in by pageshell
            return tag(context, *args, **kwargs)

        return wrapped

    return decorate
