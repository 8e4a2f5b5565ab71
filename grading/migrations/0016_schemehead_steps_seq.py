from django.db import migrations, models


def steps_from_ppi(apps, schema_editor):
    # Until now the step folded both schemes in its own transaction: every entry PPI had
    # applied, Brambledown had too.
    SchemeHead = apps.get_model("grading", "SchemeHead")
    SchemeHead.objects.update(steps_seq=models.F("ppi_seq"))


class Migration(migrations.Migration):
    dependencies = [
        ("grading", "0015_ledger_entry_plural"),
    ]

    operations = [
        migrations.AddField(
            model_name="schemehead",
            name="steps_seq",
            field=models.PositiveBigIntegerField(default=0),
        ),
        migrations.RunPython(steps_from_ppi, migrations.RunPython.noop),
    ]
