"""Autovacuum visits the PPI points after every 20,000 new points (issue 31 item 3,
docs/decisions.md "The PPI chart's points are read from an index alone"). The chart reads a
member's points from the index alone only where their table pages are marked all-visible: the
schemes' rebuild writes its points marked, and the points each upload adds are marked by a
VACUUM. PostgreSQL's default starts one after inserts of 20 % of the table: 2.5 million points
nationally, about two years of a union's sessions, during which every member's newer points
would be read from the table again. A fixed count, about six days of points nationally (12.5 million
over the decade), keeps the unmarked points few; such a VACUUM skips the table's pages
already marked."""

from django.db import migrations

from grading.migrations._table_parameters import table_parameters

NEW_POINTS = 20_000


class Migration(migrations.Migration):
    dependencies = [
        ("grading", "0021_ppi_chart_index"),
    ]

    operations = [
        table_parameters(
            ("grading_ppipoint",),
            {
                "autovacuum_vacuum_insert_threshold": NEW_POINTS,
                "autovacuum_vacuum_insert_scale_factor": 0,
            },
        )
    ]
