"""``replay --check`` on the compiled kernel, reading the ledger as columns (issue 18; S5.4,
S14.11): on a simulated world of several clubs and scoring types it agrees with the Python
engine's check, reads pairs sessions from the pair columns and the rest from their payloads,
and finds every kind of tampering the Python check finds, with the same words."""

import datetime as dt

import pytest
from django.core.management import call_command
from django.urls import reverse

from grading.lab.simulate import SimConfig, simulate
from grading.ledger import refresh
from grading.ledger.replay import check
from grading.ledger.replay.compare import check_compiled, last_stats
from grading.ledger.replay.read import read_seconds
from grading.ledger.step import versions_grade_pending
from grading.models import CurrentGrade, LedgerEntry, PartnershipGrade, SessionGrade, Upload
from grading.uploads.services import upload_create
from tests.factories import UserFactory

pytestmark = pytest.mark.usefixtures("ckernel_built")


@pytest.fixture
def world(db):
    from clubs.services import club_get_or_create

    sim = simulate(SimConfig(players=60, clubs=2, months=2, seed=5, county=True))
    clubs = {
        c.slug: club_get_or_create(name=c.name, slug=c.slug, national_number=c.national_number)
        for c in sim.clubs()
    }
    for upload in sim.uploads[:10]:
        result = upload_create(club=clubs[upload.club], filename=upload.filename, data=upload.data)
        assert result.status != Upload.Status.REFUSED, result.problems
        versions_grade_pending()
    yield sim


def _gist(problem: str) -> str:
    return problem.split(", computed")[0].split(" computed")[0]


def _python_check():
    return check._check_python(check.active_params(), 1e-9)


def test_the_compiled_check_reproduces_the_database(world):
    assert check.check_engine() == "the compiled kernel"
    seen = []
    assert check.ledger_check(progress=lambda done, total: seen.append((done, total))) == []
    stats = last_stats["check"]
    assert stats.entries == LedgerEntry.objects.count() == seen[-1][0] == seen[-1][1]
    assert stats.by_columns > 0 and stats.pairs > 0
    assert (
        stats.by_columns + stats.by_payload
        == LedgerEntry.objects.filter(operation="process").count()
    )
    assert _python_check() == []
    assert read_seconds() > 0


def test_the_compiled_check_finds_what_the_python_check_finds(world):
    graded = SessionGrade.objects.filter(entry__isnull=False, session_grade__isnull=False)
    first, second = graded.order_by("pk")[:2]
    SessionGrade.objects.filter(pk=first.pk).update(par=1.5, partner_grade=None)
    SessionGrade.objects.filter(pk=second.pk).update(score_term=-7.0)
    CurrentGrade.objects.filter(pk=CurrentGrade.objects.order_by("pk")[0].pk).update(grade=12.0)
    pg = PartnershipGrade.objects.order_by("pk").first()
    PartnershipGrade.objects.filter(pk=pg.pk).update(grade=pg.grade + 1)
    extra = SessionGrade.objects.get(pk=first.pk)
    extra.pk = None
    extra.member = CurrentGrade.objects.order_by("-pk")[0].member
    extra.save()
    compiled = check.ledger_check()  # on PostgreSQL: compared in the database
    assert len(compiled) >= 6
    # the same problems, the computed figures equal to 1e-9 (their last digits may differ)
    expected = sorted(map(_gist, _python_check()))
    assert sorted(map(_gist, _not_tables(compiled))) == expected
    merged = check_compiled(check.active_params(), 1e-9, None, in_database=False)
    assert sorted(map(_gist, _not_tables(merged))) == expected
    # the subject tables (compared with the stored session grades) differ by the extra grade:
    # its member's, and the partnership of the pair it was added to
    tables = [p for p in compiled if p not in _not_tables(compiled)]
    touched = (extra.member.national_number, first.member.national_number)
    assert tables and all(any(n in p for n in touched) for p in tables)


def _not_tables(problems: list[str]) -> list[str]:
    return [p for p in problems if "subject tables" not in p]


def test_replay_check_command_says_which_engine_and_shows_progress(world, capsys):
    call_command("replay", "--check")
    out = capsys.readouterr()
    assert "Folding with the compiled kernel." in out.out
    assert "every stored grade is reproduced" in out.out
    assert "100%" in out.err and "entries" in out.err


def test_an_interrupted_refold_writes_nothing(world, capsys):
    before = list(SessionGrade.objects.order_by("pk").values_list("pk", "session_grade"))

    def interrupt(done, total):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        check.ledger_refold(progress=interrupt)
    assert list(SessionGrade.objects.order_by("pk").values_list("pk", "session_grade")) == before
    assert check.ledger_check() == []
    assert refresh.grades_as_of(as_of=dt.date(2030, 1, 1))


def test_the_parameters_page_shows_a_running_refold(world, client):
    client.force_login(UserFactory(is_staff=True))
    check.refold_progress_record(500, 2000)
    page = client.get(reverse("staff-parameters")).content.decode()
    assert "Refold running: 500 of 2000 ledger entries done." in page
    check.ledger_refold()
    assert check.refold_progress() is None
    assert "Refold running" not in client.get(reverse("staff-parameters")).content.decode()
