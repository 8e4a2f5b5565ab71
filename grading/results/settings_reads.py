"""What the club's results settings page lists (S16): its events, the strata set, the
estimates entered, and the members who need one (a private or provisional grade, S7: named,
never graded)."""

from __future__ import annotations

from dataclasses import dataclass

from clubs.models import Club, ClubEstimate, ClubRole, ClubStrata
from grading.models import Event
from grading.privacy import NO_GRADE, grade_withheld_reason


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
    estimate yet: their pairs go in the strongest stratum until one is entered."""
    have = set(ClubEstimate.objects.filter(club=club).values_list("member_id", flat=True))
    found = []
    for role in ClubRole.objects.filter(club=club).select_related(
        "member", "member__current_grade"
    ):
        why = grade_withheld_reason(role.member)
        if why and why != NO_GRADE and role.member_id not in have:
            found.append((role.member.name, role.member.national_number, why))
    return sorted(found)
