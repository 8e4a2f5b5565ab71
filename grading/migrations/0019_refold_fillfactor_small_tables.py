"""Half of each new page of the partnership grades and the ledger subjects left free
(PostgreSQL's fillfactor 50; issue 31), as migration 0017 did for the session grades, pair
results and history rows: a change of parameter set rewrites every partnership grade and every
subject's initial grade, and a same-set refold after uploads rewrites every partnership grade
whose reference date moved. Full pages made each of those updates a new row version with an
entry in every index (14 and 8 microseconds a row at national size: 19.9 s for 1.27 million
partnership grades, 11.2 s for 1.26 million subjects, docs/benchmarks.md, session 23); with room
on the row's own page it is a HOT update. Existing pages keep their fill until rewritten."""

from django.db import migrations

from grading.migrations._table_parameters import fillfactor_half

TABLES = ("grading_partnershipgrade", "grading_ledgersubject")


class Migration(migrations.Migration):
    dependencies = [
        ("grading", "0018_redundant_indexes"),
    ]

    operations = [fillfactor_half(TABLES)]
