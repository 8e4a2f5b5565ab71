"""The ledger read ahead of the fold on a thread of its own (``grading.ledger.replay.readahead``,
issue 31): every row in order, a failure of the reading raised to the fold, a fold that stops
early stops the reader, and on PostgreSQL the refold's reader reads in the refold's own
transaction (what it wrote and has not committed), so a refold inside a larger transaction
folds what that transaction wrote."""

import threading

import pytest
from django.db import connection

from grading.ledger.replay import read
from grading.ledger.replay.check import ledger_check, ledger_refold
from grading.ledger.replay.readahead import ReadAhead
from grading.ledger.replay.run import last_refold
from grading.models import LedgerEntry


def _readers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "ledger-read"]


def test_every_row_comes_in_order_across_batches():
    rows = ReadAhead(iter(range(10_007)), batch=100, depth=2)
    try:
        assert list(rows) == list(range(10_007))
    finally:
        rows.close()
    assert not _readers()


def test_an_empty_source_ends_at_once():
    rows = ReadAhead(iter(()), batch=10)
    assert list(rows) == []
    rows.close()


def test_a_failure_of_the_reading_is_raised_to_the_consumer_after_the_rows_before_it():
    def source():
        yield from range(250)
        raise RuntimeError("the server went away")

    rows = ReadAhead(source(), batch=100, depth=2)
    seen = []
    with pytest.raises(RuntimeError, match="the server went away"):
        for row in rows:
            seen.append(row)
    rows.close()
    assert seen == list(range(250))


def test_closing_early_stops_the_reader_and_closes_the_source():
    closed = threading.Event()

    def endless():
        try:
            n = 0
            while True:
                yield n
                n += 1
        finally:
            closed.set()

    rows = ReadAhead(endless(), batch=10, depth=2)
    assert [next(rows) for _ in range(25)] == list(range(25))
    rows.close()
    assert closed.is_set()
    assert not _readers()


def test_a_refold_reads_ahead_on_postgresql_in_its_own_transaction(
    ledger, ckernel_built, monkeypatch
):
    """The ``ledger`` fixture's uploads are not committed (the test's transaction holds them):
    a reader on a connection of its own would find no ledger, and the refold would fold
    nothing."""
    if connection.vendor != "postgresql":
        pytest.skip("the fold reads ahead on PostgreSQL only")
    made = []

    class Small(ReadAhead):
        def __init__(self, rows):
            super().__init__(rows, batch=3, depth=1)
            made.append(self)

    monkeypatch.setattr(read, "ReadAhead", Small)
    # a few rows a fetch: the reader's thread, not the first batch, fetches most of them
    monkeypatch.setattr(read, "CHUNK_ROWS", 4)
    assert ledger_refold() == LedgerEntry.objects.count() > 3
    assert len(made) == 1
    folded = last_refold["fold"]
    assert folded.entries == LedgerEntry.objects.count()
    assert folded.pairs > 0 and folded.by_columns > 0
    assert not _readers()
    assert ledger_check() == []  # what the refold wrote is the ledger's fold
