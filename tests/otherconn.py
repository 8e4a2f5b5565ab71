"""A second PostgreSQL connection to the test database, beside Django's: another transaction
(a grading step's, a watcher's) that sees only committed rows."""

from __future__ import annotations

import psycopg
from django.db import connection


def other_connection(*, autocommit: bool = False) -> psycopg.Connection:
    db = connection.settings_dict
    return psycopg.connect(
        dbname=db["NAME"],
        host=db["HOST"] or None,
        port=db["PORT"] or None,
        user=db["USER"] or None,
        password=db["PASSWORD"] or None,
        autocommit=autocommit,
    )
