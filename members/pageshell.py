"""A member's kept page served without the template engine (issue 31 item 3).

The grade card and the session history are kept rendered (``members.pagecache``), yet each
request still rendered the page around them: ``base.html`` with its head, navigation, messages
and footer, about 0.19 ms of a warm page's millisecond or so (docs/benchmarks.md, session 33).
Nothing of that shell depends on the request but the navigation bar (who is signed in, the
log-out form's token) and the messages. So the shell is rendered once per process for each
page template and its fixed values, with marks where the bar, the messages and the content go
(``{% navbar %}`` and ``{% page_messages %}`` give the marks when asked for a shell), and each
request joins the pieces with its own bar (``navbar.bar_html``: the same kept bar, a fresh
token), its messages and the kept content. The context processors the bar needs run as
``render`` would run them, so the page asks the same queries.

A shell is kept under the site's addresses (``sitelinks.addresses_key``), the template's name
and the values the view gives besides the content; with ``DEBUG`` on (templates read afresh)
every page is rendered by ``render``, and so is a template whose shell lacks a mark or repeats
one.
"""

from __future__ import annotations

import secrets
from functools import lru_cache

from django.conf import settings
from django.contrib.messages import get_messages
from django.http import HttpResponse
from django.shortcuts import render
from django.template.context_processors import csrf
from django.template.loader import get_template

from members.context_processors import navigation
from members.templatetags.navbar import BAR_MARK, MESSAGES_MARK, SHELL, bar_html, messages_html
from members.templatetags.sitelinks import addresses_key

__all__ = ["kept_shell_render"]

KEPT = 64  # shells kept per process: a few page templates, each with its fixed values
CONTENT_MARK = f"content-placeholder-{secrets.token_hex(16)}"
_MARKS = (BAR_MARK, MESSAGES_MARK, CONTENT_MARK)  # in the order base.html puts them


def kept_shell_render(request, template_name: str, context: dict) -> HttpResponse:
    """``render(request, template_name, context)`` for a page whose template shows the
    request's bar and messages, ``context["content"]`` and otherwise only ``context``'s other
    values (which must be hashable)."""
    if settings.DEBUG:
        return render(request, template_name, context)
    fixed = tuple(sorted((k, v) for k, v in context.items() if k != "content"))
    pieces = _kept_shell(addresses_key(), template_name, fixed)
    if pieces is None:
        return render(request, template_name, context)
    head, between, before_content, tail = pieces
    asked = {"user": request.user, **navigation(request), **csrf(request)}
    return HttpResponse(
        "".join(
            (
                head,
                bar_html(asked),
                between,
                messages_html(get_messages(request)),
                before_content,
                context["content"],
                tail,
            )
        )
    )


@lru_cache(maxsize=KEPT)
def _kept_shell(addresses: tuple, template_name: str, fixed: tuple) -> tuple[str, ...] | None:
    # ``addresses``: what the shell's addresses were worked out under
    shell = get_template(template_name).render(
        {**dict(fixed), "content": CONTENT_MARK, SHELL: True}
    )
    return shell_split(shell)


def shell_split(shell: str) -> tuple[str, ...] | None:
    """The shell cut at its marks: what comes before the bar, between the bar and the
    messages, between them and the content, and after it; None unless each mark is there
    once, in that order."""
    pieces = []
    rest = shell
    for mark in _MARKS:
        before, found, rest = rest.partition(mark)
        if not found or mark in rest or any(m in before for m in _MARKS):
            return None
        pieces.append(before)
    if any(m in rest for m in _MARKS):
        return None
    return (*pieces, rest)
