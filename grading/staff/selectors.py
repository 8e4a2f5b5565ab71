"""Reads for the staff parameters page (S9, S9.1, S13): the active NGS parameter set, every
named set field by field, and the audit log's parameter changes and refolds (issue 10)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from fractions import Fraction

from django.conf import settings
from django.db.models import Count, Exists, IntegerField, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from clubs.models import Club, ClubRole
from grading.engine.ngs import NGS_DEFAULT, PARAMETER_SETS
from grading.engine.ngs.params import NGSParams
from grading.models import AuditEvent, SessionVersion, Upload
from grading.params import active_params_name
from members.models import Invitation, SessionReport, SignUpRequest

__all__ = [
    "FIELD_LABELS",
    "SET_DESCRIPTIONS",
    "club_admin_rows",
    "clubs_overview",
    "parameters_overview",
    "quick_withdrawals",
    "staff_dashboard",
]

SET_DESCRIPTIONS = {
    "ngs-15a": "The scheme as the EBU published it, March 2018: the default.",
    "ngs-2018": "The EBU's 2018 rules: a Mature player partnering a player with fewer "
    "than 150 graded boards gets no session grade; a session counts by known players, not pairs.",
    "fr18-factors": "The later estimates of the IMP factors in the EBU's grading report: F_butler 5.10 and "
    "F_cross 6.12 instead of 5.4 and 6.48.",
}

# field -> (label, where the specification sets it); a field missing here is shown by its name.
FIELD_LABELS = {
    "version": ("Version of the set", "S9"),
    "window_boards": ("Window: boards", "S4"),
    "window_years": ("Window: years", "S4"),
    "gain": ("Gain", "S3.4"),
    "rpcf": ("Regular-pair convergence factor (RPCF)", "S3.4"),
    "regular_share": ("Regular partner: share of boards above", "S3.4"),
    "initial_grade": ("Initial grade", "S5.1"),
    "initial_grade_green": ("Initial grade, first session green-pointed", "S5.1"),
    "restart_grade": ("Restart grade after 3 years away", "S5.1"),
    "padding_boards": ("Padding: boards", "S4"),
    "mature_boards": ("Mature at: boards", "S4"),
    "f_butler": ("F_butler (Butler IMPs)", "S3.3"),
    "f_cross": ("F_cross (cross-IMPs)", "S3.3"),
    "f_aggregate": ("Aggregate divisor", "S3.3"),
    "f_swiss_imp": ("Swiss pairs IMP factor", "S3.3"),
    "weighting_factors": ("Event weighting factors (type: factor)", "S3.10"),
    "known_threshold": ("Known share above which a session counts", "S3.8"),
    "known_by_players": ("Known share counted by", "S9.1"),
    "default_boards": ("Boards when not reported", "S3.7"),
    "forecast_sd": ("Forecast standard deviation", "S3.5"),
    "multiple_teams_share": ("Multiple-teams share of opponents met", "S3.2"),
    "new_partner_min_boards": ("Mature with a new partner: not graded below, boards", "S9.1"),
}
HISTORY_LIMIT = 25


def _display(name: str, value) -> str:
    if name == "known_by_players":
        return "players" if value else "pairs"
    if value is None:
        return "off"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if name == "weighting_factors":
        return ", ".join(f"{kind}: {_number(factor)}" for kind, factor in value)
    return _number(value)


def _number(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def parameters_overview() -> dict:
    """The active set, every field of every named set side by side (marking where each differs
    from the active set), and the recent parameter changes and refolds, newest first. Two
    queries: the ledger head and the audit log."""
    active_name = active_params_name()
    active = PARAMETER_SETS.get(active_name, NGS_DEFAULT)
    sets = [
        {"name": name, "description": SET_DESCRIPTIONS.get(name, ""), "active": name == active_name}
        for name in PARAMETER_SETS
    ]
    rows = []
    for field in dataclasses.fields(NGSParams):
        if field.name == "name":
            continue
        label, cite = FIELD_LABELS.get(field.name, (field.name.replace("_", " "), "S9"))
        mine = getattr(active, field.name)
        cells = [
            {
                "value": _display(field.name, getattr(params, field.name)),
                "differs": getattr(params, field.name) != mine,
                "active": name == active_name,
            }
            for name, params in PARAMETER_SETS.items()
        ]
        rows.append(
            {
                "field": field.name,
                "label": label,
                "cite": cite,
                "cells": cells,
                "varies": any(c["differs"] for c in cells),
            }
        )
    history = [_history_row(event) for event in _history()]
    return {
        "active": {
            "name": active_name,
            "description": SET_DESCRIPTIONS.get(active_name, ""),
            "known": active_name in PARAMETER_SETS,
        },
        "sets": sets,
        "rows": rows,
        "history": history,
        # The newest of these events is a change: the refold it dispatched has not committed
        # yet (it is running, queued, or failed), so stored grades still come from the old set.
        "refold_pending": bool(history) and history[0]["kind"] == "change",
    }


def _history() -> list[AuditEvent]:
    actions = [AuditEvent.Action.PARAMETERS, AuditEvent.Action.REFOLD]
    return list(AuditEvent.objects.filter(action__in=actions)[:HISTORY_LIMIT])


def _history_row(event: AuditEvent) -> dict:
    details = event.details or {}
    change = event.action == AuditEvent.Action.PARAMETERS
    return {
        "kind": "change" if change else "refold",
        "when": event.created,
        "who": event.actor or "system",
        "from": details.get("from", "") if change else "",
        "to": details.get("to", "") if change else details.get("params", ""),
        "reason": details.get("reason", "") if change else event.subject,
    }


# --------------------------------------------------------------------------------------------
# The union's staff page and clubs (S15)

SIGN_UP_WAIT_DAYS = 7
QUICK_WITHDRAWAL_HOURS = 48


def clubs_overview(*, query: str = "", limit: int = 100) -> tuple[list[dict], int]:
    """Clubs matching ``query`` (name, number or county), each with its administrators, its
    last upload and how many members it has (the register's, else those who played there).
    Returns the rows shown and the count matched."""
    clubs = Club.objects.all()
    query = " ".join(query.split())[:100]
    if query:
        clubs = clubs.filter(
            Q(name__icontains=query)
            | Q(national_number=query.lstrip("0"))
            | Q(county__icontains=query)
            | Q(slug__icontains=query)
        )
    total = clubs.count()
    # Two correlated subqueries, not two joins: joined, a club's roles times its uploads
    # would be counted (millions of rows at a large club).
    last_upload = (
        Upload.objects.filter(club=OuterRef("pk")).order_by("-created").values("created")[:1]
    )
    members = (
        ClubRole.objects.filter(club=OuterRef("pk"))
        .order_by()
        .values("club")
        .annotate(n=Count("pk"))
        .values("n")
    )
    clubs = list(
        clubs.annotate(
            last_upload=Subquery(last_upload),
            members=Coalesce(Subquery(members, output_field=IntegerField()), 0),
        ).order_by("name")[:limit]
    )
    admins: dict[int, list[str]] = {}
    for club_id, name, number in ClubRole.objects.filter(
        club__in=clubs, role=ClubRole.Role.ADMIN
    ).values_list("club_id", "member__name", "member__national_number"):
        admins.setdefault(club_id, []).append(f"{name} ({number})")
    return [{"club": c, "admins": admins.get(c.pk, [])} for c in clubs], total


def club_admin_rows(*, club: Club) -> list[dict]:
    """The club's administrators and the administrators' invitations still open."""
    rows = [
        {"member": role.member, "since": None, "invited_to": ""}
        for role in ClubRole.objects.filter(club=club, role=ClubRole.Role.ADMIN)
        .select_related("member")
        .order_by("member__name")
    ]
    for invitation in Invitation.objects.filter(
        club=club,
        role="admin",
        accepted__isnull=True,
        withdrawn=False,
        expires__gt=timezone.now(),
    ).select_related("member"):
        rows.append({"member": invitation.member, "since": None, "invited_to": invitation.email})
    return rows


def broker_lists() -> list[str]:
    """Redis's lists holding the tasks waiting: each queue (grading's and the background's) and,
    for each, one list per priority step the tasks were sent with (kombu's Redis transport)."""
    from kombu.transport.redis import PRIORITY_STEPS, Channel

    queues = (settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_BACKGROUND_QUEUE)
    return [
        queue if step == 0 else f"{queue}{Channel.sep}{step}"
        for queue in queues
        for step in PRIORITY_STEPS
    ]


def broker_waiting() -> int | None:
    """Tasks waiting in the broker (Redis's queues), or None when tasks run in-process."""
    if not settings.REDIS_URL:
        return None
    try:
        import redis

        client = redis.Redis.from_url(
            settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1
        )
        with client.pipeline(transaction=False) as pipe:
            for name in broker_lists():
                pipe.llen(name)
            return int(sum(pipe.execute()))
    except Exception:  # the broker is down: say so rather than fail the page
        return -1


def staff_dashboard(*, now=None) -> dict:
    """What needs a person (S15), and the worker's health."""
    now = now or timezone.now()
    has_admin = ClubRole.objects.filter(club=OuterRef("pk"), role=ClubRole.Role.ADMIN)
    without_admin = list(Club.objects.exclude(Exists(has_admin)).order_by("name")[:200])
    club_admin = ClubRole.objects.filter(club=OuterRef("club"), role=ClubRole.Role.ADMIN)
    sign_ups = list(
        SignUpRequest.objects.filter(status=SignUpRequest.Status.WAITING, member__user__isnull=True)
        .filter(
            Q(club__isnull=True)
            | ~Exists(club_admin)
            | Q(created__lt=now - dt.timedelta(days=SIGN_UP_WAIT_DAYS))
        )
        .select_related("member", "club")
        .order_by("created")[:200]
    )
    unknown_club = list(
        Upload.objects.filter(status=Upload.Status.REFUSED, summary__has_key="unknown_club")
        .select_related("club")
        .order_by("-created")[:50]
    )
    failed_uploads = list(
        Upload.objects.filter(status=Upload.Status.FAILED).select_related("club")[:50]
    )
    failed_versions = list(
        SessionVersion.objects.filter(grading_failed=True)
        .select_related("session__event__club")
        .order_by("-created")[:50]
    )
    last_graded = (
        Upload.objects.filter(status=Upload.Status.GRADED, finished__isnull=False)
        .exclude(summary__has_key="withdraw")
        .select_related("club")
        .order_by("-finished")
        .first()
    )
    nightly = AuditEvent.objects.filter(action=AuditEvent.Action.NIGHTLY).first()
    return {
        "clubs_without_admin": without_admin,
        "sign_ups": sign_ups,
        "unknown_club_uploads": unknown_club,
        "failed_uploads": failed_uploads,
        "failed_versions": failed_versions,
        "reports": list(
            SessionReport.objects.filter(closed__isnull=True)
            .select_related("member", "version__session__event__club")
            .defer("version__payload")
            .order_by("-created")[:100]
        ),
        "quick_withdrawals": quick_withdrawals(now=now),
        "waiting_tasks": broker_waiting(),
        "last_graded": last_graded,
        "last_graded_ago": (now - last_graded.finished) if last_graded else None,
        "nightly": nightly,
        "stored_waiting": SessionVersion.objects.filter(state=SessionVersion.State.STORED).count(),
    }


def quick_withdrawals(*, now, days: int = 90) -> list[dict]:
    """Sessions withdrawn within 48 hours of being stored that named members of other clubs
    (S14.25: the trace a file crafted to read a grade leaves), over the last ``days``."""
    events = AuditEvent.objects.filter(
        action=AuditEvent.Action.WITHDRAWAL, created__gte=now - dt.timedelta(days=days)
    )
    withdrawn_at = {}
    for event in events:
        pk = (event.details or {}).get("version")
        if isinstance(pk, int):
            withdrawn_at.setdefault(pk, event)
    rows = []
    versions = SessionVersion.objects.filter(pk__in=list(withdrawn_at)).select_related(
        "session__event__club"
    )
    for version in versions:
        event = withdrawn_at[version.pk]
        if event.created - version.created > dt.timedelta(hours=QUICK_WITHDRAWAL_HOURS):
            continue
        club_id = version.session.event.club_id
        players = {
            pk
            for pair in version.pairs.values_list("player1_id", "player2_id")
            for pk in pair
            if pk is not None
        }
        ours = set(
            ClubRole.objects.filter(
                club_id=club_id, member_id__in=players, registered=True
            ).values_list("member_id", flat=True)
        )
        others = (
            ClubRole.objects.filter(member_id__in=players - ours)
            .exclude(club_id=club_id)
            .values_list("member__national_number", flat=True)
            .distinct()
        )
        others = sorted(others)
        if others:
            rows.append(
                {"version": version, "withdrawn": event, "others": others, "by": event.actor}
            )
    return sorted(rows, key=lambda r: r["withdrawn"].created, reverse=True)
