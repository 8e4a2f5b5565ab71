"""Rows gathered as columns for binary COPY (``grading.common.pgcopy.GatheredColumns``), what
the refold and ``replay --check`` write their records with: a version's value repeated on each
of its rows, a value per row, a run of figures per row split into columns; and, on
PostgreSQL, the rows read back equal to the values given, of every field type the refold
writes (bigint, integer, date, smallint, boolean, double precision with NaN)."""

import datetime as dt
import math
import random
from array import array

from grading.common.pgcopy import DATE_EPOCH, GatheredColumns, copy_columns, gathered

LAYOUT = (
    gathered("const", "q", "version"),
    gathered("rows", "i", "member"),
    gathered("const", "i", "day", sql="date"),
    gathered("rows", "b", "reported"),
    gathered("rows", "h", "reason"),
    gathered("block", "d", "a", "b", "c"),
)


def _versions(seed: int = 7):
    """Random versions: (id, day, members, reported flags, reasons, figures)."""
    rng = random.Random(seed)
    out = []
    for v in range(40):
        n = rng.randint(0, 30)
        figures = [rng.uniform(-50, 90) for _ in range(3 * n)]
        if n:
            figures[rng.randrange(3 * n)] = math.nan
        out.append(
            (
                10_000_000_000 + v,
                rng.randint(-700_000, 20_000),
                array("i", [rng.randint(1, 2**31 - 1) for _ in range(n)]),
                array("b", [rng.randint(0, 1) for _ in range(n)]),
                array("b", [rng.randint(0, 12) for _ in range(n)]),  # widened to 'h'
                array("d", figures),
            )
        )
    return out


def _expected_rows(versions):
    return [
        (vid, member[j], day, bool(flag[j]), reason[j], *figures[3 * j : 3 * j + 3])
        for vid, day, member, flag, reason, figures in versions
        for j in range(len(member))
    ]


def _gathered(versions) -> GatheredColumns:
    gathered = GatheredColumns(LAYOUT)
    for vid, day, member, flag, reason, figures in versions:
        gathered.add(len(member), vid, member, day, flag, reason, figures)
    return gathered


def test_the_columns_hold_each_row_in_the_order_given():
    versions = _versions()
    gathered = _gathered(versions)
    expected = _expected_rows(versions)
    assert gathered.rows == len(expected) > 0
    columns = gathered.take()
    assert len(columns) == 5 + 3  # the block of three figures split into three columns
    assert [c.typecode for c in columns] == ["q", "i", "i", "b", "h", "d", "d", "d"]
    got = list(zip(*columns, strict=True))
    for row, want in zip(got, expected, strict=True):
        assert row[:3] == want[:3]
        assert bool(row[3]) == want[3] and row[4] == want[4]
        for x, y in zip(row[5:], want[5:], strict=True):
            assert x == y or (math.isnan(x) and math.isnan(y))
    assert gathered.rows == 0
    assert [len(c) for c in gathered.take()] == [0] * 8  # taken: it starts again empty


def test_the_rows_copied_to_postgresql_read_back_as_given(postgres):
    versions = _versions(11)
    with postgres.cursor() as cursor:
        declared = GatheredColumns(LAYOUT).columns_sql()
        assert declared == (
            "version bigint, member integer, day date, reported boolean, reason smallint, "
            "a double precision, b double precision, c double precision"
        )
        cursor.execute(f"CREATE TEMPORARY TABLE gathered_rows ({declared})")
        # gathered and written in two COPYs, as the refold does between the fold's chunks
        copy_columns(cursor.cursor, "gathered_rows", _gathered(versions[:20]).take())
        copy_columns(cursor.cursor, "gathered_rows", _gathered(versions[20:]).take(), block=17)
        cursor.execute("SELECT * FROM gathered_rows")
        got = cursor.fetchall()
        cursor.execute("DROP TABLE gathered_rows")
    expected = _expected_rows(versions)
    assert len(got) == len(expected)
    epoch = dt.date.fromordinal(DATE_EPOCH)
    for row, want in zip(got, expected, strict=True):
        vid, member, day, reported, reason, *figures = want
        assert row[:5] == (vid, member, epoch + dt.timedelta(days=day), reported, reason)
        for x, y in zip(row[5:], figures, strict=True):
            assert x == y or (math.isnan(x) and math.isnan(y))
