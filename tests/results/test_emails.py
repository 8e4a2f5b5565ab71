"""The email after a graded session (S16), sent over SMTP to a real server started here:
one per player with a login and an email, only their own figures, never twice for one member
and version, retried when the mail server refuses, the member's and the club's switches, the
one-click link, corrections."""

import datetime as dt
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from grading.models import SessionGrade, SessionVersion
from grading.results.sending import due_emails_send, session_emails_send, weekly_summaries_send
from grading.results.tasks import send_session_emails
from grading.uploads.services import upload_create
from members.models import Member, ResultsEmail
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import MemberFactory, UserFactory

pytestmark = pytest.mark.django_db

SCORES = [62.5, 55.0, 52.5, 50.0, 47.5, 45.0, 44.0, 43.5]
SWAPPED = [55.0, 62.5] + SCORES[2:]  # a correction: pairs 1 and 2 swap; pair 5 is as it was
DATE = "2026-11-16"


def address(number: str) -> str:
    return f"m{number}@example.org"


@pytest.fixture
def players(club_admin):
    """1001 and 1002 (pair 1), 1003 (pair 2) and 1009 (pair 5) have logins and emails; 1005
    has a login without an email; the others have no login."""
    for number in ("1001", "1002", "1003", "1009"):
        MemberFactory(
            national_number=number, name=f"Player {number}", user=UserFactory(email=address(number))
        )
    MemberFactory(national_number="1005", name="Player 1005", user=UserFactory(email=""))
    return club_admin[2]


def upload(club, capture, scores=SCORES, date=DATE, name="r.csv"):
    with capture(execute=True):
        done = upload_create(
            club=club,
            filename=name,
            data=csv_bytes(mp_session_rows(scores=scores, date=date)),
            check_club=False,
        )
    done.refresh_from_db()
    assert done.status == "graded", done.problems
    return done.versions.get()


def text_of(message) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()


def html_of(message) -> str:
    return message.get_body(preferencelist=("html",)).get_content()


def test_each_player_with_a_login_and_an_email_gets_one_email_with_their_result(
    players, mailbox, django_capture_on_commit_callbacks
):
    version = upload(players, django_capture_on_commit_callbacks)
    assert sorted(m["To"] for m in mailbox.messages) == sorted(
        address(n) for n in ("1001", "1002", "1003", "1009")
    )
    message = mailbox.to(address("1003"))[0]
    grade = SessionGrade.objects.get(version=version, member__national_number="1003")
    text = text_of(message)
    assert message["Subject"].startswith("Your result: MON Pairs")
    assert "2 of 8" in text and "55.00%" in text
    assert f"{grade.session_grade:.2f}" in text and f"{grade.grade_after:.2f}" in text
    session = version.session
    assert f"/results/{session.pk}/v{version.number}/" in text
    explain = reverse("members:explain", args=[session.pk])
    assert explain in text
    html = html_of(message)
    assert 'name="viewport"' in html and f"/results/{session.pk}/v1/" in html
    assert message["List-Unsubscribe"].strip().startswith("<http")
    assert ResultsEmail.objects.filter(version=version, status="sent").count() == 4


def test_an_email_carries_only_the_recipients_own_figures(
    players, mailbox, django_capture_on_commit_callbacks
):
    """S16, S7: the partner (private) is named, never graded; every figure in the email is the
    recipient's own place, score, session grade or grade after."""
    Member.objects.filter(national_number="1002").update(grade_private=True)
    version = upload(players, django_capture_on_commit_callbacks)
    for number in ("1001", "1003"):
        own = SessionGrade.objects.get(version=version, member__national_number=number)
        allowed = {f"{own.session_grade:.2f}", f"{own.grade_after:.2f}", "62.50", "55.00"}
        for message in mailbox.to(address(number)):
            for body in (text_of(message), html_of(message)):
                body = re.sub(r"https?://\S+", "", body)
                assert set(re.findall(r"\d+\.\d\d", body)) <= allowed
    text = text_of(mailbox.to(address("1001"))[0])
    assert "with Player 1002" in text


