"""What the club's results settings page lists (S16): its events, the strata set, the
estimates entered, and the members who need one (a private or provisional grade, S7: named,
never graded)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q

from clubs.models import Club, ClubEstimate, ClubRole, ClubStrata
from grading.models import Event
from grading.privacy import PRIVATE, PROVISIONAL, published_grade_q


@dataclass(frozen=True)
class StrataRow:
    event: str
    limits: list[float]


def club_events(*, club: Club) -> list[tuple[int, str]]:
    return list(Event.objects.filter(club=club).order_by("name").values_list("pk", "name"))


def club_strata_rows(*, club: Club) -> list[StrataRow]:
    rows = ClubStrata.objects.filter(club=club).select_related("event")
    found = [StrataRow(r.event.name if r.event else "All events", list(r.limits)) for r in rows]
    return sorted(found, key=lambda r: (r.event != "All events", r.event))


def club_estimate_rows(*, club: Club) -> list[ClubEstimate]:
    return list(ClubEstimate.objects.filter(club=club).select_related("member"))


def members_needing_estimates(*, club: Club) -> list[tuple[str, str, str]]:
    """(name, number, why) of the club's members whose grade is withheld and who have no
    estimate yet: their pairs go in the strongest stratum until one is entered. Withheld as
    ``grade_withheld_reason`` says (S7), picked in the query: a private grade (or none), a
    provisional grade; a public member without a grade has nothing to estimate."""
    withheld = ~published_grade_q("member__") & (
        Q(member__grade_private=True) | Q(member__current_grade__isnull=False)
    )
    rows = (
        ClubRole.objects.filter(withheld, club=club)
        .exclude(member_id__in=ClubEstimate.objects.filter(club=club).values("member_id"))
        .values_list("member__name", "member__national_number", "member__grade_private")
    )
    return sorted(
        (name, number, PRIVATE if private else PROVISIONAL) for name, number, private in rows
    )
