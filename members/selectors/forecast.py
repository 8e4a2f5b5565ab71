"""What do I need tonight: par and chances for a pair in a field (S3.5, FR 5)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import F

from clubs.models import ClubRole
from grading.engine.ngs import (
    NGSParams,
    forecast_table,
    par,
)
from grading.engine.ngs.handicap import FORECAST_THRESHOLDS
from grading.engine.types import Scoring as EngineScoring
from grading.models import (
    SessionVersion,
)
from grading.params import active_params
from grading.privacy import (
    GradeView,
    field_strength,
    published_start_grades,
)
from members.models import Member
from members.selectors.partners import partnerships

RECENT_SERIES_SESSIONS = 10


@dataclass
class Series:
    key: str
    club: str
    event: str
    sof: float
    sessions: int

    @property
    def label(self) -> str:
        return f"{self.club} — {self.event} (recent field {self.sof:.2f}, {self.sessions} session{'s' if self.sessions != 1 else ''})"


def club_series(*, member: Member) -> list[Series]:
    """Each of the member's clubs' session series (same event name) with the average SoF of
    its last 10 graded sessions: the recent strength of field (FR 5). Each session's SoF is
    the one club pages show (S14.25): over the published grades of its field only, so that a
    series of one crafted session gives no private grade away; a session with fewer than 5
    published grades is left out."""
    clubs = ClubRole.objects.filter(member=member).values("club_id")
    rows = (
        SessionVersion.objects.filter(
            session__event__club_id__in=clubs,
            state="graded",
            sof__isnull=False,
            session__live_version=F("pk"),
        )
        .order_by("-session__date", "-pk")
        .values_list(
            "pk",
            "total_pairs",
            "session__event__club_id",
            "session__event__club__name",
            "session__event__name",
        )
    )
    recent: dict[tuple[int, str, str], list[tuple[int, int]]] = defaultdict(list)
    for pk, total_pairs, club_id, club, event in rows:
        bucket = recent[(club_id, club, event)]
        if len(bucket) < RECENT_SERIES_SESSIONS:
            bucket.append((pk, total_pairs or 0))
    published = published_start_grades(pk for bucket in recent.values() for pk, _ in bucket)
    groups: dict[tuple[int, str, str], list[float]] = {}
    for key, bucket in recent.items():
        values = []
        for pk, total_pairs in bucket:
            grades = [g for gs in published.get(pk, {}).values() for g in gs]
            strength = field_strength(grades, 2 * total_pairs).value
            if strength is not None:
                values.append(strength)
        if values:
            groups[key] = values
    return sorted(
        (
            Series(f"{club_id}:{event}", club, event, sum(v) / len(v), len(v))
            for (club_id, club, event), v in groups.items()
        ),
        key=lambda s: (s.club, s.event),
    )


@dataclass
class Forecast:
    own_grade: float
    partner_grade: float
    partner_label: str
    field: float
    field_label: str
    par_percent: float
    chances: list[tuple[float, float]]
    boards: int
    par_butler: float
    par_cross: float
    sd: float
    asked: tuple[float, float] | None = None  # (threshold asked, chance), S3.5

    @property
    def pair_grade(self) -> float:
        return (self.own_grade + self.partner_grade) / 2

    @property
    def chance_rows(self) -> list[tuple[float, float]]:
        """(threshold, chance in percent) of scoring more than each threshold."""
        return [(t, 100 * c) for t, c in self.chances]

    @property
    def asked_row(self) -> tuple[float, float] | None:
        """(threshold asked, chance in percent), beside the fixed rows (S3.5: "or any
        threshold asked")."""
        return None if self.asked is None else (self.asked[0], 100 * self.asked[1])


def forecast_build(
    *,
    own_grade: float,
    partner_grade: float,
    field: float,
    boards: int = 24,
    partner_label: str = "",
    field_label: str = "",
    threshold: float | None = None,
    params: NGSParams | None = None,
) -> Forecast:
    """Par and the chances of beating 37-61% (S3.5), and the ``threshold`` asked if any, for a pair
    in a field (S3.5, FR 5)."""
    params = params or active_params()
    par_pct = par(EngineScoring.MP, own_grade, partner_grade, field, boards, params=params)
    asked = None
    if threshold is not None:
        (asked,) = forecast_table(par_pct, (threshold,), params.forecast_sd)
    return Forecast(
        own_grade=own_grade,
        partner_grade=partner_grade,
        partner_label=partner_label,
        field=field,
        field_label=field_label,
        par_percent=par_pct,
        chances=forecast_table(par_pct, FORECAST_THRESHOLDS, params.forecast_sd),
        boards=boards,
        par_butler=par(
            EngineScoring.BUTLER, own_grade, partner_grade, field, boards, params=params
        ),
        par_cross=par(
            EngineScoring.CROSS_IMP, own_grade, partner_grade, field, boards, params=params
        ),
        sd=params.forecast_sd,
        asked=asked,
    )


def forecast_partners(*, member: Member, rows=None) -> list[tuple[Member, GradeView]]:
    """Partners the forecast may use: those whose grade the member may see (S7). ``rows``:
    the member's ``partnerships``, when the caller has them already."""
    rows = rows if rows is not None else partnerships(member=member)
    rows = [(r.partner, r.partner_grade) for r in rows]
    return [(p, v) for p, v in rows if v.shown]