def test_a_task_delivered_twice_sends_once(players, mailbox, django_capture_on_commit_callbacks):
    version = upload(players, django_capture_on_commit_callbacks)
    assert len(mailbox.messages) == 4
    send_session_emails.apply(args=[version.pk])
    assert session_emails_send(version_id=version.pk) == 0
    assert len(mailbox.messages) == 4
    assert ResultsEmail.objects.filter(version=version).count() == 4


def test_a_mail_server_that_refuses_then_accepts(
    players, mailbox, django_capture_on_commit_callbacks
):
    mailbox.refuse = 100
    version = upload(players, django_capture_on_commit_callbacks)
    # Grading stood: the session is graded whatever the mail server said.
    assert SessionVersion.objects.get(pk=version.pk).state == "graded"
    assert mailbox.messages == [] and mailbox.refused == 4
    failed = ResultsEmail.objects.filter(version=version, status="failed")
    assert failed.count() == 4 and {r.attempts for r in failed} == {1}
    now = timezone.now()
    assert due_emails_send(now=now) == 0  # the wait (a minute) is not over
    mailbox.refuse = 0
    assert due_emails_send(now=now + dt.timedelta(minutes=2)) == 4
    assert due_emails_send(now=now + dt.timedelta(hours=3)) == 0
    for number in ("1001", "1002", "1003", "1009"):
        assert len(mailbox.to(address(number))) == 1


def test_a_refusal_waits_longer_each_time(players, mailbox, django_capture_on_commit_callbacks):
    mailbox.refuse = 1000
    version = upload(players, django_capture_on_commit_callbacks)
    later = timezone.now()
    waits = []
    for _ in range(3):
        later += dt.timedelta(hours=3)
        due_emails_send(now=later)
        row = ResultsEmail.objects.filter(version=version).order_by("pk").first()
        waits.append(row.next_attempt - timezone.now())
    assert waits[0] < waits[1] < waits[2]


def test_a_mail_server_that_is_down_never_undoes_grading(
    players, no_mail_server, django_capture_on_commit_callbacks
):
    version = upload(players, django_capture_on_commit_callbacks)
    assert SessionVersion.objects.get(pk=version.pk).state == "graded"
    assert SessionGrade.objects.filter(version=version, session_grade__isnull=False).count() == 16
    assert ResultsEmail.objects.filter(version=version, status="failed").count() == 4


def test_the_members_choice_and_the_clubs_switch(
    players, mailbox, django_capture_on_commit_callbacks
):
    Member.objects.filter(national_number="1001").update(results_emails="none")
    Member.objects.filter(national_number="1003").update(results_emails="weekly")
    upload(players, django_capture_on_commit_callbacks)
    assert sorted(m["To"] for m in mailbox.messages) == [address("1002"), address("1009")]
    upload(players, django_capture_on_commit_callbacks, date="2026-11-09", name="b.csv")
    assert weekly_summaries_send() == 1
    summary = mailbox.to(address("1003"))
    assert len(summary) == 1 and summary[0]["Subject"] == "Your results this week"
    assert text_of(summary[0]).count("MON Pairs at") == 2
    assert weekly_summaries_send() == 0
    club = players
    club.results_emails = False
    club.save()
    before = len(mailbox.messages)
    upload(players, django_capture_on_commit_callbacks, date="2026-11-02", name="c.csv")
    assert len(mailbox.messages) == before


