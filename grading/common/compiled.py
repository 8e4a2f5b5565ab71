"""Querysets compiled to SQL once per process and run again with new values (issue 31 item 3).

Every signed-in page reads the user with their membership (``members.auth``), and every club
page the clubs the user administers (``clubs.selectors.access.admin_clubs``); a session's
results page, where an evening's emails send every player, its session and seats
(``grading.results.selectors``). The first two querysets
join and hold a subquery, and the ORM compiles them afresh on every request: measured in one
process on the national database, 1.7 and 2.3 ms of CPU to compile against 0.2 ms to run: a
third of a warm member page's CPU and half of a club page's (docs/benchmarks.md).

:class:`CompiledQuery` compiles its queryset once per database connection, with marker values
in place of the parameters that change (each within its column's range: the ORM answers a
value out of range without SQL, and so does this class), and afterwards sends the same SQL with the caller's
values, turning the rows into model instances as the ORM's ``ModelIterable`` does
(``select_related`` and annotations included, the fields' converters applied), or, for a
``values_list`` queryset, into the tuples it gives. Where a marker
is not found exactly once among the compiled parameters (the ORM folded or repeated it), the
queryset is run the ordinary way every time: the result is the same, only slower.

On PostgreSQL the compiled SQL is also a prepared statement of the connection (its parameters
bound by the server): PostgreSQL plans it once, where every request's query was planned anew.
On the national database the user's query took 0.77 ms a call sent as text and 0.12 ms
prepared (through psycopg on Django's connection); ``pgbench`` gave 0.49 against 0.063 ms, the
difference the server's planning. Django disables psycopg's prepared statements (for
connection poolers that cannot keep them), so the settings give the connection a threshold no
query reaches by itself (``settings.PREPARE_WHEN_ASKED``) and these queries ask; with
``DB_PREPARED_STATEMENTS=0`` they are sent as text as before.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.postgresql.base import ServerBindingCursor
from django.db.models import Model, QuerySet
from django.db.models.query import ModelIterable, ValuesListIterable, get_related_populators

__all__ = ["CompiledQuery"]


@dataclass(frozen=True)
class _Compiled:
    compiler: Any  # the SQLCompiler that compiled the SQL (its select and converters)
    sql: str
    params: tuple
    positions: tuple[int, ...]  # where each marker's value goes among the parameters
    model: type[Model] | None  # None: a values_list queryset, whose rows are the result
    fields: slice  # the model's own columns in a row
    init_list: list[str]
    populators: list
    annotations: dict[str, int]


class CompiledQuery:
    """``build(*values)`` (a queryset of model instances, or a ``values_list`` of tuples)
    compiled once with ``markers`` as its values, then run for any values of the same types by
    calling the object: a list of instances or tuples, as ``list(build(*values))`` gives."""

    def __init__(self, build: Callable[..., QuerySet], markers: Sequence) -> None:
        self._build = build
        self._markers = tuple(markers)
        self._local = threading.local()  # (connection, compiled or None) of this thread

    def __call__(self, *values) -> list:
        db, compiled = self._compiled()
        if compiled is None or not all(map(_in_any_column, values)):
            return list(self._build(*values))
        params = list(compiled.params)
        for position, value in zip(compiled.positions, values, strict=True):
            params[position] = value
        with _cursor(connections[db]) as cursor:
            cursor.execute(compiled.sql, params)
            rows = cursor.fetchall()
        converted = compiled.compiler.results_iter([rows])  # the fields' converters
        if compiled.model is None:
            return [tuple(row) for row in converted]
        return [self._instance(compiled, db, row) for row in converted]

    def _compiled(self) -> tuple[str, _Compiled | None]:
        """This thread's compiled query (compiled again for a new connection object)."""
        kept = getattr(self._local, "kept", None)
        if kept is None or kept[0] is not connections[kept[1]]:
            queryset = self._build(*self._markers)
            db = queryset.db
            kept = self._local.kept = (connections[db], db, _compile(queryset, self._markers))
        return kept[1], kept[2]

    @staticmethod
    def _instance(compiled: _Compiled, db: str, row) -> Model:
        obj = compiled.model.from_db(db, compiled.init_list, row[compiled.fields])
        for populator in compiled.populators:
            populator.populate(row, obj)
        for name, position in compiled.annotations.items():
            setattr(obj, name, row[position])
        return obj


def _in_any_column(value) -> bool:
    """Whether a value can be sent as it is: an integer outside the smallest integer column's
    range is answered by the ORM, which matches no row without asking the database (sent as a
    parameter, PostgreSQL would refuse it for an ``integer`` column)."""
    return not isinstance(value, int) or -(2**31) <= value < 2**31


def _compile(queryset: QuerySet, markers: tuple) -> _Compiled | None:
    if queryset._known_related_objects or queryset._prefetch_related_lookups:
        return None  # (what ``ModelIterable`` or ``_fetch_all`` would add afterwards)
    rows = queryset._iterable_class is ValuesListIterable
    if not rows and queryset._iterable_class is not ModelIterable:
        return None  # values(), flat or named lists: the ORM's own iterables
    compiler = queryset.query.get_compiler(using=queryset.db)
    sql, params = compiler.as_sql()
    positions = []
    for marker in markers:
        found = [i for i, p in enumerate(params) if type(p) is type(marker) and p == marker]
        if len(found) != 1:
            return None
        positions.append(found[0])
    if rows:  # as ValuesListIterable gives them: the compiler's rows as tuples
        return _Compiled(compiler, sql, tuple(params), tuple(positions), None, slice(0), [], [], {})
    klass_info = compiler.klass_info
    select_fields = klass_info["select_fields"]
    fields = slice(select_fields[0], select_fields[-1] + 1)
    return _Compiled(
        compiler=compiler,
        sql=sql,
        params=tuple(params),
        positions=tuple(positions),
        model=klass_info["model"],
        fields=fields,
        init_list=[f[0].target.attname for f in compiler.select[fields]],
        populators=get_related_populators(klass_info, compiler.select, queryset.db),
        annotations=dict(compiler.annotation_col_map or {}),
    )


def _cursor(db: BaseDatabaseWrapper):
    """A cursor of ``db`` that runs its queries as prepared statements on PostgreSQL (the
    server binds the parameters); Django's own cursor elsewhere. Either is wrapped by Django
    as its own are (errors translated, queries logged and counted where Django does)."""
    if db.vendor != "postgresql":
        return db.cursor()
    db.validate_thread_sharing()  # what ``db.cursor()`` does before it makes its cursor
    db.close_if_health_check_failed()
    db.ensure_connection()
    with db.wrap_database_errors:
        cursor = _PreparedCursor(db.connection)
    return db.make_debug_cursor(cursor) if db.queries_logged else db.make_cursor(cursor)


class _PreparedCursor(ServerBindingCursor):
    """Each query prepared: psycopg keeps the statement on the connection by its text, and
    prepares it only where the connection's ``prepare_threshold`` is not None."""

    def execute(self, query, params=None, *, prepare=True, binary=None):
        return super().execute(query, params, prepare=prepare, binary=binary)
