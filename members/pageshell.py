"""A kept page served without the template engine (issue 31 item 3).

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

A club's grade list, kept the same way, is served so too (``clubs.pages.club_kept_render``):
its header's notice of the sign-ups waiting is a part made for each request (``fills``), and
its shell is kept under what the header shows of the club (``key``). A session's results
page (``grading.results.views``) is kept under its session and what its title shows.

A shell is kept under the site's addresses (``sitelinks.addresses_key``), the template's name
and the values the view gives besides the content; with ``DEBUG`` on (templates read afresh)
every page is rendered by ``render``, and so is a template whose shell lacks a mark or repeats
one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

from django.conf import settings
from django.contrib.messages import get_messages
from django.http import HttpResponse
from django.shortcuts import render
from django.template.context_processors import csrf
from django.template.loader import get_template

from members.context_processors import navigation
from members.shellmarks import SHELL, placeholder
from members.templatetags.navbar import BAR_MARK, MESSAGES_MARK, bar_html, messages_html
from members.templatetags.sitelinks import addresses_key

__all__ = ["kept_shell_render"]

KEPT = 1024  # shells kept per process: a few page templates, a club or a session each (< 1 KB)
CONTENT_MARK = placeholder("content")
_MARKS = (BAR_MARK, MESSAGES_MARK, CONTENT_MARK)  # in the order base.html puts them


def kept_shell_render(
    request,
    template_name: str,
    context: dict,
    *,
    key: tuple | None = None,
    fills: Sequence[tuple[str, Callable[[], str]]] = (),
) -> HttpResponse:
    """``render(request, template_name, context)`` for a page whose template shows the
    request's bar and messages, ``context["content"]``, and otherwise only what ``key`` stands
    for (by default ``context``'s other values, which must then be hashable). ``fills``: the
    page's other parts made for each request, each a mark its template gives in a shell and
    what makes the part, in the page's order between the messages and the content."""
    if settings.DEBUG:
        return render(request, template_name, context)
    fixed = {k: v for k, v in context.items() if k != "content"}
    marks = (BAR_MARK, MESSAGES_MARK, *(mark for mark, _ in fills), CONTENT_MARK)
    shell = _Shell(template_name, fixed, tuple(sorted(fixed.items())) if key is None else key)
    pieces = _kept_shell(addresses_key(), shell, marks)
    if pieces is None:
        return render(request, template_name, context)
    asked = {"user": request.user, **navigation(request), **csrf(request)}
    parts = (
        bar_html(asked),
        messages_html(get_messages(request)),
        *(make() for _, make in fills),
        context["content"],
    )
    page = [pieces[0]]
    for part, piece in zip(parts, pieces[1:], strict=True):
        page += (part, piece)
    return HttpResponse("".join(page))


class _Shell:
    """A template and the values it is rendered with, kept under ``key`` alone."""

    def __init__(self, template_name: str, values: dict, key: tuple) -> None:
        self.template_name, self.values, self.key = template_name, values, (template_name, key)

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other) -> bool:
        return isinstance(other, _Shell) and self.key == other.key

    def render(self) -> str:
        return get_template(self.template_name).render(
            {**self.values, "content": CONTENT_MARK, SHELL: True}
        )


@lru_cache(maxsize=KEPT)
def _kept_shell(addresses: tuple, shell: _Shell, marks: tuple) -> tuple[str, ...] | None:
    # ``addresses``: what the shell's addresses were worked out under
    return shell_split(shell.render(), marks)


def shell_split(shell: str, marks: Sequence[str] = _MARKS) -> tuple[str, ...] | None:
    """The shell cut at its ``marks``: what comes before the first, between each and the
    next, and after the last; None unless each mark is there once, in that order."""
    pieces = []
    rest = shell
    for mark in marks:
        before, found, rest = rest.partition(mark)
        if not found or mark in rest or any(m in before for m in marks):
            return None
        pieces.append(before)
    if any(m in rest for m in marks):
        return None
    return (*pieces, rest)
