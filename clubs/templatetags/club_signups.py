"""The sign-ups waiting for a club's answer, on each of its pages and the administrator's
dashboard until decided (S15)."""

from django import template

from members.accounts.selectors import sign_ups_waiting_count

register = template.Library()


@register.simple_tag
def sign_ups_waiting(club) -> int:
    if club is None:
        return 0
    known = getattr(club, "sign_ups_waiting", None)  # read with the administrator's clubs
    return known if known is not None else sign_ups_waiting_count(club=club)
