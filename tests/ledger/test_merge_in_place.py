"""The refold's merge (``grading.ledger.replay.merge``; S5.4): the rows that changed are updated
where they lie in the table, found by the place the diff recorded (a TID scan, the diff written
in the table's order), and a row that moved after the diff was taken is still written, matched on
its key."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from grading.ledger.replay import merge as merge_module
from grading.ledger.replay.merge import merge, rewrite


@pytest.fixture
def tables(postgres):
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TEMPORARY TABLE merge_target (a integer, b integer, v double precision, "
            "w text, PRIMARY KEY (a, b))"
        )
        # laid out in another order than the key's (a permutation of 0..499)
        cursor.execute(
            "INSERT INTO merge_target SELECT i / 10, i % 10, i, 'x' FROM generate_series(0, 499) i "
            "ORDER BY (i * 7919) % 500"
        )
        cursor.execute("CREATE TEMPORARY TABLE merge_source (LIKE merge_target)")
        # every row changed but 0..99, 500..509 new, 490..499 gone
        cursor.execute(
            "INSERT INTO merge_source SELECT i / 10, i % 10, "
            "CASE WHEN i < 100 THEN i ELSE i + 0.5 END, 'x' FROM generate_series(0, 509) i "
            "WHERE i NOT BETWEEN 490 AND 499"
        )
        yield cursor


def _target(cursor) -> dict:
    cursor.execute("SELECT a, b, v, w FROM merge_target")
    return {(a, b): (v, w) for a, b, v, w in cursor.fetchall()}


def _source(cursor) -> dict:
    cursor.execute("SELECT a, b, v, w FROM merge_source")
    return {(a, b): (v, w) for a, b, v, w in cursor.fetchall()}


def test_the_merge_updates_deletes_and_inserts_what_differs(tables):
    written = merge(tables, "merge_target", "merge_source", ("a", "b"), ("v", "w"))
    assert written == {"deleted": 10, "updated": 390, "inserted": 10}
    assert _target(tables) == _source(tables)


def test_changed_rows_are_found_by_their_place_in_the_table(tables):
    # the comparison by a merge join, whose rows come in the key's order, not the table's
    tables.execute("SET LOCAL enable_hashjoin = off")
    with CaptureQueriesContext(connection) as queries, connection.cursor() as cursor:
        merge(cursor, "merge_target", "merge_source", ("a", "b"), ("v", "w"))
    statements = [q["sql"] for q in queries]
    (update,) = [sql for sql in statements if sql.startswith("UPDATE merge_target")]
    # the joins the planner could otherwise prefer are off for the statement, and only for it
    at = statements.index(update)
    off = ["SET LOCAL enable_hashjoin = off", "SET LOCAL enable_mergejoin = off"]
    assert statements[at - 2 : at] == off
    assert statements[at + 1 : at + 3] == ["RESET enable_hashjoin", "RESET enable_mergejoin"]
    # the diff lives until the transaction ends: the statement's plan, as the merge ran it
    for sql in off:
        tables.execute(sql)
    tables.execute("EXPLAIN " + update)
    plan = "\n".join(line for (line,) in tables.fetchall())
    assert "Tid Scan on merge_target" in plan, plan
    assert "Sort" not in plan, plan  # the diff lies in the order of its places already
    tables.execute("SELECT tid FROM refold_diff WHERE NOT gone AND NOT fresh")
    places = [tid for (tid,) in tables.fetchall()]
    assert len(places) == 390
    assert places == sorted(places, key=_place)


def _place(tid: str) -> tuple[int, int]:
    page, row = tid.strip("()").split(",")
    return int(page), int(row)


def test_a_row_moved_after_the_diff_is_still_written(tables, monkeypatch):
    """A row updated between the diff and its UPDATE lies elsewhere: the place recorded finds
    its old version, and the merge writes the changed rows again, matched on their key."""
    update = merge_module._update
    statements = []

    def moved_first(cursor, target, key, values, changed, **where):
        cursor.execute("UPDATE merge_target SET w = 'moved' WHERE a = 20 AND b = 3")
        real_execute = cursor.execute

        def execute(sql, params=None):
            statements.append(sql)
            return real_execute(sql, params)

        monkeypatch.setattr(cursor, "execute", execute)
        update(cursor, target, key, values, changed, **where)

    monkeypatch.setattr(merge_module, "_update", moved_first)
    merge(tables, "merge_target", "merge_source", ("a", "b"), ("v", "w"))
    assert _target(tables) == _source(tables)
    assert [s for s in statements if s.startswith("UPDATE")][-1].endswith("t.b = d.b")


def test_a_rewrite_writes_every_row_found_and_the_new_and_gone_ones(tables):
    """A change of set (``rewrite``): every stored row the source gives is written, found by
    its key; the counts (510 given, 500 stored, 490 matched) say that rows are new and gone,
    and they are inserted and deleted."""
    written = rewrite(tables, "merge_target", "merge_source", ("a", "b"), ("v", "w"), staged=510)
    assert written == {"deleted": 10, "updated": 490, "inserted": 10}
    assert _target(tables) == _source(tables)


def test_a_rewrite_looks_for_new_and_gone_rows_only_where_the_counts_say_so(tables):
    tables.execute("DELETE FROM merge_source WHERE a >= 49")  # no row new, none gone
    tables.execute("DELETE FROM merge_target WHERE a >= 49")
    with CaptureQueriesContext(connection) as queries, connection.cursor() as cursor:
        written = rewrite(
            cursor, "merge_target", "merge_source", ("a", "b"), ("v", "w"), staged=490
        )
    assert written == {"deleted": 0, "updated": 490, "inserted": 0}
    assert _target(tables) == _source(tables)
    statements = [q["sql"] for q in queries]
    assert not [sql for sql in statements if sql.startswith(("INSERT", "DELETE"))]
    (update,) = [sql for sql in statements if sql.startswith("UPDATE merge_target")]
    # found by the key's index, the source read in its order: no hash, no merge join
    at = statements.index(update)
    assert statements[at - 2 : at] == [
        "SET LOCAL enable_hashjoin = off",
        "SET LOCAL enable_mergejoin = off",
    ]


def test_a_rewrite_leaves_rows_outside_its_scope(tables):
    tables.execute("INSERT INTO merge_target VALUES (900, 0, 1.0, 'kept')")
    written = rewrite(
        tables,
        "merge_target",
        "merge_source",
        ("a", "b"),
        ("v", "w"),
        staged=510,
        scope="t.a < 900",
    )
    assert written == {"deleted": 10, "updated": 490, "inserted": 10}
    assert _target(tables) == {**_source(tables), (900, 0): (1.0, "kept")}