def test_the_one_click_link_switches_the_emails_off_without_a_login(
    client, players, mailbox, django_capture_on_commit_callbacks
):
    upload(players, django_capture_on_commit_callbacks)
    text = text_of(mailbox.to(address("1009"))[0])
    link = re.search(r"https?://[^/\s]+(/emails/off/\S+/)", text).group(1)
    page = client.get(link)
    assert page.status_code == 200 and "switched off" in page.content.decode()
    assert Member.objects.get(national_number="1009").results_emails == "none"
    before = len(mailbox.to(address("1009")))
    upload(players, django_capture_on_commit_callbacks, date="2026-11-09", name="b.csv")
    assert len(mailbox.to(address("1009"))) == before
    assert len(mailbox.to(address("1001"))) == 2  # the others still get theirs
    # The page can switch them back on; a link tampered with does nothing.
    client.post(link, {"choice": "each"})
    assert Member.objects.get(national_number="1009").results_emails == "each"
    assert client.get(link.replace("/off/", "/off/x")).status_code == 404
    assert Member.objects.get(national_number="1009").results_emails == "each"
    # A mail program's one-click POST (RFC 8058, the List-Unsubscribe-Post header).
    client.post(link, {"List-Unsubscribe": "One-Click"})
    assert Member.objects.get(national_number="1009").results_emails == "none"


def test_a_correction_emails_only_those_whose_figures_changed(
    players, mailbox, django_capture_on_commit_callbacks
):
    upload(players, django_capture_on_commit_callbacks)
    assert len(mailbox.messages) == 4
    v2 = upload(players, django_capture_on_commit_callbacks, scores=SWAPPED, name="v2.csv")
    assert v2.number == 2
    new = mailbox.messages[4:]
    assert sorted(m["To"] for m in new) == sorted(address(n) for n in ("1001", "1002", "1003"))
    for message in new:
        assert message["Subject"].startswith("Corrected result")
        assert "corrected the results" in text_of(message)
    assert "1 of 8" in text_of(mailbox.to(address("1003"))[-1])


def test_a_correction_before_the_first_emails_went_writes_to_every_player(
    players, mailbox, monkeypatch, django_capture_on_commit_callbacks
):
    """The first version's task ran only after the correction had committed (it sends
    nothing: the session is corrected): those whose figures the correction left as they were
    were told nothing yet, so the correction's email is their result, not a correction."""
    from grading.results import hooks

    queued = []
    monkeypatch.setattr(hooks, "task_queue", lambda name, *args: queued.append(args))
    v1 = upload(players, django_capture_on_commit_callbacks)
    monkeypatch.undo()
    assert queued == [(v1.pk,)] and mailbox.messages == []
    upload(players, django_capture_on_commit_callbacks, scores=SWAPPED, name="v2.csv")
    assert session_emails_send(version_id=v1.pk) == 0
    assert sorted(m["To"] for m in mailbox.messages) == sorted(
        address(n) for n in ("1001", "1002", "1003", "1009")
    )
    unchanged = mailbox.to(address("1009"))[0]
    assert unchanged["Subject"].startswith("Your result")
    assert "corrected" not in text_of(unchanged)


def test_a_weekly_member_hears_of_a_session_corrected_before_the_summary(
    players, mailbox, django_capture_on_commit_callbacks
):
    """1009's figures are the same in both versions, but the first version's row only waited
    for the summary, which leaves a corrected version out: the correction's row is kept."""
    Member.objects.filter(national_number="1009").update(results_emails="weekly")
    v1 = upload(players, django_capture_on_commit_callbacks)
    v2 = upload(players, django_capture_on_commit_callbacks, scores=SWAPPED, name="v2.csv")
    assert weekly_summaries_send() == 1
    summary = mailbox.to(address("1009"))
    assert len(summary) == 1 and text_of(summary[0]).count("MON Pairs at") == 1
    assert f"/results/{v2.session_id}/v2/" in text_of(summary[0])
    rows = dict(
        ResultsEmail.objects.filter(member__national_number="1009").values_list(
            "version_id", "status"
        )
    )
    assert rows == {v1.pk: "skipped", v2.pk: "sent"}


