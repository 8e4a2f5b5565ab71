"""Sessions and strength of field (S3.2, S3.8, S7): the list, the NS/EW SoF of two-winner
movements, the SoF charts with their rolling average, and a page per session."""

import datetime as dt
import statistics

import pytest
from django.urls import reverse

from clubs.selectors.sessions import (
    ROLLING_WINDOW,
    SeriesPoint,
    series_name,
    sof_series_split,
)
from grading.models import CurrentGrade, PairResult, Session, SessionGrade
from grading.privacy import published_grade_q
from members.models import Member
from tests.offline import assert_served_locally

PRIVATE = "1003"


def published_mean(version, pair_ids=None) -> float:
    """The strength of field a club page shows (S14.25): the average grade at the start of the
    session of the players who publish their grade, worked out here from the rows."""
    grades = SessionGrade.objects.filter(version=version).filter(published_grade_q("member__"))
    if pair_ids is not None:
        grades = grades.filter(pair_id__in=list(pair_ids))
    return statistics.fmean(g.grade_before for g in grades)


def rows_of(admin_client, club, **params):
    return admin_client.get(reverse("clubs:sessions", args=[club.slug]), params).context["rows"]


def test_every_session_with_tables_pairs_known_sof_and_grading(admin_client, graded):
    rows = rows_of(admin_client, graded)
    assert len(rows) == 15
    assert [r.session.date for r in rows] == sorted((r.session.date for r in rows), reverse=True)
    monday = next(r for r in rows if r.series == "Monday Pairs")
    assert (monday.tables, monday.pairs, monday.known_pairs) == (4, 8, 8)
    assert monday.graded and monday.sof == pytest.approx(published_mean(monday.version))
    assert monday.field.counted + monday.field.not_counted == 2 * monday.pairs
    friday = next(r for r in rows if r.session.event.name == "Friday Social")
    assert not friday.graded and friday.sof is None
    assert (friday.known_pairs, friday.pairs) == (4, 6)
    assert "2/3" in friday.version.not_graded_reason
    html = admin_client.get(reverse("clubs:sessions", args=[graded.slug])).content.decode()
    assert friday.version.not_graded_reason in html


def test_two_winner_sof_by_direction_is_the_average_grade_of_its_players(admin_client, graded):
    thursday = next(r for r in rows_of(admin_client, graded) if r.two_winner)
    assert (thursday.tables, thursday.pairs) == (5, 9)
    version = thursday.version
    # Independently of the SOpp identity used by the page: every player is known here, so a
    # direction's SoF is the mean of its players' grades at the start of the session.
    for direction, value in (("NS", thursday.ns_sof), ("EW", thursday.ew_sof)):
        pair_ids = PairResult.objects.filter(version=version, direction=direction).values_list(
            "pair_id", flat=True
        )
        grades = SessionGrade.objects.filter(version=version, pair_id__in=list(pair_ids))
        assert grades.count() == 2 * len(pair_ids)
        assert value == pytest.approx(published_mean(version, pair_ids))
    assert thursday.sof == pytest.approx(published_mean(version))
    assert thursday.ns_sof != pytest.approx(thursday.ew_sof)
    one_winner = next(r for r in rows_of(admin_client, graded) if not r.two_winner and r.graded)
    assert one_winner.ns_sof is None and one_winner.ew_sof is None


def test_series_charts_with_a_rolling_average(admin_client, graded):
    response = admin_client.get(reverse("clubs:sessions", args=[graded.slug]))
    figures = {f["name"]: f for f in response.context["figures"]}
    # "Monday Pairs 2026-08-03", "Monday Pairs 2026-08-10", ... are one series.
    # The regular series has a chart; the one-off (one Thursday) is a row of the one-offs' table.
    assert set(figures) == {"Monday Pairs"}
    assert [name for name, _ in response.context["one_offs"]] == ["Thursday Mitchell"]
    points = figures["Monday Pairs"]["points"]
    assert len(points) == 13
    monday = sorted(
        (r for r in response.context["rows"] if r.series == "Monday Pairs"),
        key=lambda r: r.session.date,
    )
    for i, point in enumerate(points):
        assert point.sof == pytest.approx(published_mean(monday[i].version))
        window = [r.sof for r in monday[max(0, i - ROLLING_WINDOW + 1) : i + 1]]
        assert point.rolling == pytest.approx(statistics.fmean(window))
    html = response.content.decode()
    assert_served_locally(html)
    assert html.count('class="plotly-graph-div"') == 1
    assert 'data-testid="one-offs"' in html
    # The chart's text alternative: a name for screen readers and its figures as a table.
    assert 'role="img" aria-label="Monday Pairs: strength of field, 13 graded sessions' in html
    assert html.count("<tr><td>", html.index('data-testid="sof-figures"')) >= 13
    assert "Rolling average" in figures["Monday Pairs"]["html"]


