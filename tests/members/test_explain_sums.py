"""The explain page's figures add up as shown (issue 30 item 4): every sum, product and average
written on "explain this session", checked on the written figures themselves, for every session
grade of the demo data; and what the page says about a partner's withheld grade (S14.14)."""

import datetime as dt
import re
from decimal import Decimal

import pytest
from django.urls import reverse

from grading.models import SessionGrade
from grading.site.demo import demo_results_import, demo_seed
from members.models import Member
from members.selectors.explain import session_explain
from members.services import member_privacy_set

TODAY = dt.date(2026, 11, 22)
NUMBER = re.compile(r"^[+\-−]?\d+(\.\d+)?%?$")


def _number(text: str) -> Decimal:
    assert NUMBER.match(text), text
    return Decimal(text.replace("−", "-").rstrip("%"))


def written_arithmetic_holds(value: str) -> bool | None:
    """Whether ``a + b − c = t``, ``g × e = p`` or ``(a + b) / 2 = m`` holds on the figures
    as written; None for a value with no such arithmetic (a single figure, a word)."""
    if " = " not in value:
        return None
    left, right = value.split(" = ")
    total = _number(right)
    average = re.fullmatch(r"\((\S+) \+ (\S+)\) / 2", left)
    if average:
        return (_number(average[1]) + _number(average[2])) / 2 == total
    if " / " in left:  # IMPs or aggregate: a quotient rounded, not a sum
        return None
    if " × " in left:
        a, b = left.split(" × ")
        return _number(a) * _number(b) == total
    tokens = left.split(" ")
    result = _number(tokens[0])
    for operator, figure in zip(tokens[1::2], tokens[2::2], strict=True):
        assert operator in {"+", "−"}, value
        result += _number(figure) if operator == "+" else -_number(figure)
    return result == total


@pytest.mark.parametrize(
    "value, holds",
    [
        ("53.06 + 0.00 + 15.10 = 68.16", True),
        ("53.06 + 0.00 + 15.11 = 68.16", False),  # the example
        ("2 × +7.55 = +15.11", False),
        ("2 × +7.554 = +15.108", True),
        ("57.30 − 50 = +7.30", True),
        ("(53.06 + 48.10) / 2 = 50.58", True),
        ("50 + 50.576 − 50.830 = 49.746%", True),
        ("+7.55", None),
    ],
)
def test_written_arithmetic_is_checked(value, holds):
    assert written_arithmetic_holds(value) is holds


@pytest.fixture
def demo(db, django_capture_on_commit_callbacks):
    demo_seed()
    with django_capture_on_commit_callbacks(execute=True):
        demo_results_import(today=TODAY, weeks=16)  # long enough for published grades
    me = Member.objects.get(user__username="demo-member")
    partners = SessionGrade.objects.filter(member=me).values_list("partner_id", flat=True)
    regular = max(set(partners), key=list(partners).count)
    return me, Member.objects.get(pk=regular)


def test_every_explain_page_of_the_demo_adds_up_as_written(demo):
    me, partner = demo
    member_privacy_set(member=partner, private=True)  # pages with a partner's grade withheld too
    checked = 0
    labels = set()
    grades = SessionGrade.objects.select_related("member").order_by("pk")
    for grade in grades:
        x = session_explain(member=grade.member, grade_id=grade.pk)
        for step in x.steps:
            holds = written_arithmetic_holds(step.value)
            assert holds is not False, (grade.pk, step.label, step.value)
            checked += holds is True
            labels |= {step.label} if holds else set()
        if x.movement is not None:
            moved = re.search(
                r"went (up|down) by (\d+\.\d+), from (\d+\.\d+) to (\d+\.\d+)\.", x.movement_words
            )
            if moved:
                change = _number(moved[4]) - _number(moved[3])
                assert abs(change) == _number(moved[2]), x.movement_words
                assert (change > 0) == (moved[1] == "up")
    # Score term, gain and session grade on every graded page; the pair's grade, par and excess
    # where the partner's grade is shown (most demo partners are still provisional at 6 weeks).
    assert checked >= 3 * grades.exclude(session_grade=None).count()
    assert labels >= {"Score term", "Pair's grade", "Par", "Excess", "Gain", "Session grade"}


