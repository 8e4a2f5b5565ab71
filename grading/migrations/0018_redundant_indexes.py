"""Indexes no query needs, dropped (issue 31): a refold and every upload write each index of the
rows they insert. Each dropped one is led by another index of its table:

- session grades' ``version_id`` by the unique (version, member), ``member_id`` by (member, date);
- partnership grades' ``member_a_id`` by the unique (member_a, member_b), and ``member_b_id``'s
  foreign-key index duplicated the model's own (member_b) index;
- ledger subjects' ``key`` pattern (LIKE) index: the only LIKE on keys ('%+%') cannot use it.

Only the indexes are dropped (the foreign-key constraints stay, not revalidated: Django's own
AlterField would drop and re-add them, a full scan of the largest table)."""

from django.db import migrations, models

FOREIGN_KEY_INDEXES = (
    ("grading_sessiongrade", "version_id", "grading_sessiongrade_version_id_9f64069a"),
    ("grading_sessiongrade", "member_id", "grading_sessiongrade_member_id_f6ba56a5"),
    ("grading_partnershipgrade", "member_a_id", "grading_partnershipgrade_member_a_id_2aedc8b8"),
    ("grading_partnershipgrade", "member_b_id", "grading_partnershipgrade_member_b_id_af931e86"),
)


def _drop(table: str, column: str, name: str) -> migrations.RunSQL:
    return migrations.RunSQL(
        f'DROP INDEX IF EXISTS "{name}"', f'CREATE INDEX "{name}" ON "{table}" ("{column}")'
    )


def _foreign_key(to: str, related_name: str, on_delete) -> models.ForeignKey:
    return models.ForeignKey(db_index=False, on_delete=on_delete, related_name=related_name, to=to)


class Migration(migrations.Migration):
    dependencies = [
        ("grading", "0017_refold_fillfactor"),
        ("members", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[_drop(*index) for index in FOREIGN_KEY_INDEXES],
            state_operations=[
                migrations.AlterField(
                    model_name="sessiongrade",
                    name="version",
                    field=_foreign_key(
                        "grading.sessionversion", "session_grades", models.deletion.PROTECT
                    ),
                ),
                migrations.AlterField(
                    model_name="sessiongrade",
                    name="member",
                    field=_foreign_key("members.member", "session_grades", models.deletion.PROTECT),
                ),
                migrations.AlterField(
                    model_name="partnershipgrade",
                    name="member_a",
                    field=_foreign_key("members.member", "+", models.deletion.CASCADE),
                ),
                migrations.AlterField(
                    model_name="partnershipgrade",
                    name="member_b",
                    field=_foreign_key("members.member", "+", models.deletion.CASCADE),
                ),
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
