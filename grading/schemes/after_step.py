"""The schemes' hook in the grading fold: after each ledger step, PPI (S10) and Brambledown
(S11) are brought up to date in the same transaction, under the same lock on ``LedgerHead``.

``grading.schemes.log`` records what the step means for the schemes (S14.17: a version the
NGS does not grade under its 2/3 rule still reaches them); ``grading.schemes.ppi`` and
``grading.schemes.brambledown.update`` fold it.
"""

from __future__ import annotations

from grading.models import SessionVersion
from grading.schemes.brambledown.update import brambledown_club_passed, brambledown_club_update
from grading.schemes.log import scheme_log_step
from grading.schemes.ppi import ppi_after_entry

__all__ = ["schemes_after_step"]


def schemes_after_step(*, version: SessionVersion) -> None:
    """Bring PPI and the version's club's Brambledown up to date after a ledger step on
    ``version`` (processed, not graded, or withdrawn). Runs inside the ledger's transaction."""
    entries = scheme_log_step(version=version)
    for entry in entries:
        ppi_after_entry(entry=entry)
    club = version.session.event.club
    if club.keeps_brambledown:
        brambledown_club_update(club=club, touched=version.session.date, entries=entries)
    elif entries:
        brambledown_club_passed(club=club)
