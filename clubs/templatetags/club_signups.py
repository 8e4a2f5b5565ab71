"""The sign-ups waiting for a club's answer, on each of its pages and the administrator's
dashboard until decided (S15)."""

from django import template

from members.accounts.selectors import sign_ups_waiting_count

register = template.Library()


@register.simple_tag
def sign_ups_waiting(club) -> int:
    return sign_ups_waiting_count(club=club) if club is not None else 0
