"""S7 from every viewpoint: a private grade is shown to its owner only; a provisional grade
likewise; published lists carry public, non-provisional grades only."""

import pytest

from grading.engine.ngs import shown
from grading.models import CurrentGrade, SessionGrade
from members.services import member_privacy_set
from tests.members.conftest import url


def secrets_of(member, sentinel: float) -> list[str]:
    """The member's grades as stored (full precision: no coincidence with anyone else's
    figures), then replaced by sentinel values whose 2-decimal form appears nowhere else, so a
    grade shown rounded is caught too. Their copies in partners' rows get the sentinel too."""
    values = [CurrentGrade.objects.get(member=member).grade]
    for row in SessionGrade.objects.filter(member=member):
        values += [
            v for v in (row.session_grade, row.grade_after, row.grade_before) if v is not None
        ]
    values += list(
        SessionGrade.objects.filter(partner=member).values_list("partner_grade", flat=True)
    )
    secrets = {repr(v) for v in values if v is not None and len(repr(v)) > 8}
    CurrentGrade.objects.filter(member=member).update(grade=sentinel)
    SessionGrade.objects.filter(member=member, session_grade__isnull=False).update(
        session_grade=sentinel + 0.0101, grade_after=sentinel + 0.0202
    )
    SessionGrade.objects.filter(member=member).update(grade_before=sentinel + 0.0303)
    SessionGrade.objects.filter(partner=member).update(partner_grade=sentinel + 0.0404)
    return sorted(secrets | {f"{sentinel + d:.2f}" for d in (0, 0.0101, 0.0202, 0.0303, 0.0404)})


def every_url(graded, viewer_member):
    pages = [
        url("top"),
        url("top") + "?club=riverside",
        url("top") + "?club=hilltop",
        url("bands"),
        url("bands") + "?club=riverside",
        url("bands") + "?club=hilltop",
        url("api-top"),
        url("api-top") + "?club=hilltop",
        url("api-bands"),
    ]
    for number in (graded.people.private, graded.people.newcomers[0], graded.people.public):
        pages += [url("public", number), url("api-public", number)]
    if viewer_member is not None:
        pages += [
            url("card"),
            url("sessions"),
            url("sessions-csv"),
            url("partners"),
            url("forecast"),
            url("privacy"),
            url("host-exemption"),
            url("api-card"),
            url("api-sessions"),
            url("api-partners"),
            url("api-host-exemptions"),
            "/dashboard/",
        ]
        grades = SessionGrade.objects.filter(member=viewer_member)
        for pk in grades.values_list("version__session_id", flat=True):
            pages += [url("explain", pk), url("api-explain", pk)]
        partner = graded.private.pk
        pages += [
            url("forecast") + f"?partner={partner}&field_strength=45",
            url("api-forecast") + f"?partner={partner}&field_strength=45",
            url("sessions") + f"?partner={partner}",
        ]
    return pages


def viewers(graded):
    return {
        "partner of the private member": (graded.me_user, graded.me),
        "another member": (graded.other_user, graded.other),
        "club administrator": (graded.admin_user, graded.admin_user.member),
        "anonymous": (None, None),
    }


@pytest.mark.parametrize(
    "viewpoint",
    ["partner of the private member", "another member", "club administrator", "anonymous"],
)
def test_private_and_provisional_grades_never_leave_for_anyone_else(client, graded, viewpoint):
    user, member = viewers(graded)[viewpoint]
    if user is not None:
        client.force_login(user)
    hidden = {
        "private": secrets_of(graded.private, 88.8123),
        "provisional": secrets_of(graded.member(graded.people.newcomers[0]), 77.7123),
    }
    checked = 0
    for page in every_url(graded, member):
        response = client.get(page)
        # 404: a private member's public page is not found (issue 32 item 10).
        assert response.status_code in (200, 400, 404), (page, response.status_code)
        body = response.content.decode()
        for kind, secrets in hidden.items():
            leaked = [s for s in secrets if s in body]
            assert not leaked, f"{kind} grade {leaked} in {page} seen by {viewpoint}"
        checked += 1
    assert checked >= 15
    # Control: the sentinels do reach the pages, for the one person allowed to see them.
    client.force_login(graded.private_user)
    assert "88.81" in client.get(url("card")).content.decode()


def test_the_owner_sees_their_private_grade(client, graded):
    client.force_login(graded.private_user)
    current = CurrentGrade.objects.get(member=graded.private)
    body = client.get(url("card")).content.decode()
    assert f"{shown(current.grade):.2f}" in body and "only you see this grade" in body
    assert client.get(url("api-card")).json()["grade"] == shown(current.grade)


def test_private_partner_is_shown_as_private_where_the_member_meets_them(me_client, graded):
    partners = me_client.get(url("api-partners")).json()
    private = next(p for p in partners if p["number"] == graded.people.private)
    assert private["partner_grade"] is None and private["partner_grade_text"] == "Private"
    assert private["average"] is None and private["gel"] is None
    together = SessionGrade.objects.filter(member=graded.me, partner=graded.private).first()
    steps = me_client.get(url("api-explain", together.version.session_id)).json()["steps"]
    assert next(s for s in steps if s["label"] == "Partner's grade")["value"] == "Private"
    # and the forecast does not accept them as a partner (their grade would show through par)
    response = me_client.get(
        url("api-forecast"), {"partner": graded.private.pk, "field_strength": 45}
    )
    assert response.status_code == 400


def test_public_member_page(client, graded):
    public = CurrentGrade.objects.get(member__national_number=graded.people.public)
    body = client.get(url("public", graded.people.public)).content.decode()
    assert f"{shown(public.grade):.2f}" in body
    # Issue 32 item 10: a private member is not found, as an unknown number is not.
    assert client.get(url("public", graded.people.private)).status_code == 404
    newcomer = client.get(url("public", graded.people.newcomers[0])).content.decode()
    assert "Provisional" in newcomer
    assert client.get(url("public", "999999")).status_code == 404
    unknown = client.get(url("api-public", "999999"))
    private = client.get(url("api-public", graded.people.private))
    assert (private.status_code, private.json()) == (404, unknown.json())


def test_privacy_page_switches_publication(me_client, client, graded):
    current = CurrentGrade.objects.get(member=graded.me)
    mine = f"{shown(current.grade):.2f}"
    assert mine in client.get(url("public", graded.people.me)).content.decode()
    response = me_client.post(url("privacy"), {"grade": "private"}, follow=True)
    assert "Your grade is now private" in response.content.decode()
    graded.me.refresh_from_db()
    assert graded.me.grade_private
    assert mine not in client.get(url("public", graded.people.me)).content.decode()
    assert mine not in client.get(url("top")).content.decode()
    assert mine in me_client.get(url("card")).content.decode()  # still shown to the member
    me_client.put(url("api-privacy"), {"private": False}, content_type="application/json")
    graded.me.refresh_from_db()
    assert not graded.me.grade_private
    assert mine in client.get(url("public", graded.people.me)).content.decode()


@pytest.mark.django_db
def test_member_privacy_set_changes_only_the_flag(member_user):
    _, member, _ = member_user
    assert member_privacy_set(member=member, private=True).grade_private
    member.refresh_from_db()
    assert member.grade_private
    assert not member_privacy_set(member=member, private=False).grade_private


def test_api_for_members_needs_authentication(client, graded):
    for name in (
        "api-card",
        "api-sessions",
        "api-partners",
        "api-privacy",
        "api-host-exemptions",
        "api-forecast",
    ):
        assert client.get(url(name)).status_code in (401, 403)
