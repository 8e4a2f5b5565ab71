"""The grading committee's what-if parameters (issue 9, S9): bad values are a message, never a
500 (found by review: window_boards=0 broke the replay)."""

import pytest
from django.urls import reverse

from grading.staff.quality import params_for
from tests.factories import UserFactory


@pytest.mark.parametrize(
    "text, says",
    [
        ("window_boards=0", "window_boards must be a number of at least 1"),
        ("window_years=0", "window_years must be a number of at least 1"),
        ("gain=-1", "gain must be a number of at least 0"),
        ("gain=nan", "gain must be a number of at least 0"),
        ("colour=3", "'colour' is not a numeric NGS parameter"),
    ],
)
def test_out_of_range_parameters_are_refused(db, text, says):
    with pytest.raises(ValueError, match=says):
        params_for(text)


def test_the_quality_page_says_what_is_wrong(db, client):
    client.force_login(UserFactory(is_staff=True))
    page = client.get(reverse("staff-quality"), {"params": "window_boards=0"})
    assert page.status_code == 200
    assert "window_boards must be a number of at least 1" in page.content.decode()


def test_a_what_if_within_range_is_taken(db):
    assert params_for("gain=1.5,rpcf=0").gain == 1.5


@pytest.mark.parametrize("content", ["[1, 2]", '{"1001": "strong"}', "not json"])
def test_a_truth_file_that_is_not_number_to_strength_is_a_command_error(db, tmp_path, content):
    """Found by review: a JSON list crashed with an AttributeError."""
    from django.core.management import CommandError, call_command

    path = tmp_path / "truth.json"
    path.write_text(content)
    with pytest.raises(CommandError, match="--truth"):
        call_command("grading_report", "--truth", str(path))


def test_page_and_command_count_members_by_status_alike(db, client):
    """Issue 30: the command counted provisional members differently from the page (135 vs 32):
    both count the members with boards in the window, from one function."""
    import io

    from django.core.management import call_command

    from grading.models import CurrentGrade
    from tests.factories import MemberFactory

    def grade(status, boards):
        CurrentGrade.objects.create(
            member=MemberFactory(),
            grade=50.0,
            status=status,
            band="Eight",
            boards_in_window=boards,
            initial_grade=50.0,
            as_of="2026-11-01",
        )

    grade("P", 48)
    grade("P", 0)  # no boards in the window: counted by neither
    grade("M", 1200)
    client.force_login(UserFactory(is_staff=True))
    page = client.get(reverse("staff-quality"))
    assert page.context["report"]["statuses"] == {"P": 1, "E": 0, "M": 1, "O": 0}
    html = page.content.decode()
    row = html[html.index('data-testid="status-P"') :]
    assert '<td class="num">1</td>' in row[: row.index("</tr>")]
    assert 'href="/staff/quality/"' in html  # the staff menu links the report
    out = io.StringIO()
    call_command("grading_report", stdout=out)
    line = next(x for x in out.getvalue().splitlines() if x.startswith("members status P"))
    assert line.split()[-2] == "1"
    assert "warning (ngs-15a): No match-pointed comparison group" in out.getvalue()
    assert 'data-testid="quality-warnings"' in html
