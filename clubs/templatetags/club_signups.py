"""The sign-ups waiting for a club's answer, on each of its pages and the administrator's
dashboard until decided (S15)."""

from django import template
from django.template.loader import get_template
from django.utils.safestring import mark_safe

from members.accounts.selectors import sign_ups_waiting_count
from members.shellmarks import made_per_request, placeholder

register = template.Library()

NOTICE_TEMPLATE = "clubs/_sign_ups_notice.html"
# Where a club page's shell (``members.pageshell``) leaves the notice, made for each request.
NOTICE_MARK = placeholder("sign-ups")


@register.simple_tag
def sign_ups_waiting(club) -> int:
    if club is None:
        return 0
    known = getattr(club, "sign_ups_waiting", None)  # read with the administrator's clubs
    return known if known is not None else sign_ups_waiting_count(club=club)


@register.simple_tag(takes_context=True)
@made_per_request(NOTICE_MARK)
def sign_ups_notice(context, club) -> str:
    """The notice of the sign-ups waiting, under a club page's heading (nothing when none)."""
    return notice_html(club)


def notice_html(club) -> str:
    waiting = sign_ups_waiting(club)
    if not waiting:
        return ""
    html = get_template(NOTICE_TEMPLATE).render({"club": club, "waiting_sign_ups": waiting})
    return mark_safe(html)  # noqa: S308 - rendered by the template engine, escaped there
