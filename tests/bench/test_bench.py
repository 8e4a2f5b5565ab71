"""The benchmark command and its helpers (issue 9). Nothing here is timed: the figures are
checked for shape and sanity only."""

import datetime as dt
import io
import json

import pytest
from django.core.management import call_command

from grading.ingest import parse_file
from grading.lab.bench import (
    SCALES,
    extrapolate_seconds,
    fastest_path,
    percentile,
    ratio,
    replay_benchmark,
    synthetic_ledger,
)
from grading.lab.bench_setup import club_upload_files, sim_start, upload_files
from grading.lab.load import players_of
from grading.lab.wrk import parse_wrk, wrk_script

KEYS = {
    "scale",
    "player_sessions",
    "replay_seconds",
    "replay_player_sessions_per_s",
    "reference_ratio",
    "openskill_ratio",
    "peak_rss_mb",
    "upload_p50_ms",
    "upload_p95_ms",
    "page_p50_ms",
    "page_p95_ms",
    "page_rps",
}


def test_command_tiny_replay_only_prints_the_json_keys():
    out, err = io.StringIO(), io.StringIO()
    call_command(
        "bench",
        "--scale",
        "tiny",
        "--json",
        "--skip-upload",
        "--skip-pages",
        stdout=out,
        stderr=err,
    )
    report = json.loads(out.getvalue())
    assert KEYS <= report.keys()
    assert report["scale"] == "tiny"
    assert report["player_sessions"] > 0
    assert report["replay_seconds"] > 0
    assert report["replay_player_sessions_per_s"] > 0
    assert report["reference_ratio"] > 0
    assert report["openskill_ratio"] > 0
    assert 0 < report["peak_rss_mb"] < 100_000
    assert report["replay_path"] in ("kernel", "ckernel")
    assert report["replay_extrapolated"] is False
    if report["replay_path"] == "ckernel":  # fed as the refold feeds it, and fed objects
        assert report["replay_feed"] == "columns"
        assert report["replay_objects_seconds"] > 0
        objects = report["replay"]["objects"]
        assert objects["feed"] == "objects"
        assert objects["player_sessions"] == report["player_sessions"]
    for key in ("upload_p50_ms", "upload_p95_ms", "page_p50_ms", "page_p95_ms", "page_rps"):
        assert report[key] is None
    subset = report["replay"]["subset"]
    assert set(subset) >= {"reference", "openskill", report["replay_path"]}
    # every engine path grades the same subset, so the ratio compares like with like
    assert (
        subset["reference"]["player_sessions"] == subset[report["replay_path"]]["player_sessions"]
    )
    assert report["machine"]["nproc"] >= 1


def test_command_fraction_is_extrapolated_and_labelled():
    out = io.StringIO()
    call_command(
        "bench",
        "--scale",
        "tiny",
        "--json",
        "--skip-upload",
        "--skip-pages",
        "--replay-fraction",
        "0.5",
        stdout=out,
        stderr=io.StringIO(),
    )
    report = json.loads(out.getvalue())
    assert report["replay_extrapolated"] is True
    assert report["replay_fraction"] == 0.5
    main = report["replay"]["main"]
    assert report["player_sessions"] > main["player_sessions"]
    assert report["replay_seconds"] > main["seconds"]
    if report["replay_path"] == "ckernel":  # the fold fed objects is extrapolated alike
        assert report["replay_objects_seconds"] > report["replay"]["objects"]["seconds"]


def test_command_text_output():
    out = io.StringIO()
    call_command("bench", "--scale", "tiny", "--skip-upload", "--skip-pages", stdout=out)
    text = out.getvalue()
    assert "replay [" in text and "reference_ratio" in text and "openskill_ratio" in text


