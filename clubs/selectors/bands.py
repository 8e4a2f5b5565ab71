"""A club's band distribution beside everyone's (S7): published grades counted by band, private
grades counted apart, any group of fewer than 5 suppressed. The counts are
``members.selectors.bands.band_counts``, as on the public band page, so the two agree."""

from dataclasses import dataclass

from clubs.models import Club
from grading.privacy import suppressed
from members.selectors.bands import band_counts, band_limits


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
    national, national_private = band_counts()
    in_club, club_private = band_counts(club=club)
    club_total, national_total = sum(in_club.values()), sum(national.values())
    rows = []
    for name, _, _ in band_limits():
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
        club_private=suppressed(club_private),
        national_private=suppressed(national_private),
    )
