"""S14.14 and S7's small groups (issue 19 item 3, issue 21 item 2): no figure named for another
member's private grade (the partner's grade, the pair's grade, a field table listing it), and
no average over fewer than 5 players that includes one, in pages, API and CSV; the member's
own results stay."""

import csv
import io

import pytest

from grading.common.spreadsheet import formula_like
from grading.models import Event, SessionGrade
from members.models import Member
from members.selectors import explain as explanations
from members.selectors import forecast as forecasts
from members.selectors import history as histories
from members.services import member_privacy_set
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.members.conftest import url

TWO_PAIRS_DATE = "2026-10-05"


@pytest.fixture
def two_pairs(graded, sender):
    """A session of two pairs at Riverside: me with the public member against the private
    member and another: 4 players, so SOpp (2 players) and SoF (4) are small groups."""
    p = graded.people
    rows = mp_session_rows(
        event_id="DUO",
        date=TWO_PAIRS_DATE,
        scores=[56.0, 44.0],
        numbers=[(p.me, p.public), (p.private, p.others[0])],
    )
    sender(graded.riverside, csv_bytes(rows), "duo.csv")
    mine = SessionGrade.objects.get(member=graded.me, version__session__event__event_id="DUO")
    theirs = SessionGrade.objects.get(
        member=graded.private, version__session__event__event_id="DUO"
    )
    assert mine.sopp is not None and mine.version.sof is not None
    return mine, theirs


def _figures(value: float) -> set[str]:
    return {f"{value:.2f}", f"{value:.4f}", repr(value)}


def test_opponent_in_a_two_pair_session_sees_no_sopp_or_sof(me_client, graded, two_pairs):
    mine, _ = two_pairs
    sopp, sof = mine.sopp, mine.version.sof
    explained = me_client.get(url("api-explain", mine.pk)).json()
    assert explained["sof"] is None
    assert explained["row"]["sopp"] is None
    step = next(s for s in explained["steps"] if s["label"] == "SOpp")
    assert step["value"] == "—" and "fewer than 5 players" in step["words"]
    # Said plainly (issue 30): the member's own par and excess still give it.
    assert "Your par and excess still give it" in step["words"]
    # the member's own results stay (S14.14)
    assert explained["row"]["session_grade"] == pytest.approx(mine.session_grade)
    assert explained["row"]["par"] == pytest.approx(mine.par)
    page = me_client.get(url("explain", mine.pk)).content.decode()
    history = me_client.get(url("sessions")).content.decode()
    api_rows = me_client.get(url("api-sessions")).json()["results"]
    row = next(r for r in api_rows if r["id"] == mine.pk)
    assert row["sopp"] is None
    exported = list(
        csv.DictReader(io.StringIO(me_client.get(url("sessions-csv")).content.decode()))
    )
    duo = next(r for r in exported if r["date"] == TWO_PAIRS_DATE)
    assert duo["sopp"] == "" and duo["session_grade"] != ""
    for body in (page, history, str(explained), str(api_rows)):
        assert not (_figures(sopp) | _figures(sof)) & {w.strip("()") for w in body.split()}


def test_the_private_member_sees_their_own_small_field(client, graded, two_pairs):
    _, theirs = two_pairs
    client.force_login(graded.private_user)
    explained = client.get(url("api-explain", theirs.pk)).json()
    assert explained["sof"] == pytest.approx(theirs.version.sof)
    assert explained["row"]["sopp"] == pytest.approx(theirs.sopp)


def test_a_four_player_field_without_a_private_grade_shows_its_averages(me_client, graded, sender):
    p = graded.people
    rows = mp_session_rows(
        event_id="OPEN4",
        date="2026-10-06",
        scores=[52.0, 48.0],
        numbers=[(p.me, p.public), (p.partner, p.others[0])],
    )
    sender(graded.riverside, csv_bytes(rows), "open4.csv")
    mine = SessionGrade.objects.get(member=graded.me, version__session__event__event_id="OPEN4")
    explained = me_client.get(url("api-explain", mine.pk)).json()
    assert explained["sof"] == pytest.approx(mine.version.sof)
    assert explained["row"]["sopp"] == pytest.approx(mine.sopp)
    # ... until one of the four makes their grade private: then "—" (the page cache too)
    assert f"{mine.sopp:.2f}" in me_client.get(url("sessions")).content.decode()
    member_privacy_set(member=graded.member(p.others[0]), private=True)
    assert me_client.get(url("api-explain", mine.pk)).json()["sof"] is None
    assert f"{mine.sopp:.2f}" not in me_client.get(url("sessions")).content.decode()


def test_the_partner_of_a_private_member_sees_no_pairs_grade(me_client, graded):
    together = SessionGrade.objects.filter(
        member=graded.me, partner=graded.private, session_grade__isnull=False
    ).first()
    pair_grade = (together.grade_before + together.partner_grade) / 2
    explained = me_client.get(url("api-explain", together.pk)).json()
    steps = {s["label"]: s["value"] for s in explained["steps"]}
    assert steps["Partner's grade"] == "Private" and steps["Pair's grade"] == "Private"
    page = me_client.get(url("explain", together.pk)).content.decode()
    for body in (page, str(explained)):
        assert f"{pair_grade:.2f}" not in body
        assert f"{together.partner_grade:.2f}" not in body
    # the member's own figures stay
    assert steps["Session grade"].endswith(f"{together.session_grade:.2f}")


