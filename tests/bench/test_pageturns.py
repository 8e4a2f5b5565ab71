"""The page passes timed in turns with the no-op floor (grading/lab/pageturns.py, its use in
grading/lab/load.py: BenchStack.page_benchmark): issue 31 item 3's targets are ratios to the
floor, so each slice of a pass is compared with the floor slice timed beside it."""

from __future__ import annotations

import json

import pytest

from grading.lab import load
from grading.lab.bench import SCALES
from grading.lab.pageturns import in_turns, pass_median


def figures(p95: float, rps: float, **more) -> dict:
    return {
        "p50_ms": p95 / 2,
        "p95_ms": p95,
        "p99_ms": p95 * 1.5,
        "mean_ms": p95 / 2,
        "max_ms": p95 * 3,
        "rps": rps,
        "requests": int(rps * 10),
        "errors": 0,
    } | more


def test_the_pass_and_the_floor_alternate_which_goes_first():
    order = []
    passes = iter([figures(80, 600), figures(60, 700), figures(70, 900)])
    floors = iter([figures(40, 1000), figures(40, 1400), figures(35, 1000)])

    def page_pass():
        order.append("pass")
        return next(passes)

    def floor():
        order.append("floor")
        return next(floors)

    turns = in_turns(page_pass, floor, 3)

    assert order == ["pass", "floor", "floor", "pass", "pass", "floor"]
    # each round's ratios are to the floor slice beside it: 2.0/0.6, 1.5/0.5, 2.0/0.9
    assert [r["p95_ratio"] for r in turns["rounds"]] == [2.0, 1.5, 2.0]
    assert [r["rps_share"] for r in turns["rounds"]] == [0.6, 0.5, 0.9]
    assert turns["p95_ratio"] == 2.0 and turns["rps_share"] == 0.6
    # not the ratio of the medians (70/40 = 1.75, 700/1000 = 0.7): a slow minute of the
    # machine slows the pass and its floor together, and cancels in the pair's ratio
    assert turns["pass"]["p95_ms"] == 70 and turns["floor"]["rps"] == 1000


def test_a_pass_over_its_slices_takes_medians_and_sums_counts():
    merged = pass_median([figures(80, 600, errors=1), figures(60, 700), figures(70, 900, errors=2)])
    assert merged["p95_ms"] == 70 and merged["rps"] == 700 and merged["p50_ms"] == 35
    assert merged["max_ms"] == 240
    assert merged["requests"] == 6000 + 7000 + 9000
    assert merged["errors"] == 3 and merged["slices"] == 3
    assert pass_median([]) == {}


def test_a_round_without_figures_gives_no_ratio_and_rounds_must_be_asked():
    turns = in_turns(lambda: {"p95_ms": 0, "rps": 0}, lambda: figures(40, 1000), 1)
    assert turns["p95_ratio"] is None and turns["rps_share"] is None
    with pytest.raises(ValueError):
        in_turns(dict, dict, 0)


@pytest.fixture
def stack(tmp_path, monkeypatch):
    """A BenchStack whose wrk runs, page checks and helper commands are recorded, not run."""
    made = load.BenchStack(scale=SCALES["tiny"], workdir=tmp_path)
    made.state = {
        "club": "club-1",
        "admin_session": "admin",
        "sessions": ["s1", "s2"],
        "burst_logins": {"101": "b1", "102": "b2"},
        "burst_files": [["101"], ["102"]],
    }
    made.calls = []
    monkeypatch.setattr(load.shutil, "which", lambda name: "/usr/bin/wrk")
    monkeypatch.setattr(made, "_check_page", lambda path, session=None: None)
    monkeypatch.setattr(made, "_queue_empty", lambda timeout=60.0, **kw: 0.25)

    def run(*args, **extra):
        (tmp_path / "kept.json").write_text(json.dumps({"cards": 2, "histories": 2}))
        return ""

    monkeypatch.setattr(made, "_run", run)
    monkeypatch.setattr(made, "_deployed", lambda: {})

    def wrk(script, seconds, clients):
        page = "floor" if "/bench-floor/" in script else "burst" if '"b1"' in script else "pages"
        made.calls.append((page, seconds))
        n = len(made.calls)
        return figures(50.0 + n, 1000.0 if page == "floor" else 650.0 + n)

    monkeypatch.setattr(made, "_wrk", wrk)
    return made


def test_the_page_benchmark_times_warm_and_burst_in_turns_with_the_floor(stack):
    measured = stack.page_benchmark(30, 50)

    # cold for the whole pass, then 10 s slices: warm and floor, then burst and floor, in turns
    assert stack.calls == [
        ("pages", 30),
        ("pages", 10), ("floor", 10), ("floor", 10), ("pages", 10), ("pages", 10), ("floor", 10),
        ("burst", 10), ("floor", 10), ("floor", 10), ("burst", 10), ("burst", 10), ("floor", 10),
    ]  # fmt: skip
    assert measured["p95_ms"] == 51.0  # the cold pass's own figures
    warm, burst = measured["warm"], measured["burst"]
    # the warm slices were calls 2, 5, 6; their floors calls 3, 4, 7
    assert warm["rps"] == 655.0 and warm["slices"] == 3
    assert warm["rps_share"] == pytest.approx(0.655)
    assert warm["p95_ratio"] == pytest.approx(56 / 57)  # the middle of 52/53, 55/54, 56/57
    assert burst["members"] == 2 and burst["kept"] == {"cards": 2, "histories": 2}
    assert burst["rps_share"] == pytest.approx(0.661)
    assert measured["floor"]["slices"] == 6 and measured["floor"]["rps"] == 1000.0
    assert len(measured["turns"]["warm"]) == len(measured["turns"]["burst"]) == 3


def test_without_members_of_the_last_uploads_the_burst_is_left_out(stack):
    stack.state["burst_logins"] = {}
    measured = stack.page_benchmark(3, 4)
    assert measured["burst"] == {} and measured["turns"]["burst"] == []
    assert [page for page, _ in stack.calls] == ["pages"] + ["pages", "floor", "floor", "pages",
                                                             "pages", "floor"]  # fmt: skip
    assert measured["floor"]["slices"] == 3