def test_regular_series_first_most_sessions_first_one_offs_newest_first():
    def points(*days):
        return [SeriesPoint(dt.date(2026, 1, d), 50.0, 50.0, "x") for d in days]

    split = sof_series_split(
        {
            "County Pairs": points(5),
            "Monday Pairs": points(1, 8, 15),
            "Thursday Pairs": points(2, 9, 16, 23),
            "Charity Pairs": points(3, 20),
        }
    )
    assert list(split.regular) == ["Thursday Pairs", "Monday Pairs"]
    assert [(name, p.date.day) for name, p in split.one_offs] == [
        ("Charity Pairs", 20),
        ("County Pairs", 5),
        ("Charity Pairs", 3),
    ]


def test_series_filter(admin_client, graded):
    rows = rows_of(admin_client, graded, series="Thursday Mitchell")
    assert [r.session.event.name for r in rows] == ["Thursday Mitchell"]


@pytest.mark.parametrize(
    "name, series",
    [
        ("Monday Pairs 2026-11-16", "Monday Pairs"),
        ("Pairs (16/11/2026)", "Pairs"),
        ("Swiss Teams", "Swiss Teams"),
        ("2026-11-16", "2026-11-16"),
        ("2022-05-08-KM. par", "2022-05-08-KM. par"),  # found by a new user: a name, not a date
        ("Monday Pairs - 16/11/26", "Monday Pairs"),
    ],
)
def test_series_name_drops_the_date(name, series):
    assert series_name(name) == series


def test_session_page_every_pair_with_score_par_and_excess(admin_client, graded):
    session = Session.objects.get(event__event_id="THU")
    response = admin_client.get(reverse("clubs:session", args=[graded.slug, session.pk]))
    lines = response.context["detail"].lines
    assert len(lines) == 9
    assert [line.pair.direction for line in lines] == ["NS"] * 5 + ["EW"] * 4
    html = response.content.decode()

    def withheld(line) -> bool:
        numbers = {p.number for p in line.players}
        return PRIVATE in numbers or bool(numbers & {"1017", "1018"})

    # S7: a withheld grade hides SOpp, par and excess in its whole comparison group (each
    # other pair's par and SOpp would give it away). Here both directions have one.
    withheld_directions = {line.pair.direction for line in lines if withheld(line)}
    assert withheld_directions == {"NS", "EW"}
    for line in lines:
        assert line.hidden and line.par is None and line.excess is None and line.sopp is None
        assert f"{line.pair.score:.2f}" in html
    # With every grade published, every pair's figures show.
    Member.objects.filter(national_number=PRIVATE).update(grade_private=False)
    CurrentGrade.objects.filter(member__national_number__in=["1017", "1018"]).update(status="E")
    response = admin_client.get(reverse("clubs:session", args=[graded.slug, session.pk]))
    html = response.content.decode()
    for line in response.context["detail"].lines:
        assert not line.hidden
        assert line.par == line.pair.par is not None
        assert f"{line.pair.par:.2f}" in html and f"{line.pair.excess:.2f}" in html


def test_session_page_never_shows_a_private_or_provisional_grade(admin_client, graded):
    session = Session.objects.get(event__event_id="THU")
    version = session.live_version
    hidden_pairs = PairResult.objects.filter(version=version).filter(
        player1__national_number__in=[PRIVATE, "1017", "1018"]
    ) | PairResult.objects.filter(version=version).filter(
        player2__national_number__in=[PRIVATE, "1017", "1018"]
    )
    assert hidden_pairs.count() == 2
    html = admin_client.get(reverse("clubs:session", args=[graded.slug, session.pk])).content
    html = html.decode()
    for pair in hidden_pairs:
        assert f"{pair.par:.2f}" not in html and f"{pair.excess:.2f}" not in html
    from grading.models import CurrentGrade

    for number in (PRIVATE, "1017", "1018"):
        secret = CurrentGrade.objects.get(member__national_number=number).grade
        row_start = html.index(f"Player {number}")
        assert f"{secret:.2f}" not in html[row_start : row_start + 200]
    assert "Private" in html and "Provisional" in html


def test_session_list_and_page_queries(admin_client, graded, django_assert_max_num_queries):
    with django_assert_max_num_queries(9):
        admin_client.get(reverse("clubs:sessions", args=[graded.slug]))
    session = Session.objects.get(event__event_id="THU")
    with django_assert_max_num_queries(12):
        admin_client.get(reverse("clubs:session", args=[graded.slug, session.pk]))
    with django_assert_max_num_queries(18):  # +3 for the PPI and Brambledown lists (constant)
        admin_client.get(reverse("clubs:dashboard", args=[graded.slug]))


def test_a_session_can_be_withdrawn_from_its_page(
    admin_client, graded, django_capture_on_commit_callbacks
):
    """Found by review: the only Withdraw button was in the last 50 uploads, so an older
    session could not be withdrawn at all (S13: club admins withdraw results)."""
    session = Session.objects.get(event__event_id="THU")
    page = admin_client.get(reverse("clubs:session", args=[graded.slug, session.pk]))
    withdraw = reverse("version-withdraw", args=[graded.slug, session.live_version_id])
    assert f'action="{withdraw}"' in page.content.decode()
    live = session.live_version
    with django_capture_on_commit_callbacks(execute=True):  # the withdrawal runs as a task
        admin_client.post(withdraw)
    live.refresh_from_db()
    assert live.state == "withdrawn"
