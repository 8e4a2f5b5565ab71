"""Each session stored under a member's number with the club that sent it (S14.25): a member
sees every file that named them, and can report one they did not play."""

from __future__ import annotations

from django.db.models import F, Q

from grading.models import PairResult, SessionVersion
from members.models import Member, SessionReport


def sessions_under_number(*, member: Member, limit: int = 500) -> list[dict]:
    rows = (
        PairResult.objects.filter(Q(player1=member) | Q(player2=member))
        .filter(
            Q(version__session__live_version_id=F("version_id"))
            | Q(version__state=SessionVersion.State.STORED)
        )
        .select_related("version__session__event__club")
        .defer("version__payload")
        .order_by("-version__session__date", "-version_id")[:limit]
    )
    reported = set(SessionReport.objects.filter(member=member).values_list("version_id", flat=True))
    return [
        {
            "version": row.version,
            "date": row.version.session.date,
            "event": row.version.session.event.name,
            "club": row.version.session.event.club,
            "pair": row.pair_id,
            "partner": row.player2_name if row.player1_id == member.pk else row.player1_name,
            "state": row.version.get_state_display(),
            "reported": row.version_id in reported,
        }
        for row in rows
    ]
