"""Indexes no query needs, dropped (issue 31): a refold and every upload write each index of the
rows they insert. Each dropped one is led by another index of its table:

- session grades' ``version_id`` by the unique (version, member), ``member_id`` by (member, date);
- partnership grades' ``member_a_id`` by the unique (member_a, member_b), and ``member_b_id``'s
  foreign-key index duplicated the model's own (member_b) index;
- ledger subjects' ``key`` pattern (LIKE) index: the only LIKE on keys ('%+%') cannot use it.

Only the indexes are dropped (the foreign-key constraints stay, not revalidated: Django's own
AlterField would drop and re-add them, a full scan of the largest table)."""

from django.db import migrations, models

PROTECT, CASCADE = models.deletion.PROTECT, models.deletion.CASCADE
# (model, field, its index's suffix in Django's name, the field's target, related_name, on_delete)
FOREIGN_KEYS = (
    ("sessiongrade", "version", "9f64069a", "grading.sessionversion", "session_grades", PROTECT),
    ("sessiongrade", "member", "f6ba56a5", "members.member", "session_grades", PROTECT),
    ("partnershipgrade", "member_a", "2aedc8b8", "members.member", "+", CASCADE),
    ("partnershipgrade", "member_b", "af931e86", "members.member", "+", CASCADE),
)


def _index_dropped(model: str, field: str, suffix: str) -> migrations.RunSQL:
    table = f"grading_{model}"
    name = f"{table}_{field}_id_{suffix}"  # Django's name for the foreign key's own index
    return migrations.RunSQL(
        f'DROP INDEX IF EXISTS "{name}"', f'CREATE INDEX "{name}" ON "{table}" ("{field}_id")'
    )


def _unindexed(model: str, field: str, to: str, related_name: str, on_delete):
    return migrations.AlterField(
        model_name=model,
        name=field,
        field=models.ForeignKey(
            db_index=False, on_delete=on_delete, related_name=related_name, to=to
        ),
    )


class Migration(migrations.Migration):
    dependencies = [
        ("grading", "0017_refold_fillfactor"),
        ("members", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                _index_dropped(model, field, suffix) for model, field, suffix, *_ in FOREIGN_KEYS
            ],
            state_operations=[
                _unindexed(model, field, to, related_name, on_delete)
                for model, field, _, to, related_name, on_delete in FOREIGN_KEYS
            ],
        ),
        # The unique constraint on key stays one index: the old unique=True (and its LIKE index)
        # out, a named constraint in.
        migrations.AlterField(
            model_name="ledgersubject",
            name="key",
            field=models.CharField(max_length=64),
        ),
        migrations.AddConstraint(
            model_name="ledgersubject",
            constraint=models.UniqueConstraint(fields=("key",), name="one_subject_per_key"),
        ),
    ]