def test_a_withheld_partner_grade_is_said_to_be_in_the_figures(demo, client):
    me, partner = demo
    member_privacy_set(member=partner, private=True)
    grade = SessionGrade.objects.filter(member=me, partner=partner).exclude(excess=None).first()
    x = session_explain(member=me, grade_id=grade.pk)
    assert x.partner_withheld
    values = {s.label: s.value for s in x.steps}
    assert values["Partner's grade"] == values["Pair's grade"] == "Private"
    # The figures the page does write give the pair's grade exactly: it says so.
    pair = (grade.grade_before + grade.partner_grade) / 2
    assert grade.score_term + grade.sopp - grade.excess == pytest.approx(pair)
    client.force_login(me.user)
    html = client.get(reverse("members:explain", args=[grade.version.session_id])).content.decode()
    assert 'data-testid="partner-withheld"' in html and "exactly" in html
    assert "would give your partner's grade" not in html
    member_privacy_set(member=partner, private=False)
    assert not session_explain(member=me, grade_id=grade.pk).partner_withheld


def test_a_published_partner_grade_is_listed_in_the_field_too(demo):
    """Issue 30: "Partner's grade 54.65" above "(not listed)" for the same person when someone
    else in the field is private."""
    me, partner = demo
    grade = SessionGrade.objects.filter(member=me, partner=partner).exclude(excess=None).first()
    other = (
        SessionGrade.objects.filter(version=grade.version)
        .exclude(member__in=[me, partner])
        .first()
        .member
    )
    member_privacy_set(member=other, private=True)
    x = session_explain(member=me, grade_id=grade.pk)
    assert not x.start_grades_shown  # a private grade in the field: others not listed
    mine = next(row for row in x.field if row.mine)
    listed = dict(mine.grades)
    assert listed[partner.name] == f"{grade.partner_grade:.2f}"
    assert dict((s.label, s.value) for s in x.steps)["Partner's grade"] == listed[partner.name]
    others = [g for row in x.field if not row.mine for _, g in row.grades]
    assert "not listed" in others


def test_a_session_outside_the_board_window_says_why_it_has_no_weight(demo, client, monkeypatch):
    """Issue 30 item 5: sessions beyond the most recent boards of the window (S4) showed 0.00%
    with no word. A window of 100 boards makes the demo's older sessions fall outside it."""
    import dataclasses

    from members.selectors import explain, history

    me, _ = demo
    small = dataclasses.replace(history.active_params(), window_boards=100)
    monkeypatch.setattr(history, "active_params", lambda: small)
    monkeypatch.setattr(explain, "active_params", lambda: small)
    weights = history.grade_weights(member=me, params=small)
    graded = SessionGrade.objects.filter(member=me, live=True).exclude(session_grade=None)
    assert len(weights.by_grade_id) == 5  # 4 sessions of 24 boards, the fifth cut by the window
    outside = graded.exclude(pk__in=weights.by_grade_id)
    assert outside.exists() and set(weights.unweighted) == set(outside.values_list("pk", flat=True))
    assert {note for note, _ in weights.unweighted.values()} == {
        "no weight: beyond your last 100 boards"
    }
    assert len(weights.part_counted) == 1  # the fifth: 4 of its 24 boards kept
    client.force_login(me.user)
    html = client.get(reverse("members:sessions"), {"page": 1}).content.decode()
    assert "no weight: beyond your last 100 boards" in html
    assert "partly counted: the oldest of your last 100 boards" in html
    oldest = outside.order_by("date").first()
    page = client.get(reverse("members:explain", args=[oldest.version.session_id])).content.decode()
    assert "Today it carries no weight in your grade: a grade is worked out from your most" in page
    newest = graded.order_by("-date").first()
    assert (
        "no weight"
        not in client.get(
            reverse("members:explain", args=[newest.version.session_id])
        ).content.decode()
    )
