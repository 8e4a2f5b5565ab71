"""The schemes' log (S14.17): which versions PPI (S10) and Brambledown (S11) are told of, in
the order processed, and the reads both schemes share.

After each ledger step on a version (graded, stored not graded, or withdrawn),
:func:`scheme_log_step` appends what the schemes must see: the version processed (whether or
not the NGS grades it: the NGS's 2/3 rule is its own), after the withdrawal of any other
version of the same session still live for them (a version not graded is replaced without a
ledger withdrawal), or the version withdrawn. The engines decide which of these sessions they
rate (match-pointed pairs only; not individuals, teaching sessions or sessions the club marks
not graded). Every stored PPI and Brambledown figure is a fold of this log.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.db.models import QuerySet

from clubs.selectors.planning import approved_host_pair
from grading.engine import codec
from grading.engine.types import SessionResult
from grading.models import LedgerEntry, SessionVersion
from grading.models.schemes import SchemeEntry, SchemeHead
from members.models import Member

PROCESS = SchemeEntry.Operation.PROCESS
WITHDRAW = SchemeEntry.Operation.WITHDRAW


def live_entries(entries: QuerySet[SchemeEntry] | None = None) -> list[SchemeEntry]:
    """The live versions' process entries in processing order (S5.2, S5.3): each version's
    last process entry, unless a withdrawal followed it. ``entries``: a part of the log (one
    club's versions), else the whole log."""
    live: dict[int, SchemeEntry] = {}
    entries = SchemeEntry.objects.all() if entries is None else entries
    for entry in entries.order_by("seq").iterator(chunk_size=1000):
        live.pop(entry.version_id, None)
        if entry.operation == PROCESS:
            live[entry.version_id] = entry
    return sorted(live.values(), key=lambda e: e.seq)


def scheme_head_lock() -> SchemeHead:
    """The schemes' head, locked until the transaction ends: every fold of the log (the task
    after the steps, a quarterly regrade, a rebuild) holds it, so they run one at a time and
    in the log's order. Never taken before the ledger's lock (a rebuild takes the ledger's
    first; nothing that holds this one asks for the ledger's)."""
    head, _ = SchemeHead.objects.select_for_update().get_or_create(pk=1)
    return head


def last_seq() -> int:
    """The last entry of the log (0 when empty)."""
    return SchemeEntry.objects.order_by("-seq").values_list("seq", flat=True).first() or 0


def scheme_log_step(*, version: SessionVersion) -> list[SchemeEntry]:
    """Append to the log what a ledger step on ``version`` means for the schemes (see the
    module's text) and return the entries appended, in order. Runs inside the ledger's
    transaction, under its lock, so the log's order is the processing order."""
    entries = SchemeEntry.objects.filter(version__session_id=version.session_id)
    live = {e.version_id: e for e in live_entries(entries)}
    wanted: list[tuple[str, int, str]] = []
    if version.state == SessionVersion.State.WITHDRAWN:
        if version.pk in live:
            wanted.append((WITHDRAW, version.pk, ""))
    elif version.state in (SessionVersion.State.GRADED, SessionVersion.State.NOT_GRADED):
        wanted += [(WITHDRAW, other, "") for other in sorted(live) if other != version.pk]
        if version.pk not in live:
            wanted.append((PROCESS, version.pk, _host_pair(version)))
    seq = last_seq()
    appended = []
    for operation, version_id, host_pair in wanted:
        seq += 1
        appended.append(
            SchemeEntry.objects.create(
                seq=seq, operation=operation, version_id=version_id, host_pair=host_pair
            )
        )
    return appended


def _host_pair(version: SessionVersion) -> str:
    """The approved host pair (S3.9) the version was processed with: the ledger's, when the
    NGS graded it; else the approved request's pair, if it played."""
    entry = (
        LedgerEntry.objects.filter(version=version, operation=LedgerEntry.Operation.PROCESS)
        .order_by("-seq")
        .first()
    )
    if entry is not None:
        return entry.host_pair
    result = codec.load(SessionResult, version.payload)
    return approved_host_pair(club=version.session.event.club, result=result) or ""


def sessions_of(entries: Sequence[SchemeEntry]) -> dict[int, SessionResult]:
    """The entries' versions as the engine's sessions, by version id."""
    payloads = SessionVersion.objects.filter(pk__in=[e.version_id for e in entries])
    return {v.pk: codec.load(SessionResult, v.payload) for v in payloads.only("payload")}


def members_by_number(numbers: Iterable[str]) -> dict[str, Member]:
    return {m.national_number: m for m in Member.objects.filter(national_number__in=set(numbers))}
