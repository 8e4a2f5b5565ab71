"""The PPI chart's points read from an index alone (issue 31 item 3, docs/decisions.md): a
member's points in the order the chart draws them, with their PPI, so a cold grade card reads
a few index pages instead of one table page per point. The foreign key's own index on
``member_id`` goes: the unique (member, seq) and this index lead with it. Only the index is
dropped (the constraint stays, not revalidated), as in 0018.

Building the index on a national database (12.5 million points) takes seconds, during which
new PPI points wait."""

from django.db import migrations, models

OLD = "grading_ppipoint_member_id_b3c24188"  # Django's name for the foreign key's own index


class Migration(migrations.Migration):
    dependencies = [
        ("grading", "0020_ledger_tables_mark"),
        ("members", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    f'DROP INDEX IF EXISTS "{OLD}"',
                    f'CREATE INDEX "{OLD}" ON "grading_ppipoint" ("member_id")',
                )
            ],
            state_operations=[
                migrations.AlterField(
                    model_name="ppipoint",
                    name="member",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=models.deletion.CASCADE,
                        related_name="+",
                        to="members.member",
                    ),
                )
            ],
        ),
        migrations.AddIndex(
            model_name="ppipoint",
            index=models.Index(
                fields=["member", "date", "seq"], include=("ppi",), name="ppi_chart"
            ),
        ),
    ]
