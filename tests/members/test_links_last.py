"""A member's session addresses survive a refold, a parameter change and a correction (issue 30
item 3): the page and the API address a session by the session's id, which nothing renumbers;
the session grade rows behind them are rewritten."""

import pytest

from grading.ledger.lock import ledger_head_lock
from grading.ledger.replay.run import refold_ledger_locked
from grading.models import SessionGrade
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.members.conftest import url


def _bookmarks(me_client, graded):
    """What a member keeps before the refold: the explain page's address (from the history's
    link), the API's history row id, and the explanation each gives."""
    grade = (
        SessionGrade.objects.filter(member=graded.me, session_grade__isnull=False, live=True)
        .select_related("version")
        .order_by("-date")
        .first()
    )
    row = next(
        r for r in me_client.get(url("api-sessions")).json()["results"] if r["id"] == grade.pk
    )
    assert row["session_id"] == grade.version.session_id
    page = url("explain", row["session_id"])
    assert f'href="{page}"' in me_client.get(url("sessions")).content.decode()
    api = url("api-explain", row["session_id"])
    explained = me_client.get(api).json()
    assert explained["row"]["session_grade"] == pytest.approx(grade.session_grade)
    return grade, page, api, explained


def _refold_step_by_step():
    """The step-by-step refold (SQLite's, and the bulk refold's oracle): it deletes the
    session grades and writes them again, every row under a new id."""
    head = ledger_head_lock()
    refold_ledger_locked(head, lambda done, total: None, bulk=False)


def test_a_bookmark_and_an_api_id_answer_after_a_refold_that_renumbers_the_grades(
    me_client, graded
):
    grade, page, api, explained = _bookmarks(me_client, graded)
    old_grade_address = url("explain-grade", grade.pk)
    assert me_client.get(old_grade_address).status_code == 301
    _refold_step_by_step()
    # the rows were renumbered: the old addresses by a grade's id would now be a 404
    assert not SessionGrade.objects.filter(pk=grade.pk, member=graded.me).exists()
    assert me_client.get(old_grade_address).status_code == 404
    # the session's addresses answer, with the same session
    response = me_client.get(page)
    assert response.status_code == 200
    again = me_client.get(api).json()
    assert again["row"]["date"] == explained["row"]["date"]
    assert again["row"]["event"] == explained["row"]["event"]
    assert again["row"]["session_grade"] == pytest.approx(explained["row"]["session_grade"])
    assert again["row"]["session_id"] == explained["row"]["session_id"]
    assert again["row"]["id"] != grade.pk


def test_a_bookmark_answers_after_a_parameter_change(me_client, graded, postgres):
    from grading.ledger.replay.check import ledger_refold
    from grading.models import LedgerHead

    grade, page, api, explained = _bookmarks(me_client, graded)
    LedgerHead.objects.filter(pk=1).update(params_name="ngs-2018")
    ledger_refold()
    assert me_client.get(page).status_code == 200
    again = me_client.get(api).json()
    assert again["row"]["session_id"] == explained["row"]["session_id"]
    assert again["row"]["date"] == explained["row"]["date"]


def test_a_bookmark_follows_a_correction_to_the_new_version(me_client, graded, sender):
    """A corrected session (S5.3) gets new rows for its new version; its address shows the
    version in force."""
    p = graded.people
    numbers = [(p.me, p.partner), (p.public, p.others[0])] + [
        (p.others[2 * i + 1], p.others[2 * i + 2]) for i in range(4)
    ]
    first = dict(event_id="LINKS", date="2026-10-20", numbers=numbers)
    scores = [55.0, 52.0, 50.0, 49.0, 48.0, 46.0]
    sender(graded.riverside, csv_bytes(mp_session_rows(scores=scores, **first)), "links.csv")
    grade = SessionGrade.objects.get(member=graded.me, version__session__event__event_id="LINKS")
    api = url("api-explain", grade.version.session_id)
    assert me_client.get(api).json()["row"]["version"] == 1
    scores[0] = 60.0
    sender(graded.riverside, csv_bytes(mp_session_rows(scores=scores, **first)), "fixed.csv")
    again = me_client.get(api).json()
    assert again["withdrawn"] is False
    assert again["row"]["version"] == 2
    assert again["row"]["id"] != grade.pk
    assert again["row"]["score"] == pytest.approx(60.0)
    assert me_client.get(url("explain", grade.version.session_id)).status_code == 200


def test_a_session_the_member_did_not_play_is_not_found(me_client, graded, sender):
    p = graded.people
    numbers = [(p.others[2 * i], p.others[2 * i + 1]) for i in range(4)] + [(p.public, p.partner)]
    rows = mp_session_rows(
        event_id="NOTME", date="2026-10-21", numbers=numbers, scores=[55.0, 52.0, 50.0, 47.0, 46.0]
    )
    sender(graded.riverside, csv_bytes(rows), "notme.csv")
    theirs = SessionGrade.objects.filter(version__session__event__event_id="NOTME").first()
    assert me_client.get(url("explain", theirs.version.session_id)).status_code == 404
    assert me_client.get(url("api-explain", theirs.version.session_id)).status_code == 404
    assert me_client.get(url("explain-grade", theirs.pk)).status_code == 404