def test_percentile_on_hand_made_numbers():
    values = [15.0, 20.0, 35.0, 40.0, 50.0]
    assert percentile(values, 50) == 35.0
    assert percentile(values, 0) == 15.0
    assert percentile(values, 100) == 50.0
    assert percentile(values, 25) == 20.0
    assert percentile(values, 95) == pytest.approx(48.0)  # 40 + 0.8 * (50 - 40)
    assert percentile([3.0, 1.0, 2.0, 4.0], 50) == 2.5  # unsorted input, even count
    assert percentile([7.0], 95) == 7.0
    assert percentile([], 50) is None
    with pytest.raises(ValueError):
        percentile(values, 101)


def test_ratio_and_extrapolation():
    assert ratio(300.0, 100.0) == 3.0
    assert ratio(None, 100.0) is None
    assert ratio(100.0, 0.0) is None
    assert extrapolate_seconds(2.0, 100, 1000) == 20.0
    with pytest.raises(ValueError):
        extrapolate_seconds(2.0, 0, 1000)


def test_scales_are_ordered_and_national_is_the_issue_size():
    national = SCALES["national"]
    assert (national.players, national.sessions) == (50_000, 400_000)
    assert SCALES["small"].sessions < SCALES["region"].sessions < national.sessions
    for scale in SCALES.values():
        assert scale.subset_sessions <= scale.sessions


def test_fastest_path_is_a_known_path():
    assert fastest_path() in ("kernel", "ckernel")


def test_replay_benchmark_keeps_its_shape():
    ledger = synthetic_ledger(60, 30, seed=3)
    result = replay_benchmark(ledger, "kernel")
    assert {
        "path",
        "ops",
        "sessions",
        "player_sessions",
        "seconds",
        "player_sessions_per_s",
        "peak_rss_mb",
        "subjects",
    } <= result.keys()
    assert result["ops"] == len(ledger)


def test_parse_wrk_reads_the_script_line():
    stdout = (
        "Running 30s test @ http://127.0.0.1:8000/\n  2 threads and 50 connections\n"
        'BENCHJSON {"requests": 3000, "duration_us": 30000000, "p50_us": 12500, "p95_us": 40000,'
        ' "p99_us": 61000, "max_us": 90000, "mean_us": 15000.0, "errors_status": 2,'
        ' "errors_connect": 0, "errors_read": 1, "errors_timeout": 0}\n'
    )
    figures = parse_wrk(stdout)
    assert figures["requests"] == 3000
    assert figures["rps"] == 100.0
    assert figures["p50_ms"] == 12.5
    assert figures["p95_ms"] == 40.0
    assert figures["errors"] == 3


def test_wrk_script_rotates_members_and_pages():
    script = wrk_script(["abc", "def"], ["/me/", "/me/sessions/"])
    assert '"abc", "def"' in script and '"/me/sessions/"' in script
    assert "sessionid=" in script and "X-Forwarded-Proto" in script
    assert "latency:percentile(95)" in script


def test_sim_start_leaves_room_for_the_uploads():
    start = sim_start(3, today=dt.date(2026, 11, 22))
    assert start == dt.date(2026, 6, 1)
    assert sim_start(1, today=dt.date(2026, 3, 10)) == dt.date(2025, 12, 1)


def test_upload_files_are_distinct_twelve_table_usebio_files():
    today = dt.date(2026, 11, 22)
    slug, files = upload_files(SCALES["tiny"], 2, today=today)
    assert len(files) == 2 and files[0][1] != files[1][1]
    for name, data in files:
        parsed = parse_file(name, data, club=slug)
        assert not parsed.problems
        (session,) = parsed.sessions
        assert len(session.pairs) == 24  # 12 tables, a Mitchell
        assert session.date < today


def test_wrk_script_carries_the_pinned_pages():
    """The club's grade list is requested with its administrator's session (issue 17)."""
    script = wrk_script(["abc"], ["/me/"], pinned=[("admin", "/clubs/c/grades/")])
    assert '{"abc", "/me/"}' in script and '{"admin", "/clubs/c/grades/"}' in script


