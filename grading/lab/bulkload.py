"""Bulk loading helpers of the national builder (issue 17; lab): the settings of a load
transaction, secondary indexes dropped and built again, foreign keys checked set-based, serial
sequences moved past the copied ids, and each phase's clock (wall, CPU, server CPU, peak RSS).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator

from django.db import DatabaseError, connection, transaction

from grading.engine.ngs.ledger import LedgerOp
from grading.lab.bench import peak_rss_mb

__all__ = [
    "Clock",
    "Timed",
    "bulk_settings",
    "every",
    "foreign_keys_check",
    "indexes_drop",
    "sequences_reset",
]


def _table(model) -> str:
    return model._meta.db_table


class Clock:
    """Each phase's wall seconds, and the CPU seconds of this process and of its database
    server process (read from /proc when the server is on this machine, else not reported):
    on a loaded machine, wall time says little."""

    def __init__(self):
        self.report: dict[str, float] = {}
        self.backend = None
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                self.backend = cursor.fetchone()[0]
        self.last = self._now()

    def _now(self) -> tuple[float, float, float | None]:
        server = None
        try:
            with open(f"/proc/{self.backend}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            server = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            pass
        return time.perf_counter(), time.process_time(), server

    def lap(self, phase: str) -> None:
        now = self._now()
        self.report[f"{phase}_seconds"] = now[0] - self.last[0]
        self.report[f"{phase}_cpu_seconds"] = now[1] - self.last[1]
        if now[2] is not None and self.last[2] is not None:
            self.report[f"{phase}_server_cpu_seconds"] = now[2] - self.last[2]
        self.last = now
        # the peak so far (it only grows: after the inputs, the inputs' peak)
        self.report[f"{phase}_peak_rss_mb"] = round(peak_rss_mb())


class Timed:
    """An iterator whose own time is added up (the generator's share of the inputs phase)."""

    def __init__(self, it: Iterator[LedgerOp]):
        self.it, self.seconds = it, 0.0

    def __iter__(self) -> Iterator[LedgerOp]:
        while True:
            t0 = time.perf_counter()
            op = next(self.it, None)
            self.seconds += time.perf_counter() - t0
            if op is None:
                return
            yield op


def every(log, what: str, step: int) -> Callable[[int, int], None]:
    shown = [0]

    def progress(done: int, total: int) -> None:
        if done - shown[0] >= step or done == total:
            shown[0] = done
            log(f"national: {what} {done} of {total}")

    return progress


def bulk_settings(cursor) -> bool:
    """This transaction's settings for a bulk load, each where the server allows it: payloads
    compressed with LZ4 (several times faster than the default), and no foreign-key trigger
    per row (a superuser's ``session_replication_role``: about a quarter of the server's
    time). Returns whether the foreign keys are to be checked afterwards, set-based."""
    for setting in ("default_toast_compression = 'lz4'", "session_replication_role = replica"):
        try:
            with transaction.atomic():  # a savepoint: a refused setting leaves the rest
                cursor.execute(f"SET LOCAL {setting}")
        except DatabaseError:
            if "replica" in setting:
                return False
    return True


def indexes_drop(cursor, table: str) -> list[str]:
    """Drop a table's indexes that back no constraint (this transaction's, lab database) and
    return their definitions, to build each again once the rows are in: the pair table's
    three (its version and both players) were half the server's time, kept row by row."""
    cursor.execute(
        "SELECT i.relname, pg_get_indexdef(x.indexrelid) FROM pg_index x "
        "JOIN pg_class i ON i.oid = x.indexrelid WHERE x.indrelid = %s::regclass "
        "AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)",
        [table],
    )
    found = cursor.fetchall()
    for name, _ in found:
        cursor.execute(f'DROP INDEX "{name}"')
    return [definition for _, definition in found]


def foreign_keys_check(cursor, models) -> None:
    """Every foreign key of the tables written refers to a row (what the triggers would have
    checked one row at a time), checked with one anti-join per key."""
    for model in models:
        for f in model._meta.concrete_fields:
            if not f.is_relation:
                continue
            target = f.target_field.model._meta.db_table
            table, column = _table(model), f.column
            cursor.execute(
                f"SELECT count(*) FROM {table} t WHERE t.{column} IS NOT NULL AND NOT EXISTS "
                f"(SELECT 1 FROM {target} r WHERE r.{f.target_field.column} = t.{column})"
            )
            missing = cursor.fetchone()[0]
            if missing:
                raise RuntimeError(f"{table}.{column}: {missing} rows refer to no {target}")


def sequences_reset(cursor, models) -> None:
    """Each table's id sequence moved past the ids copied."""
    for model in models:
        table = _table(model)
        cursor.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
            f"coalesce((SELECT max(id) FROM {table}), 0) + 1, false)"
        )
