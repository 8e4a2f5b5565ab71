"""PostgreSQL COPY, the one home of its plumbing: rows by text COPY (``table_copy``, an
``INSERT`` per row on SQLite), and binary COPY of rows already packed (``copy_binary``) or of
whole columns (``copy_columns``; ``GatheredColumns`` gathers them a group of rows at a time).
The ledger's refold, check and refresh and the schemes' rebuild write through here.

Binary COPY's framing (PostgreSQL's documentation, "COPY", "Binary Format"): the signature
``PGCOPY\\n\\377\\r\\n\\0``, a flags word and a header extension length (both 0), then the rows
(each its field count, then each field's length and value, big-endian), then -1 as a 16-bit
word.
"""

from __future__ import annotations

import datetime as dt
import struct
import sys
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db import connection
from psycopg.copy import QueuedLibpqWriter

__all__ = [
    "BINARY_HEADER",
    "BINARY_TRAILER",
    "Gathered",
    "GatheredColumns",
    "bulk_memory",
    "copy_binary",
    "copy_columns",
    "gathered",
    "table_copy",
]

BINARY_HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
BINARY_TRAILER = struct.pack(">h", -1)
# A block of rows is laid out by strided writes, one pass per byte of a row: a block of about
# a megabyte stays in the processor's cache for all of them (issue 31: blocks of 200,000 rows,
# 30 MB for a session grade's 150 bytes, took 1.98 s per 2 million rows against 0.44 s in
# blocks of 8,000, measured alone on one machine: 17 s of a national refold's 88 s fold)
_BLOCK_BYTES = 1 << 20


def bulk_memory(cursor, size: str) -> None:
    """PostgreSQL's memory for each join and sort of a whole-ledger operation (``size``: the
    settings' ``LEDGER_CHECK_WORK_MEM`` or ``LEDGER_REFOLD_WORK_MEM``), for the current
    transaction only: set at its start (the check's ``_snapshot``, the refold's ``place``), so
    its first join of millions of rows is planned with it (outside a transaction, or on
    SQLite, nothing)."""
    if connection.vendor == "postgresql" and connection.in_atomic_block:
        cursor.execute(f"SET LOCAL work_mem = '{size}'")


def table_copy(
    cursor, table: str, columns: Sequence[str], rows: Iterable[Sequence], *, freeze: bool = False
) -> int:
    """``rows`` into ``table`` with PostgreSQL COPY (psycopg 3). Returns the rows written.
    ``freeze``: the rows written frozen (the table created in this transaction): a reader in
    another transaction need not look up whether they committed."""
    if connection.vendor != "postgresql":  # SQLite, the settings' default without a server
        rows = list(rows)
        marks = ", ".join(["%s"] * len(columns))
        cursor.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)
        return len(rows)
    n = 0
    raw = cursor.cursor
    writer = QueuedLibpqWriter(raw)  # sends from a thread: PostgreSQL works while Python fills
    options = " (FREEZE)" if freeze else ""
    sql = f"COPY {table} ({', '.join(columns)}) FROM STDIN{options}"
    with raw.copy(sql, writer=writer) as copy:
        for row in rows:
            copy.write_row(row)
            n += 1
    return n


# PostgreSQL's binary dates count days from 2000-01-01: ``date.toordinal() - DATE_EPOCH``.
DATE_EPOCH = dt.date(2000, 1, 1).toordinal()


def copy_binary(
    raw, table: str, rows: Iterable[bytes], columns: Sequence[str] | None = None
) -> None:
    """Rows already packed as binary COPY rows into ``table`` (``columns``, or all its
    columns), framed by the header and trailer; ``raw`` is a psycopg cursor."""
    named = f" ({', '.join(columns)})" if columns else ""
    with raw.copy(f"COPY {table}{named} FROM STDIN (FORMAT binary)") as copy:
        copy.write(BINARY_HEADER + b"".join(rows) + BINARY_TRAILER)


