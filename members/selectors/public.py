"""Public grade lists, band counts and public member pages (S7)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Count

from clubs.models import Club, ClubRole
from grading.engine.ngs import (
    band,
    shown,
)
from grading.engine.types import normalise_number
from grading.models import (
    CurrentGrade,
)
from grading.privacy import (
    PUBLISHED_STATUSES,
    GradeView,
    current_of,
    grade_view,
    hidden_from,
    published_grade_q,
    suppressed,
)
from members.models import Member
from members.selectors.bands import BandCard, band_card, band_counts, band_limits
from members.selectors.base import count_text

Status = CurrentGrade.Status


@dataclass
class TopRow:
    rank: int
    number: str
    name: str
    grade: float
    band: BandCard
    status: str


def _top_rows(rows) -> list[TopRow]:
    """Current grades (their members read with them, ordered and cut) as numbered rows."""
    return [
        TopRow(
            i,
            r.member.national_number,
            r.member.name,
            shown(r.grade),
            band_card(band(r.grade)),
            r.get_status_display(),
        )
        for i, r in enumerate(rows, start=1)
    ]


def top_grades(*, club: Club | None = None, limit: int = 50) -> list[TopRow]:
    """Published grades, best first (S7: public and non-provisional only)."""
    rows = CurrentGrade.objects.filter(published_grade_q("member__"))
    if club is not None:
        rows = rows.filter(member__club_roles__club=club)
    return _top_rows(rows.select_related("member").order_by("-grade", "member__name")[:limit])


@dataclass
class BandCount:
    band: BandCard
    count: int | None  # None: suppressed (fewer than 5, S7)

    @property
    def text(self) -> str:
        return "fewer than 5" if self.count is None else count_text(self.count)


@dataclass
class Distribution:
    name: str
    slug: str
    bands: list[BandCount]
    suppressed: bool
    # Private grades, counted apart and never by band (S7); None: fewer than 5 (suppressed).
    private: int | None = 0

    @property
    def visible(self) -> bool:
        """Whether any band can be shown at all (not everything empty or suppressed)."""
        return any(b.count for b in self.bands)

    @property
    def total(self) -> int | None:
        """Published grades counted, shown only when no band is suppressed (S7). Private
        grades are not in it: with ``private`` suppressed, the difference would give their
        number away."""
        return None if self.suppressed else sum(b.count or 0 for b in self.bands)

    @property
    def private_text(self) -> str:
        return "fewer than 5" if self.private is None else count_text(self.private)


def _distribution(name: str, slug: str, counts: dict[str, int], private: int) -> Distribution:
    bands = [
        BandCount(band_card(band_name), suppressed(counts.get(band_name, 0)))
        for band_name, _, _ in band_limits()
    ]
    return Distribution(name, slug, bands, any(b.count is None for b in bands), suppressed(private))


def band_distributions() -> tuple[Distribution, list[Distribution]]:
    """Counts of current (non-provisional) grades by band, national and per club (S7).

    Only published grades are counted by band: a private grade counted in its band could be
    told apart by comparing the band's count with the published lists (a club whose members
    all fit on the top list, plus one private member). Private grades are counted in one total
    per group instead ("only in counts", S7), and any group smaller than 5 is suppressed."""
    national, national_private = band_counts()
    per_club: dict[int, dict[str, int]] = defaultdict(dict)
    private_per_club: dict[int, int] = defaultdict(int)
    for club_id, band_name, private, n in (
        ClubRole.objects.filter(member__current_grade__status__in=PUBLISHED_STATUSES)
        .values_list("club_id", "member__current_grade__band", "member__grade_private")
        .annotate(n=Count("id"))
        .order_by()
    ):
        if private:
            private_per_club[club_id] += n
        else:
            per_club[club_id][band_name] = n
    clubs = [
        _distribution(c.name, c.slug, per_club.get(c.pk, {}), private_per_club.get(c.pk, 0))
        for c in Club.objects.filter(pk__in=set(per_club) | set(private_per_club)).order_by("name")
    ]
    return _distribution("All clubs (national)", "", national, national_private), clubs


@dataclass
class PublicMember:
    member: Member
    grade: GradeView
    card: BandCard | None
    status: str | None


def public_member(*, number: str, viewer=None) -> PublicMember | None:
    """A member's public page (S7): a published grade and band, else Provisional.
    The number is read however it is spelt (S14.2); ``member.national_number`` is the stored
    spelling, for a redirect to the canonical address. A member who keeps their grade private
    is not found by anyone but themselves, as the search does not find them (issue 32 item 10:
    the answer told which numbers were private members)."""
    normalised = normalise_number(number or "")
    if normalised is None:
        return None
    member = (
        Member.objects.filter(national_number=normalised).select_related("current_grade").first()
    )
    if member is not None and member.merged_into_id is not None:  # two numbers, one person
        member = (
            Member.objects.filter(pk=_survivor_id(member)).select_related("current_grade").first()
        )
    if member is None or hidden_from(member, viewer):
        return None
    view = grade_view(member, current_of(member))
    return PublicMember(
        member,
        view,
        band_card(view.band) if view.band else None,
        Status(view.status).label if view.status else None,
    )


def member_by_number(*, number: str) -> Member | None:
    """The member with this membership number, however it is spelt (S14.2)."""
    normalised = normalise_number(number or "")
    if normalised is None:
        return None
    member = Member.objects.filter(national_number=normalised).first()
    if member is not None and member.merged_into_id is not None:
        member = Member.objects.filter(pk=_survivor_id(member)).first()
    return member


def _survivor_id(member: Member) -> int:
    """The member a merged number now belongs to (S15: both numbers find the member)."""
    seen = {member.pk}
    pk = member.merged_into_id
    while True:
        following = Member.objects.filter(pk=pk).values_list("merged_into_id", flat=True).first()
        if following is None or following in seen:
            return pk
        seen.add(pk)
        pk = following


SEARCH_MIN_LENGTH = 2
SEARCH_LIMIT = 50


def member_search(*, query: str, limit: int = SEARCH_LIMIT) -> list[TopRow]:
    """Members whose name holds every word of ``query``, among published grades only (S7: a
    private or provisional member is not found, so a search cannot tell that they exist)."""
    words = query.split()
    if len("".join(words)) < SEARCH_MIN_LENGTH:
        return []
    rows = CurrentGrade.objects.filter(published_grade_q("member__"))
    for word in words[:5]:
        rows = rows.filter(member__name__icontains=word)
    return _top_rows(
        rows.select_related("member").order_by("member__name", "member__national_number")[:limit]
    )
