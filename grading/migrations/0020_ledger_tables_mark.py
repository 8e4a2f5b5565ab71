"""What the subject tables hold (the fold of the ledger up to a sequence number, with a set)
moves from the ledger head to a row of its own, ``LedgerTables``, written in the same
transaction as the tables' rows (issue 31): a refold writes the subject tables on its second
connection, in a transaction of its own, while its own transaction holds the head's row
locked. The head's two fields are copied into that row, then removed."""

from django.db import migrations, models


def mark_copy(apps, schema_editor):
    head = apps.get_model("grading", "LedgerHead").objects.filter(pk=1).first()
    if head is not None:
        apps.get_model("grading", "LedgerTables").objects.create(
            pk=1, seq=head.tables_seq, params=head.tables_params
        )


def mark_copy_back(apps, schema_editor):
    mark = apps.get_model("grading", "LedgerTables").objects.filter(pk=1).first()
    if mark is not None:
        apps.get_model("grading", "LedgerHead").objects.filter(pk=1).update(
            tables_seq=mark.seq, tables_params=mark.params
        )


class Migration(migrations.Migration):
    dependencies = [
        ("grading", "0019_refold_fillfactor_small_tables"),
    ]

    operations = [
        migrations.CreateModel(
            name="LedgerTables",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("seq", models.PositiveBigIntegerField(default=0)),
                ("params", models.CharField(blank=True, max_length=40)),
            ],
            options={
                "verbose_name_plural": "ledger tables",
            },
        ),
        migrations.RunPython(mark_copy, mark_copy_back),
        migrations.RemoveField(
            model_name="ledgerhead",
            name="tables_params",
        ),
        migrations.RemoveField(
            model_name="ledgerhead",
            name="tables_seq",
        ),
    ]
