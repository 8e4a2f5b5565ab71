"""PPI after each upload (S10; grading/schemes/ppi.py): the engine is given a member's month
table from 3 months before the event's month on, and the months before are kept as stored. On
uploads over years, late ones among them, the stored tables equal a replay from empty."""

from grading.models import PPIRating
from grading.schemes.ppi import ppi_check


def test_month_tables_over_years_equal_a_replay(ledger):
    months = PPIRating.objects.get(member__national_number="1001").months
    # played in 2023 and 2024: the last uploads kept months before the engine's
    assert len(months) > 4 and months == sorted(months)
    assert ppi_check() == []
