"""``{% url %}`` and ``{% static %}`` worked out once per process and address (issue 17).

The base template, the navigation and the club tabs ask for some twenty addresses on every
page, and each costs a walk through the URL patterns or the static files' manifest, yet neither
changes while the process runs (a deployment restarts it). Loaded after ``static``, this
library's tags replace Django's in the template that loads it; the answers are Django's own,
kept by everything they depend on (the URL configuration and script prefix of the request, the
view name, its arguments, the current application).
"""

from functools import lru_cache

from django import template
from django.conf import settings
from django.template import defaulttags
from django.templatetags.static import StaticNode, static
from django.urls import NoReverseMatch, get_script_prefix, get_urlconf, reverse
from django.utils.html import conditional_escape

register = template.Library()
KEPT = 4096  # addresses kept per process: the site's own pages, a few per club


def addresses_key() -> tuple:
    """What ``reverse`` reads besides its arguments: the request's URL configuration (or the
    settings') and script prefix, both thread-local. Part of the key of anything kept that
    holds addresses."""
    return (get_urlconf() or settings.ROOT_URLCONF, get_script_prefix())


@lru_cache(maxsize=KEPT)
def _reverse(urlconf, prefix, view_name, args, kwargs, current_app) -> str:
    # ``urlconf`` and ``prefix`` are the request's (thread-local): part of the key, and what
    # ``reverse`` reads.
    return reverse(
        view_name, urlconf=urlconf, args=args, kwargs=dict(kwargs), current_app=current_app
    )


class KeptURLNode(defaulttags.URLNode):
    def render(self, context):
        args = tuple(arg.resolve(context) for arg in self.args)
        kwargs = tuple(sorted((k, v.resolve(context)) for k, v in self.kwargs.items()))
        try:
            hash((args, kwargs))
        except TypeError:  # an argument that cannot be a key: Django's own tag
            return super().render(context)
        view_name = self.view_name.resolve(context)
        try:
            current_app = context.request.current_app
        except AttributeError:
            try:
                current_app = context.request.resolver_match.namespace
            except AttributeError:
                current_app = None
        url = ""
        try:
            url = _reverse(*addresses_key(), view_name, args, kwargs, current_app)
        except NoReverseMatch:
            if self.asvar is None:
                raise
        if self.asvar:
            context[self.asvar] = url
            return ""
        return conditional_escape(url) if context.autoescape else url


@register.tag
def url(parser, token):
    node = defaulttags.url(parser, token)
    return KeptURLNode(node.view_name, node.args, node.kwargs, node.asvar)


@lru_cache(maxsize=KEPT)
def _static(prefix: str, path: str) -> str:
    # A relative STATIC_URL is read under the request's script prefix: part of the key.
    return static(path)


class KeptStaticNode(StaticNode):
    def url(self, context):
        return _static(get_script_prefix(), self.path.resolve(context))


@register.tag("static")
def do_static(parser, token):
    node = StaticNode.handle_token(parser, token)
    return KeptStaticNode(varname=node.varname, path=node.path)