def copy_columns(
    raw,
    table: str,
    columns: Sequence[array],
    block: int | None = None,
    *,
    names: Sequence[str] = (),
    empty_texts: int = 0,
    freeze: bool = False,
) -> int:
    """Columns of arrays, equally long (``q`` int8, ``i`` int4 or date, ``h`` int2, ``b``
    boolean, ``d`` float8: the item size is the field's), into
    ``table`` (those columns, in that order, or the columns ``names``) by binary COPY. Each
    block of rows is laid out by a few strided slice assignments per column (C speed), never a
    Python call per row. ``empty_texts``: that many more fields on every row, after the
    columns, each an empty string (a text field of length 0). ``freeze``: as
    ``table_copy``'s."""
    n = len(columns[0]) if columns else 0
    sizes = [col.itemsize for col in columns]
    fields = len(columns) + empty_texts
    width = 2 + sum(4 + z for z in sizes) + 4 * empty_texts  # the empty texts' lengths: 0
    block = block or max(1, _BLOCK_BYTES // width)
    named = f" ({', '.join(names)})" if names else ""
    options = "FORMAT binary, FREEZE" if freeze else "FORMAT binary"
    with raw.copy(f"COPY {table}{named} FROM STDIN ({options})") as copy:
        copy.write(BINARY_HEADER)
        for lo in range(0, n, block):
            hi = min(n, lo + block)
            rows = hi - lo
            out = bytearray(width * rows)
            out[1::width] = bytes([fields]) * rows
            at = 2
            for col, z in zip(columns, sizes, strict=True):
                out[at + 3 :: width] = bytes([z]) * rows
                part = col[lo:hi]
                if sys.byteorder == "little":
                    part.byteswap()
                data = part.tobytes()
                for k in range(z):
                    out[at + 4 + k :: width] = data[k::z]
                at += 4 + z
            copy.write(out)
        copy.write(BINARY_TRAILER)
    return n


# the column type of each array type ``GatheredColumns`` gathers (a date is an "i" of days
# from 2000-01-01, named by its column's own type)
_SQL_TYPES = {
    "q": "bigint",
    "i": "integer",
    "h": "smallint",
    "b": "boolean",
    "d": "double precision",
}


@dataclass(frozen=True)
class Gathered:
    """One column of a ``GatheredColumns`` layout, or a block of them: ``kind`` "const" (a
    value repeated on each of an ``add``'s rows), "rows" (a value per row) or "block"
    (``len(names)`` figures per row, one column each); ``code`` the array type; ``sql`` the
    column type where it is not the array type's own (a date)."""

    kind: str
    code: str
    names: tuple[str, ...]
    sql: str = ""

    @property
    def width(self) -> int:
        return len(self.names)


def gathered(kind: str, code: str, *names: str, sql: str = "") -> Gathered:
    return Gathered(kind, code, names, sql)


class GatheredColumns:
    """Rows gathered as the columns ``copy_columns`` writes (a few array extensions per
    version, no Python call per row): each ``add`` gives ``n`` rows and a value per layout
    entry (see ``Gathered``). The temporary table they go to is declared from the same layout
    (``columns_sql``), so its columns are in the order they are written."""

    def __init__(self, layout: tuple[Gathered, ...]) -> None:
        self.layout = layout
        self.rows = 0
        self.parts = [array(g.code) for g in layout]

    def columns_sql(self) -> str:
        """The columns as a CREATE TABLE lists them: ``name type, ...``."""
        return ", ".join(
            f"{name} {g.sql or _SQL_TYPES[g.code]}" for g in self.layout for name in g.names
        )

    def add(self, n: int, *values) -> None:
        for g, part, value in zip(self.layout, self.parts, values, strict=True):
            if g.kind == "const":
                part.extend(array(g.code, (value,)) * n)
            elif value.typecode == g.code:
                part.extend(value)
            else:
                part.fromlist(value.tolist())
        self.rows += n

    def take(self) -> list[array]:
        """The columns gathered, in the layout's order; the gatherer starts again empty."""
        columns: list[array] = []
        for g, part in zip(self.layout, self.parts, strict=True):
            if g.kind == "block":
                columns.extend(part[k :: g.width] for k in range(g.width))
            else:
                columns.append(part)
        self.rows = 0
        self.parts = [array(g.code) for g in self.layout]
        return columns