def test_a_refused_email_of_a_version_corrected_since_is_not_tried_again(
    players, mailbox, django_capture_on_commit_callbacks
):
    """The first emails were refused; the correction writes to all four (none was sent
    anything); the refused ones, of figures no longer the results, are never sent."""
    mailbox.refuse = 4
    v1 = upload(players, django_capture_on_commit_callbacks)
    assert ResultsEmail.objects.filter(version=v1, status="failed").count() == 4
    upload(players, django_capture_on_commit_callbacks, scores=SWAPPED, name="v2.csv")
    assert len(mailbox.messages) == 4
    assert due_emails_send(now=timezone.now() + dt.timedelta(hours=3)) == 0
    assert len(mailbox.messages) == 4
    assert ResultsEmail.objects.filter(version=v1, status="skipped").count() == 4


def test_a_server_down_fails_a_run_in_one_update_per_attempt_count(
    players, no_mail_server, django_assert_max_num_queries, django_capture_on_commit_callbacks
):
    from grading.results.sending import _failed

    version = upload(players, django_capture_on_commit_callbacks)
    rows = list(ResultsEmail.objects.filter(version=version).order_by("pk"))
    ResultsEmail.objects.filter(pk=rows[0].pk).update(attempts=3)
    ResultsEmail.objects.update(status="sending")
    rows = list(ResultsEmail.objects.filter(version=version).order_by("pk"))
    with django_assert_max_num_queries(2):
        _failed(rows)
    attempts = sorted(
        ResultsEmail.objects.filter(status="failed").values_list("attempts", flat=True)
    )
    assert attempts == [2, 2, 2, 4]


def test_the_choice_on_the_settings_page_and_through_the_api(client, players):
    member = Member.objects.get(national_number="1001")
    client.force_login(member.user)
    page = client.get(reverse("members:privacy"))
    assert 'data-testid="email-choice"' in page.content.decode()
    client.post(reverse("results:member-emails"), {"choice": "weekly"})
    assert Member.objects.get(pk=member.pk).results_emails == "weekly"
    api = reverse("results:api-emails")
    assert client.get(api).json() == {"choice": "weekly"}
    done = client.put(api, {"choice": "none"}, content_type="application/json")
    assert done.status_code == 200 and done.json() == {"choice": "none"}
    bad = client.put(api, {"choice": "daily"}, content_type="application/json")
    assert bad.status_code == 400
    assert Member.objects.get(pk=member.pk).results_emails == "none"
    client.logout()
    assert client.get(api).status_code == 403


def test_the_emails_explain_link_names_the_session_and_finds_the_members_row(
    client, players, mailbox, django_capture_on_commit_callbacks
):
    """A refold renumbers the rows of session grades; the email's link names the session, on
    the member's own page of it. The address the first emails carried sends on to it."""
    version = upload(players, django_capture_on_commit_callbacks)
    member = Member.objects.get(national_number="1003")
    client.force_login(member.user)
    url = reverse("members:explain", args=[version.session_id])
    assert url in text_of(mailbox.to(address("1003"))[0])
    grade = SessionGrade.objects.get(version=version, member=member)
    SessionGrade.objects.filter(pk=grade.pk).update(id=grade.pk + 1000)  # as a refold would
    assert client.get(url).status_code == 200
    old = client.get(f"/results/{version.session_id}/explain/")
    assert old.status_code == 302 and old["Location"] == url
    outsider = UserFactory(username="did-not-play")
    MemberFactory(user=outsider)
    client.force_login(outsider)
    assert client.get(url).status_code == 404


def test_emails_go_in_batches_one_connection_each(
    players, mailbox, monkeypatch, django_capture_on_commit_callbacks
):
    from grading.results import sending

    monkeypatch.setattr(sending, "BATCH", 2)
    upload(players, django_capture_on_commit_callbacks)
    assert len(mailbox.messages) == 4
    assert mailbox.connections == 2
