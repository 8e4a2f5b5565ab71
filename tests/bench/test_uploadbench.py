"""The upload benchmark's timing in turns (grading/lab/uploadbench.py): on a national run the
region's uploads and the national ones alternate, so their ratio (issue 31 item 2) is taken on
the same minutes of the machine."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from grading.lab import uploadbench
from grading.lab.management.commands.bench import _broker_after


class FakeStack:
    """What ``uploadbench`` asks of a ``BenchStack``; every upload is recorded in ``order``."""

    def __init__(self, name: str, redis_url: str, order: list) -> None:
        self.name = name
        self.scale = SimpleNamespace(name="region")
        self.redis_url = redis_url
        self.workers = 2
        self.worker_spawned = 0.0
        self.order = order
        self.started = False

    def log(self, message: str) -> None:
        pass

    def burst_logins(self, files) -> None:
        assert not self.started, "the players' logins made after the workers started"
        self.burst = [name for name, _ in files]

    def start_worker(self) -> None:
        self.started = True

    def upload_once(self, slug: str, name: str, data: bytes, timeout: float = 120.0) -> float:
        assert self.started, "an upload before the workers started"
        self.order.append((self.name, name))
        return float(len(self.order))

    def worker_rss_mb(self) -> float:
        return 100.0


@pytest.fixture
def files(monkeypatch):
    def made(scale, count):
        return "club", [(f"f{k}", b"<USEBIO/>") for k in range(count)]

    monkeypatch.setattr(uploadbench, "upload_files", made)
    drained = []
    monkeypatch.setattr(uploadbench, "queue_wait", lambda url, t, log: drained.append(url) or 0.5)
    return drained


def test_uploads_alternate_which_stack_goes_first(files):
    order: list = []
    region = FakeStack("region", "redis://127.0.0.1:6379/14", order)
    national = FakeStack("national", "redis://127.0.0.1:6379/13", order)

    first, second = uploadbench.uploads_paired(region, national, 4)

    # each stack's cold upload first (untimed), its queue drained, then the pairs in turns
    assert order == [
        ("region", "f0"),
        ("national", "f0"),
        ("region", "f1"),
        ("national", "f1"),
        ("national", "f2"),
        ("region", "f2"),
        ("region", "f3"),
        ("national", "f3"),
        ("national", "f4"),
        ("region", "f4"),
    ]
    assert files == [region.redis_url, national.redis_url]
    assert region.burst == national.burst == ["f0", "f1", "f2", "f3", "f4"]
    assert first["times_ms"] == [3.0, 6.0, 7.0, 10.0]
    assert second["times_ms"] == [4.0, 5.0, 8.0, 9.0]
    assert first["uploads"] == second["uploads"] == 4
    assert first["cold_first_ms"] == 1.0 and second["cold_first_ms"] == 2.0
    assert first["drained_before_s"] == 0.5


def test_two_stacks_on_one_broker_are_refused(files):
    order: list = []
    url = "redis://127.0.0.1:6379/13"
    with pytest.raises(ValueError, match="two brokers"):
        uploadbench.uploads_paired(FakeStack("a", url, order), FakeStack("b", url, order), 2)
    assert order == []


def test_one_stack_alone_times_its_uploads_in_order(files):
    order: list = []
    stack = FakeStack("region", "redis://127.0.0.1:6379/13", order)
    report = uploadbench.upload_benchmark(stack, 3)
    assert [name for _, name in order] == ["f0", "f1", "f2", "f3"]
    assert report["times_ms"] == [2.0, 3.0, 4.0]
    assert report["p95_ms"] >= report["p50_ms"] == 3.0


@pytest.mark.parametrize(
    ("url", "offset", "expected"),
    [
        ("redis://127.0.0.1:6379/13", 1, "redis://127.0.0.1:6379/14"),
        ("redis://127.0.0.1:6379", 1, "redis://127.0.0.1:6379/1"),
        ("redis://127.0.0.1:6379/13", 0, "redis://127.0.0.1:6379/13"),
    ],
)
def test_a_second_stack_gets_the_next_redis_database(url, offset, expected):
    assert _broker_after(url, offset) == expected
