"""The handicap form's member autocomplete: names and numbers, never a grade (S7)."""

from django.db.models import Q

from clubs.models import Club
from members.models import Member


def member_search(*, club: Club, query: str, limit: int = 20) -> list[Member]:
    """Members for the handicap form's autocomplete: the club's first, then anyone by exact
    number (a visitor). Names and numbers only; never a grade."""
    query = query.strip()
    if len(query) < 2:
        return []
    match = Q(name__icontains=query) | Q(national_number__startswith=query)
    found = list(
        Member.objects.filter(match, club_roles__club=club).distinct().order_by("name")[:limit]
    )
    if query.isdigit() and not any(m.national_number == query for m in found):
        visitor = Member.objects.filter(national_number=query).first()
        if visitor is not None:
            found.insert(0, visitor)
    return found[:limit]
