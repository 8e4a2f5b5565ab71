"""``{% navbar %}``: the navigation bar of every page, rendered once per process for each thing
it shows and kept (issue 31 item 3).

The bar (``partials/nav.html``) depends on who is signed in (their username, whether they are
staff, whether they have a membership, the clubs they administer and those clubs' names), on
the addresses of the site (fixed while the process runs: a deployment restarts it) and on the
request's CSRF token. Rendering it costs a dozen address lookups and some hundred template
nodes, about a quarter of a millisecond, on every signed-in page, where a warm page's own
work is about a millisecond (docs/benchmarks.md). So it is rendered from those values alone,
kept under them (a new username, role or club name is a new key: nothing kept can be out of
date), with a placeholder where the token goes; each request then puts in its own token,
rendered by Django's ``{% csrf_token %}`` as ever (a fresh mask on every page). The key holds
no more than the bar shows to its own user. With ``DEBUG`` on, templates are read afresh, so
the bar is rendered every time.
"""

from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

from django import template
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.template.defaulttags import CsrfTokenNode
from django.template.loader import get_template
from django.utils.safestring import mark_safe

from members.shellmarks import made_per_request, placeholder
from members.templatetags.sitelinks import addresses_key

register = template.Library()

NAV_TEMPLATE = "partials/nav.html"
MESSAGES_TEMPLATE = "partials/messages.html"
# In a page's shell (``members.pageshell``) the bar and the messages are left as these marks.
BAR_MARK = placeholder("bar")
MESSAGES_MARK = placeholder("messages")
KEPT = 4096  # bars kept per process: one per user seen recently (about 2 KB each)
# What the kept bar holds where the request's token goes; random, so no username can forge it.
_TOKEN = placeholder("csrf")
_TOKEN_FIELD = CsrfTokenNode().render(template.Context({"csrf_token": _TOKEN}))


def _nav_values(context) -> tuple:
    """Everything the bar shows, as a key: the user's own and their clubs' names."""
    user = context.get("user")
    if user is None or not user.is_authenticated:
        return (False, "", False, False, ())
    clubs = tuple((club.slug, club.name) for club in context.get("nav_admin_clubs") or ())
    return (True, user.username, bool(user.is_staff), bool(context.get("nav_member")), clubs)


def _bar_context(values: tuple) -> dict:
    signed_in, username, is_staff, has_member, clubs = values
    if not signed_in:
        return {"user": AnonymousUser()}
    return {
        "user": SimpleNamespace(is_authenticated=True, is_staff=is_staff, username=username),
        "nav_member": has_member,
        "nav_admin_clubs": [SimpleNamespace(slug=slug, name=name) for slug, name in clubs],
        "csrf_token": _TOKEN,
    }


def _bar_render(values: tuple) -> str:
    """The bar for these values, with the placeholder for the token (rendered outside a request:
    each application's addresses have one instance, so none depends on the page)."""
    return get_template(NAV_TEMPLATE).render(_bar_context(values))


@lru_cache(maxsize=KEPT)
def _kept_bar(addresses: tuple, values: tuple) -> str:
    return _bar_render(values)  # ``addresses``: what the bar's addresses were worked out under


@register.simple_tag(takes_context=True)
@made_per_request(BAR_MARK)
def navbar(context) -> str:
    return bar_html(context)


@register.simple_tag(takes_context=True)
@made_per_request(MESSAGES_MARK)
def page_messages(context) -> str:
    """The messages waiting for this request (then marked as read), if any."""
    return messages_html(context.get("messages"))


def messages_html(messages) -> str:
    if not messages:  # the storage's length: reads what waits, and nothing is marked read
        return ""
    html = get_template(MESSAGES_TEMPLATE).render({"messages": messages})
    return mark_safe(html)  # noqa: S308 - rendered by the template engine, escaped there


def bar_html(context) -> str:
    """The bar for ``context`` (a template's, or a mapping with the user, the navigation's
    values and the CSRF token as the context processors give them)."""
    values = _nav_values(context)
    if settings.DEBUG:
        bar = _bar_render(values)
    else:
        bar = _kept_bar(addresses_key(), values)
    if _TOKEN_FIELD in bar:  # only a signed-in bar asks for a token (so a cookie is set)
        bar = bar.replace(_TOKEN_FIELD, CsrfTokenNode().render(context))
    return mark_safe(bar)  # noqa: S308 - rendered by the template engine, escaped there