def test_no_grades_at_the_start_beside_an_average_over_a_private_grade(me_client, graded):
    """Every Riverside field holds the private member: its table lists no one's grade at the
    start but the member's own, since SoF beside them would give the private grade."""
    row = SessionGrade.objects.filter(
        member=graded.me, version__session__event__club=graded.riverside
    ).first()
    x = explanations.session_explain(member=graded.me, grade_id=row.pk)
    assert not x.start_grades_shown and "private" in x.field_words
    assert x.sof is not None  # a field of 16 players: the average itself is shown
    others = [g for pair in x.field if not pair.mine for _, g in pair.grades]
    assert others and all(not g[:1].isdigit() for g in others)
    page = me_client.get(url("explain", row.pk)).content.decode()
    # The member's own grade, and the partner's where the build-up above already shows it
    # (issue 30: not "(not listed)" under "Partner's grade 42.00"); no one else's.
    starts = SessionGrade.objects.filter(version=row.version).exclude(
        member__in=[graded.me, row.partner]
    )
    own = f"({row.grade_before:.2f})"
    assert own in page
    partner = f"({row.partner_grade:.2f})"
    partner_shown = x.partner_grade is not None and x.partner_grade.shown
    assert (partner in page.replace(own, "", 1)) == partner_shown
    rest = page.replace(own, "", 1).replace(partner, "", 1 if partner_shown else 0)
    for start in starts.values_list("grade_before", flat=True):
        assert f"({start:.2f})" not in rest


def test_field_table_shows_grades_at_the_start_and_sopp_is_their_average(me_client, graded):
    """Hilltop's fields hold no private grade: the table lists each published grade as it was
    at the start of the session (not today's), and SOpp is their average (S3.2)."""
    row = SessionGrade.objects.filter(
        member=graded.me,
        version__session__event__club=graded.hilltop,
        sopp__isnull=False,
        session_grade__isnull=False,
    ).first()
    x = explanations.session_explain(member=graded.me, grade_id=row.pk)
    assert x.start_grades_shown and "start of the session" in x.field_words
    starts = dict(
        SessionGrade.objects.filter(version=row.version).values_list("member_id", "grade_before")
    )
    opponents = [
        starts[m]
        for pair in row.version.pairs.exclude(pair_id=row.pair_id)
        for m in (pair.player1_id, pair.player2_id)
    ]
    assert row.sopp == pytest.approx(sum(opponents) / len(opponents))
    shown = {g for pair in x.field for _, g in pair.grades if g[:1].isdigit()}
    public = graded.member(graded.people.public)
    assert f"{starts[public.pk]:.2f}" in shown
    assert f"{public.current_grade.grade:.2f}" not in shown or (
        f"{public.current_grade.grade:.2f}" == f"{starts[public.pk]:.2f}"
    )
    # provisional newcomers are not listed with a figure
    newcomer = graded.member(graded.people.newcomers[0])
    assert f"{starts[newcomer.pk]:.2f}" not in shown


def test_history_flags_explain_a_late_upload(graded):
    rows = histories.history_decorate(
        member=graded.me, rows=histories.history_rows(member=graded.me)
    )
    late = [r for r in rows if r.late]
    assert late and all(histories.LATE_FLAG in r.flags for r in late)
    assert "graded after sessions played later" in histories.LATE_FLAG


def test_the_members_csv_never_writes_a_formula(me_client, graded):
    """Issue 21 item 4: names and event names come from uploads; a cell that a spreadsheet
    would read as a formula is written with a leading ' as the club exports do."""
    row = SessionGrade.objects.filter(member=graded.me, partner__isnull=False).first()
    Event.objects.filter(pk=row.version.session.event_id).update(name='=HYPERLINK("http://x")')
    Member.objects.filter(pk=row.partner_id).update(name="@SUM(1+1)")
    exported = list(csv.reader(io.StringIO(me_client.get(url("sessions-csv")).content.decode())))
    header, body = exported[0], exported[1:]
    cells = [cell for line in body for cell in line]
    assert '\'=HYPERLINK("http://x")' in cells and "'@SUM(1+1)" in cells
    text_columns = [header.index(c) for c in ("club", "event", "partner", "flags")]
    for line in body:
        for i in text_columns:
            assert not formula_like(line[i]), line[i]
    # numbers stay numbers: a negative excess is not quoted
    excess = [line[header.index("excess")] for line in body if line[header.index("excess")]]
    assert any(v.startswith("-") for v in excess)


def test_the_forecasts_series_leaves_out_a_small_field_with_a_private_grade(graded, two_pairs):
    mine, theirs = two_pairs
    mine_series = {s.event: s for s in forecasts.club_series(member=graded.me)}
    assert "DUO Pairs" not in mine_series
    theirs_series = {s.event: s for s in forecasts.club_series(member=graded.private)}
    assert theirs_series["DUO Pairs"].sof == pytest.approx(theirs.version.sof)
