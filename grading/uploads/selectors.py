"""Reads of the grading app."""

from django.db.models import Count, Prefetch, Q, QuerySet

from clubs.models import Club
from grading.models import SessionVersion, Upload
from grading.uploads.wording import reason, upload_badge


def club_uploads(*, club: Club, limit: int = 50) -> QuerySet[Upload]:
    """A club's latest uploads with their session versions (one query each)."""
    versions = SessionVersion.objects.select_related("session__event").order_by("pk")
    return (
        Upload.objects.filter(club=club)
        .defer("content")
        .select_related("uploaded_by")
        .prefetch_related(Prefetch("versions", queryset=versions))
        .order_by("-created")[:limit]
    )


def club_upload_rows(*, club: Club, limit: int = 50) -> list[Upload]:
    """The uploads list of the page: each upload with ``badge`` (css class, label) saying what
    happened (issue 19 item 4)."""
    rows = list(club_uploads(club=club, limit=limit))
    for upload in rows:
        upload.badge = upload_badge(upload)
        for version in upload.versions.all():
            version.not_graded_reason = reason(version.not_graded_reason)
    return rows


def upload_progress(*, upload: Upload) -> dict:
    """How far grading of an upload has gone: versions graded (or not) of those stored, and
    how many of its new versions were graded and not graded."""
    counts = upload.versions.aggregate(
        total=Count("pk"),
        done=Count("pk", filter=~Q(state=SessionVersion.State.STORED)),
        not_graded=Count("pk", filter=Q(state=SessionVersion.State.NOT_GRADED)),
    )
    finished = upload.status not in (Upload.Status.RECEIVED, Upload.Status.STORED)
    total = counts["total"] or 0
    done = total if finished else counts["done"]
    return {
        "total": total,
        "done": done,
        "finished": finished,
        "not_graded": counts["not_graded"],
        "graded": total - counts["not_graded"],
        "percent": 100 if finished or not total else round(100 * done / total),
        "reasons": [
            (f"{v.session.event.name} {v.session.date:%-d %b %Y}", reason(v.not_graded_reason))
            for v in upload.versions.filter(state=SessionVersion.State.NOT_GRADED)
            .select_related("session__event")
            .order_by("pk")
        ],
    }