def test_club_upload_files_use_the_clubs_members():
    numbers = [str(100000 + i) for i in range(60)]
    slug, files = club_upload_files("club-001", numbers, 3)
    assert slug == "club-001" and len(files) == 3
    assert len({data for _, data in files}) == 3
    text = files[0][1].decode()
    assert sum(n in text for n in numbers) == 48  # 24 pairs of the club's members


def test_the_email_burst_takes_the_players_of_each_uploaded_file():
    """The burst pass opens the pages of exactly the members each file graded."""
    numbers = [str(100000 + i) for i in range(60)]
    _, files = club_upload_files("club-001", numbers, 2)
    for _, data in files:
        players = players_of(data)
        text = data.decode()
        assert len(players) == 48 and set(players) <= set(numbers)
        assert all(f"<NATIONAL_ID_NUMBER>{n}</NATIONAL_ID_NUMBER>" in text for n in players)
    assert players_of(files[0][1]) != players_of(files[1][1])


@pytest.mark.django_db
def test_the_floor_view_is_a_django_view_beside_the_product_routes(client, settings):
    settings.ROOT_URLCONF = "grading.lab.floor"
    floor = client.get("/bench-floor/", secure=True)
    assert floor.status_code == 200 and floor.content == b"grade floor"
    assert client.get("/me/", secure=True).status_code == 302  # the product's, to the login


def test_the_national_builds_report_is_read_from_its_output_and_printed():
    """``bench --scale national`` reports the build it ran (issue 31's first row): the last
    JSON line ``manage.py national --json`` prints, and a line of the text output."""
    from grading.lab.load import national_report
    from grading.lab.management.commands.bench import Command

    build = {
        "seconds": 717.7,
        "inputs_seconds": 167.3,
        "refold_seconds": 304.7,
        "schemes_seconds": 242.3,
        "refold_peak_rss_mb": 1950,
        "schemes_peak_rss_mb": 1949,
    }
    out = "national: refold 409233 of 409233\n" + json.dumps(build) + "\n"
    assert national_report(out) == build
    assert national_report("copied from national") is None
    text = io.StringIO()
    command = Command(stdout=text)
    machine = {"date": "d", "commit": "c", "nproc": 2, "memory_gb": 24, "cpu": "x"}
    command._print(
        {"scale": "national", "machine": machine, "national_build": build, "total_seconds": 1.0}
    )
    assert "national build: 717.7 s (inputs 167.3, refold 304.7, schemes 242.3), peak 1,950 MB" in (
        text.getvalue()
    )


def test_a_national_run_refuses_to_start_without_the_compiled_kernel(monkeypatch):
    """Without the library the national build and refolds would fold in Python (hours, over
    10 GB): the bench says so before it builds anything."""
    from django.core.management.base import CommandError

    from grading.lab.management.commands import bench

    monkeypatch.setattr(bench, "ckernel_available", lambda: False)
    with pytest.raises(CommandError, match="compiled kernel is not built"):
        call_command("bench", "--scale", "national", "--json", stdout=io.StringIO())


def test_a_national_run_without_ppis_compiled_fold_warns_and_says_so(monkeypatch):
    """PPI's fold in Python is correct and slower (the schemes' rebuild of a national build):
    the run goes on, warns, and its report says which fold ran."""
    from grading.lab.management.commands import bench

    monkeypatch.setattr(bench, "ckernel_available", lambda: True)
    monkeypatch.setattr(bench, "cbulk_available", lambda: False)
    out, err = io.StringIO(), io.StringIO()
    call_command(
        "bench",
        "--scale",
        "national",
        "--json",
        "--skip-replay",
        "--skip-upload",
        "--skip-pages",
        stdout=out,
        stderr=err,
    )
    assert "PPI's compiled fold is not built" in err.getvalue()
    assert json.loads(out.getvalue())["ppi_compiled"] is False
