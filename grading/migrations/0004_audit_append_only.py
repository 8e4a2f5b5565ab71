"""PostgreSQL refuses to change or delete an audit event (issue 10: append-only)."""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION grading_audit_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'audit events are append-only';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER grading_audit_append_only
    BEFORE UPDATE OR DELETE ON grading_auditevent
    FOR EACH ROW EXECUTE FUNCTION grading_audit_append_only();
"""
DROP = """
DROP TRIGGER IF EXISTS grading_audit_append_only ON grading_auditevent;
DROP FUNCTION IF EXISTS grading_audit_append_only();
"""


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):
    dependencies = [("grading", "0003_audit_event")]
    operations = [migrations.RunPython(create, drop)]
