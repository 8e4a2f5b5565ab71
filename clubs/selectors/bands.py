"""A club's band distribution beside everyone's (S7): published grades counted by band, private
grades counted apart, any group of fewer than 5 suppressed. The statuses counted are
``grading.privacy.PUBLISHED_STATUSES``, as on the public band page, so the two agree."""

from dataclasses import dataclass

from django.db.models import Count, Q

from clubs.models import Club
from grading.engine.ngs.decay import BANDS
from grading.models import CurrentGrade
from grading.privacy import PUBLISHED_STATUSES, suppressed

BAND_ORDER = ("Two",) + tuple(name for _, name in reversed(BANDS))  # lowest first


@dataclass(frozen=True)
class BandCount:
    band: str
    club: int | None  # None: suppressed (fewer than SMALLEST_GROUP)
    national: int | None
    club_share: float | None
    national_share: float | None


@dataclass(frozen=True)
class BandDistribution:
    rows: list[BandCount]
    club_total: int
    national_total: int
    club_private: int | None
    national_private: int | None


def band_distribution(*, club: Club) -> BandDistribution:
    """Published grades by band for the club and for everyone (S7): counts only, any group of
    fewer than 5 suppressed. Private grades are counted apart, never by band, so the counts
    beside the club's named list reveal nobody's band; provisional grades are not counted."""
    graded = CurrentGrade.objects.filter(status__in=PUBLISHED_STATUSES)
    club_graded = graded.filter(member__club_roles__club=club)
    national = dict(
        graded.filter(member__grade_private=False)
        .values_list("band")
        .annotate(n=Count("id"))
        .values_list("band", "n")
    )
    in_club = dict(
        club_graded.filter(member__grade_private=False)
        .values_list("band")
        .annotate(n=Count("id"))
        .values_list("band", "n")
    )
    private = graded.filter(member__grade_private=True).aggregate(
        national=Count("id"), club=Count("id", filter=Q(member__club_roles__club=club))
    )
    club_total, national_total = sum(in_club.values()), sum(national.values())
    rows = []
    for name in BAND_ORDER:
        c, n = suppressed(in_club.get(name, 0)), suppressed(national.get(name, 0))
        rows.append(
            BandCount(
                band=name,
                club=c,
                national=n,
                club_share=100.0 * c / club_total if c is not None and club_total else None,
                national_share=(
                    100.0 * n / national_total if n is not None and national_total else None
                ),
            )
        )
    return BandDistribution(
        rows=rows,
        club_total=club_total,
        national_total=national_total,
        club_private=suppressed(private["club"]),
        national_private=suppressed(private["national"]),
    )
