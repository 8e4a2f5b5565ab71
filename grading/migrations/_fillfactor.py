"""What migrations 0017 and 0019 share: half of each new page of some tables left free
(PostgreSQL's fillfactor 50), nothing elsewhere. (A leading underscore: Django's migration
loader does not take this module for a migration.)"""

from django.db import migrations


def fillfactor_half(tables: tuple[str, ...]) -> migrations.RunPython:
    """The operation that sets ``tables``' fillfactor to 50, and resets it when reversed."""

    def fillfactor_set(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for table in tables:
                schema_editor.execute(f"ALTER TABLE {table} SET (fillfactor = 50)")

    def fillfactor_reset(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for table in tables:
                schema_editor.execute(f"ALTER TABLE {table} RESET (fillfactor)")

    return migrations.RunPython(fillfactor_set, fillfactor_reset)
