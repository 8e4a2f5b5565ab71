"""Partnerships (S6, FAQ 43) and "What do I need tonight?" (S3.5, FR 5)."""

import statistics

import pytest

from grading.engine.ngs import forecast, shown
from grading.models import CurrentGrade, PartnershipGrade, SessionGrade, SessionVersion
from grading.privacy import published_grade_q
from members.selectors import forecast as forecasts
from members.selectors import partners as partner_reads
from tests.members.conftest import url


def test_partnerships_list_every_partner_with_boards_together(me_client, graded):
    rows = {r.partner.national_number: r for r in partner_reads.partnerships(member=graded.me)}
    assert set(rows) == {graded.people.partner, graded.people.private, graded.people.public}
    regular = rows[graded.people.partner]
    assert (regular.sessions, regular.boards) == (13, 13 * 24)
    pg = PartnershipGrade.objects.get(
        member_a=graded.me, member_b__national_number=graded.people.partner
    )
    assert pg.shown and regular.partnership_shown
    assert regular.partnership_grade == shown(pg.grade)
    mine = CurrentGrade.objects.get(member=graded.me).grade
    theirs = CurrentGrade.objects.get(member__national_number=graded.people.partner).grade
    assert regular.average == pytest.approx((mine + shown(theirs)) / 2)
    assert regular.gel == pytest.approx(pg.grade - regular.average)
    public = rows[graded.people.public]
    # 4 sessions on the list (one hosted, one not graded), 2 of them graded together: not shown
    assert public.sessions == 4 and not public.partnership_shown and public.gel is None
    body = me_client.get(url("partners")).content.decode()
    assert body.count('data-testid="partner-row"') == 3
    assert f"{shown(pg.grade):.2f}" in body
    assert "48 of 300 boards" in body
    assert "large and lasting" in body and "caution" in body.lower()  # the EBU FAQ 43 advice


def test_forecast_with_a_typed_partner_and_field(me_client, graded):
    mine = shown(CurrentGrade.objects.get(member=graded.me).grade)
    result = me_client.get(
        url("api-forecast"), {"partner_grade": 48, "field_strength": 47, "boards": 24}
    ).json()
    expected_par = 50 + (mine + 48) / 2 - 47
    assert result["par_percent"] == pytest.approx(expected_par)
    assert [c["threshold"] for c in result["chances"]] == [37, 43, 49, 55, 61]  # S3.5, FR 5
    for c in result["chances"]:
        assert c["chance"] == pytest.approx(forecast(expected_par, c["threshold"], 6.34))
    assert result["par_butler"] == pytest.approx(24 * (expected_par - 50) / 5.4)
    assert result["par_cross"] == pytest.approx(24 * (expected_par - 50) / 6.48)
    body = me_client.get(url("forecast"), {"partner_grade": 48, "field_strength": 47}).content
    assert f"{expected_par:.2f}%" in body.decode()


def test_forecast_with_a_partner_and_a_club_series(me_client, graded):
    versions = SessionVersion.objects.filter(
        session__event__club=graded.riverside, state="graded", session__event__name="MON Pairs"
    ).order_by("-session__date")[:10]
    # each session's SoF as club pages show it: over published grades only (S14.25)
    sofs = [
        statistics.fmean(
            SessionGrade.objects.filter(version=v)
            .filter(published_grade_q("member__"))
            .values_list("grade_before", flat=True)
        )
        for v in versions
    ]
    series = {s.key: s for s in forecasts.club_series(member=graded.me)}
    key = f"{graded.riverside.pk}:MON Pairs"
    assert series[key].sof == pytest.approx(sum(sofs) / 10) and series[key].sessions == 10
    partner = graded.member(graded.people.partner)
    theirs = shown(CurrentGrade.objects.get(member=partner).grade)
    mine = shown(CurrentGrade.objects.get(member=graded.me).grade)
    result = me_client.get(url("api-forecast"), {"partner": partner.pk, "series": key}).json()
    assert result["par_percent"] == pytest.approx(50 + (mine + theirs) / 2 - sum(sofs) / 10)
    assert result["partner_label"] == partner.name


def test_forecast_asks_for_what_is_missing(me_client, graded):
    body = me_client.get(url("forecast"), {"boards": 24}).content.decode()
    assert "Choose a partner or type" in body and "Choose a club session series" in body
    assert me_client.get(url("api-forecast"), {"partner_grade": 48}).status_code == 400
