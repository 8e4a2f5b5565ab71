"""What migrations 0017, 0019 and 0022 share: PostgreSQL storage parameters of some tables
(half of each new page left free, fillfactor 50; how soon autovacuum visits), nothing
elsewhere. (A leading underscore: Django's migration loader does not take this module for a
migration.)"""

from django.db import migrations


def table_parameters(
    tables: tuple[str, ...], parameters: dict[str, object]
) -> migrations.RunPython:
    """The operation that sets ``parameters`` on ``tables`` (PostgreSQL only), and resets them
    when reversed."""

    def parameters_set(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            values = ", ".join(f"{name} = {value}" for name, value in parameters.items())
            for table in tables:
                schema_editor.execute(f"ALTER TABLE {table} SET ({values})")

    def parameters_reset(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for table in tables:
                schema_editor.execute(f"ALTER TABLE {table} RESET ({', '.join(parameters)})")

    return migrations.RunPython(parameters_set, parameters_reset)


def fillfactor_half(tables: tuple[str, ...]) -> migrations.RunPython:
    """The operation that sets ``tables``' fillfactor to 50, and resets it when reversed."""
    return table_parameters(tables, {"fillfactor": 50})
