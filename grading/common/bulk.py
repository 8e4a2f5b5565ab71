"""Many rows written in one statement.

Django's ``bulk_update`` builds a ``CASE WHEN pk = ... THEN ...`` expression per field per row,
and resolving those costs far more Python time than the database spends (a third of a grading
step, profiled on the demo database). ``INSERT ... ON CONFLICT DO UPDATE`` (``bulk_create`` with
``update_conflicts``) writes the same rows in one plain statement, on PostgreSQL and SQLite.
"""

from collections import defaultdict
from collections.abc import Iterable, Sequence

from django.db import models
from django.db.models import QuerySet


def rows_upsert(
    model: type[models.Model],
    rows: Sequence[models.Model],
    *,
    unique_fields: Sequence[str],
    update_fields: Sequence[str],
) -> None:
    """Insert the rows, or update ``update_fields`` where ``unique_fields`` already match."""
    if rows:
        model.objects.bulk_create(
            rows,
            update_conflicts=True,
            unique_fields=unique_fields,
            update_fields=update_fields,
            batch_size=1000,
        )


def rows_update(
    model: type[models.Model], rows: Sequence[models.Model], fields: Sequence[str]
) -> None:
    """``bulk_update`` for rows that exist (they have their primary key), in one statement."""
    assert all(row.pk is not None for row in rows), "rows_update writes existing rows only"
    rows_upsert(model, rows, unique_fields=[model._meta.pk.name], update_fields=fields)


def rows_sync(existing: QuerySet, wanted: Iterable[dict], *, group_by: str | None = None) -> int:
    """Make the rows of ``existing`` exactly ``wanted`` (dicts of every field's attname, pk
    aside), writing only the difference: a stored row equal to a wanted one is kept, other
    stored rows are deleted, the wanted rows not stored are inserted. Returns rows written.

    ``group_by`` (an attname): rows whose order among equals is their insertion order (a
    ``["date", "pk"]`` ordering) are compared group by group, in ``existing``'s order, and a
    group that differs at all is replaced whole, so its order stays the wanted order.
    """
    model = existing.model
    fields = [f.attname for f in model._meta.concrete_fields if not f.primary_key]
    stored: dict = defaultdict(list)  # group -> [(values, pk)]
    for pk, *values in existing.values_list("pk", *fields):
        row = tuple(values)
        stored[row[fields.index(group_by)] if group_by else None].append((row, pk))
    wanted_by_group: dict = defaultdict(list)
    for data in wanted:
        wanted_by_group[data[group_by] if group_by else None].append(tuple(data[f] for f in fields))
    stale: list[int] = []
    fresh: list[tuple] = []
    for group in stored.keys() | wanted_by_group.keys():
        have, want = stored.get(group, []), wanted_by_group.get(group, [])
        if group_by:
            if [row for row, _ in have] != want:
                stale += [pk for _, pk in have]
                fresh += want
            continue
        pks_by_row: dict[tuple, list[int]] = defaultdict(list)
        for row, pk in have:
            pks_by_row[row].append(pk)
        for row in want:
            if pks_by_row.get(row):
                pks_by_row[row].pop()
            else:
                fresh.append(row)
        stale += [pk for pks in pks_by_row.values() for pk in pks]
    if stale:
        model.objects.filter(pk__in=stale).delete()
    model.objects.bulk_create(
        [model(**dict(zip(fields, row, strict=True))) for row in fresh], batch_size=1000
    )
    return len(stale) + len(fresh)
