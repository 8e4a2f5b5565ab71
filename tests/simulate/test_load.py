"""The simulator end to end on the database: its files through the real upload service and
ledger, the report command and the staff page (issue 9)."""

import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from grading.lab.simulate import SimConfig, simulate
from grading.ledger.replay.check import ledger_check
from grading.ledger.step import versions_grade_pending
from grading.models import SessionVersion, Upload
from grading.staff.quality import params_for, quality_report
from grading.uploads.services import upload_create
from tests.factories import UserFactory
from tests.offline import PLOTLY_FULL, assert_served_locally

TINY = SimConfig(players=60, clubs=2, months=1, seed=21, county=True)


@pytest.fixture
def loaded(db, tmp_path):
    """The tiny world's first uploads imported through upload_create and graded."""
    from clubs.services import club_get_or_create

    world = simulate(TINY)
    clubs = {
        c.slug: club_get_or_create(name=c.name, slug=c.slug, national_number=c.national_number)
        for c in world.clubs()
    }
    for upload in world.uploads[:6]:
        result = upload_create(club=clubs[upload.club], filename=upload.filename, data=upload.data)
        assert result.status != Upload.Status.REFUSED, result.problems
        versions_grade_pending()
    truth = tmp_path / "truth.json"
    truth.write_text(json.dumps(world.truth()))
    return world, truth


def test_simulated_uploads_are_graded_and_the_ledger_replays(loaded):
    assert SessionVersion.objects.filter(state=SessionVersion.State.GRADED).count() >= 5
    assert not SessionVersion.objects.filter(state=SessionVersion.State.STORED).exists()
    assert ledger_check() == []


def test_the_report_reads_the_database_and_replays_other_parameters(loaded, capsys):
    _, truth_path = loaded
    report = quality_report(params="gain=1.5", truth=json.loads(truth_path.read_text()))
    assert report["sessions"] >= 5
    assert 0.7 < report["flatness"] < 1.0
    assert report["fr18"]["groups"] > 0
    assert report["compare"]["params"].endswith("gain=1.5")
    assert report["compare"]["sessions"] == report["sessions"]
    assert report["compare"]["fr18"]["Svar"] == pytest.approx(report["fr18"]["Svar"])
    assert report["compare"]["fr18"]["Gvar"] != pytest.approx(report["fr18"]["Gvar"])
    assert {r["status"] for r in report["truth"]} >= {"P", "all"}
    # Replaying with the stored parameters reproduces the stored figures.
    same = quality_report(params="ngs-15a")["compare"]
    assert same["fr18"]["Gvar"] == pytest.approx(report["fr18"]["Gvar"])
    assert same["score_minus_par_mp"]["sd"] == pytest.approx(report["score_minus_par_mp"]["sd"])
    # The command prints the same figures.
    call_command("grading_report", "--truth", str(truth_path), "--params", "fr18-factors")
    out = capsys.readouterr().out
    assert "board flatness F" in out and "fr18-factors" in out and "Evar" in out
    assert "Grades against true strength" in out
    call_command("grading_report", "--json")
    assert json.loads(capsys.readouterr().out)["sessions"] >= 5


def test_params_overrides(db):
    assert params_for("fr18-factors").f_cross == 6.12
    assert params_for("gain=1.5").gain == 1.5
    with pytest.raises(ValueError):
        params_for("colour=blue")


def test_simulate_command_writes_files_and_loads_them(db, tmp_path, capsys):
    call_command(
        "simulate",
        "--players",
        "40",
        "--clubs",
        "1",
        "--months",
        "1",
        "--seed",
        "3",
        "--out",
        str(tmp_path),
        "--no-county",
    )
    files = sorted(p.name for p in tmp_path.glob("*.xml"))
    assert files and json.loads((tmp_path / "truth.json").read_text())
    call_command(
        "simulate",
        "--players",
        "40",
        "--clubs",
        "1",
        "--months",
        "1",
        "--seed",
        "3",
        "--load",
        "--no-county",
    )
    assert Upload.objects.count() == len(files)
    assert not Upload.objects.filter(status=Upload.Status.REFUSED).exists()
    assert ledger_check() == []


def test_staff_quality_page(loaded, client):
    url = reverse("staff-quality")
    assert client.get(url).status_code == 302  # anonymous: to the login page
    client.force_login(UserFactory())
    assert client.get(url).status_code == 403  # a member who is not staff: the product's own page
    client.force_login(UserFactory(is_staff=True))
    page = client.get(url, {"params": "gain=1.5"})
    assert page.status_code == 200
    html = page.content.decode()
    assert_served_locally(html, plotly=PLOTLY_FULL)
    assert 'id="chart-flatness"' in html and "gain=1.5" in html
    bad = client.get(url, {"params": "no-such-set"})
    assert bad.status_code == 200 and "unknown NGS parameter set" in bad.content.decode()


@pytest.mark.parametrize(
    "args, says",
    [
        (["--players", "12", "--clubs", "3"], "too small to simulate"),
        (["--players", "0", "--clubs", "0"], "at least 1"),
    ],
)
def test_a_world_too_small_is_a_command_error(db, tmp_path, args, says):
    """Found by review: tiny worlds ended in a traceback from deep in the simulator."""
    from django.core.management import CommandError

    with pytest.raises(CommandError, match=says):
        call_command("simulate", *args, "--out", str(tmp_path))
