"""Writes of the grading app: uploads stored all-or-nothing (S12), then graded in order (S5).

``upload_create`` parses and validates a file inside one transaction: when anything is wrong
nothing is stored but the refused upload's record with every problem. Each session in the file
becomes a new ``SessionVersion`` (a correction when the session exists, S5.3), and grading is
dispatched once the transaction commits.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from clubs.models import Club, ClubRole
from grading.common.audit import audit_record
from grading.engine import codec
from grading.engine.types import PairEntry, SessionResult
from grading.ingest import parse_file
from grading.ingest.problems import ParseResult, Problem
from grading.models import (
    AuditEvent,
    Event,
    Match,
    PairResult,
    Session,
    SessionGrade,
    SessionVersion,
    TravellerLine,
    Upload,
)
from members.models import Member
from members.services import member_get_or_create, member_pages_invalidate

log = logging.getLogger(__name__)


@dataclass
class StoredSessions:
    summaries: list[dict] = field(default_factory=list)
    warnings: list[dict] = field(default_factory=list)
    new_versions: list[SessionVersion] = field(default_factory=list)


def problem_json(problem: Problem) -> dict:
    return {"location": problem.location, "message": problem.message, "line": problem.line}


def upload_create(
    *,
    club: Club,
    user=None,
    filename: str,
    data: bytes,
    check_club: bool = True,
    future_dates: bool = False,
) -> Upload:
    """Receive one results file for ``club``: refuse it, recognise a duplicate, or store it.

    Stored sessions are graded by a Celery task dispatched when the transaction commits. Every
    upload, and every correction in it, goes into the audit log. A date of play after
    tomorrow is refused unless ``future_dates`` (the simulator's worlds run past today).
    """
    upload = _upload_receive(
        club=club,
        user=user,
        filename=filename,
        data=data,
        check_club=check_club,
        future_dates=future_dates,
    )
    _audit_upload(upload, user)
    return upload


def _audit_upload(upload: Upload, user) -> None:
    audit_record(
        action=AuditEvent.Action.UPLOAD,
        subject=upload.filename,
        actor=user,
        club=upload.club,
        upload=upload.pk,
        status=upload.status,
        sha256=upload.sha256,
        problems=len(upload.problems),
    )
    for session in upload.summary.get("sessions", []):
        if session.get("outcome") == "correction":
            audit_record(
                action=AuditEvent.Action.CORRECTION,
                subject=f"{session['event']} {session['date']} version {session['version']}",
                actor=user,
                club=upload.club,
                upload=upload.pk,
                version=session.get("version_id"),
            )


def _upload_receive(
    *, club: Club, user, filename: str, data: bytes, check_club: bool, future_dates: bool
) -> Upload:
    digest = hashlib.sha256(data).hexdigest()
    upload = Upload(
        club=club,
        uploaded_by=user,
        filename=_printable(filename)[:255],
        size=len(data),
        sha256=digest,
    )
    if len(data) > settings.UPLOAD_MAX_BYTES:
        return _refuse(upload, [_too_large(len(data))])
    previous = _previous_upload(club, digest)
    if previous is not None:
        upload.status = Upload.Status.DUPLICATE
        upload.duplicate_of = previous
        upload.finished = timezone.now()
        upload.summary = {"message": _duplicate_message(previous)}
        upload.save()
        return upload

    parsed = parse_file(upload.filename, data, club=club.slug)
    problems = list(parsed.problems) + (_club_problems(parsed, club) if check_club else [])
    if not future_dates:
        problems += _future_date_problems(parsed, today=timezone.localdate())
    if problems:
        return _refuse(upload, problems, warnings=list(parsed.warnings))
    with transaction.atomic():
        upload.content = data
        upload.status = Upload.Status.STORED
        upload.save()
        stored = _store_sessions(upload, parsed.sessions)
        upload.warnings = [problem_json(w) for w in parsed.warnings] + stored.warnings
        upload.summary = {
            "format": parsed.meta.format,
            "program": parsed.meta.program,
            "sessions": stored.summaries,
        }
        if not stored.new_versions:
            upload.status = Upload.Status.GRADED
            upload.finished = timezone.now()
        upload.save()
        if stored.new_versions:
            transaction.on_commit(lambda: _dispatch_grading(upload.pk))
    return upload


def _future_date_problems(parsed: ParseResult, *, today: dt.date) -> list[Problem]:
    """A date of play after tomorrow (a day's grace for time zones) is a typing slip: graded,
    it would start every player's window in the future and, the grades as of a date never
    being recomputed (S5.2), its later withdrawal could not undo that."""
    latest = today + dt.timedelta(days=1)
    return [
        Problem(
            f"{s.event_name or s.key.event_id}, session {s.key.session}",
            f"The date of play, {s.date:%d %b %Y}, is after today ({today:%d %b %Y}). Correct "
            "the session's date in your scoring program and export the results again.",
            code="future-date",
        )
        for s in parsed.sessions
        if s.date > latest
    ]


def _duplicate_message(previous: Upload) -> str:
    """S14.9: an identical file is a duplicate. When its sessions have since been withdrawn or
    replaced, say so, and how to grade them again."""
    when = f"{timezone.localtime(previous.created):%d %b %Y at %H:%M}"
    in_force = previous.versions.filter(
        Q(session__live_version=F("pk")) | Q(state=SessionVersion.State.STORED)
    ).exists()
    if in_force or not previous.versions.exists():
        return f"This file was already uploaded on {when}; it is not graded again."
    return (
        f"This file was already uploaded on {when}, and its sessions have since been withdrawn "
        "or replaced; an identical file is not graded again. To grade them again, upload a "
        "corrected file, or export the results again from your scoring program."
    )


def _printable(name: str) -> str:
    """A file name as shown and stored: no control characters (PostgreSQL refuses NUL)."""
    return "".join(c for c in name if c.isprintable()) or "unnamed"


def _dispatch_grading(upload_id: int) -> None:
    """Queue grading. A broker that is down must not turn a stored upload into an error page:
    the upload is safe in the database and the five-minute sweep grades it (grade_pending)."""
    from grading.tasks import grade_upload

    try:
        grade_upload.delay(upload_id)
    except Exception:
        log.warning(
            "Could not queue grading of upload %s; the sweep will grade it",
            upload_id,
            exc_info=True,
        )


def _too_large(size: int) -> Problem:
    limit_mb = settings.UPLOAD_MAX_BYTES // (1024 * 1024)
    return Problem(
        "file",
        f"The file is {size / (1024 * 1024):.1f} MB; results files are limited to {limit_mb} MB. "
        "Export one event at a time from your scoring program.",
    )


def _previous_upload(club: Club, digest: str) -> Upload | None:
    return (
        Upload.objects.filter(
            club=club, sha256=digest, status__in=[Upload.Status.STORED, Upload.Status.GRADED]
        )
        .order_by("created")
        .first()
    )


def _refuse(upload: Upload, problems: list[Problem], warnings: list[Problem] = ()) -> Upload:
    upload.status = Upload.Status.REFUSED
    upload.problems = [problem_json(p) for p in problems]
    upload.warnings = [problem_json(w) for w in warnings]
    upload.finished = timezone.now()
    upload.save()
    return upload


def _club_problems(parsed: ParseResult, club: Club) -> list[Problem]:
    """A file for another club is refused (S12); a file without a club number is accepted."""
    number = (parsed.meta.national_club_id or "").lstrip("0")
    ours = club.national_number.lstrip("0")
    if number and ours and number != ours:
        named = f" ({parsed.meta.club_name})" if parsed.meta.club_name else ""
        return [
            Problem(
                "file",
                f"This file is for club number {number}{named}, not {club.name} (number {ours}). "
                "Upload it from that club's page, or check the club number in your scoring "
                "program.",
            )
        ]
    return []


def _store_sessions(upload: Upload, sessions: tuple[SessionResult, ...]) -> StoredSessions:
    stored = StoredSessions()
    for result in sessions:
        session = _session_for(upload.club, result)
        live = session.live_version
        content_hash = codec.fingerprint(result)
        summary = {
            "event": result.event_name or result.key.event_id,
            "date": result.date.isoformat(),
            "session": result.key.session,
            "pairs": len(result.pairs),
            "known_players": sum(p.known for pair in result.pairs for p in pair.players),
            "unknown_players": sorted(
                p.name or "(no name)" for pair in result.pairs for p in pair.players if not p.known
            ),
        }
        latest = session.versions.order_by("-number").first()
        # The same content as the live (or still waiting) version changes nothing; as one
        # withdrawn, or set aside because its grading failed, it is stored again.
        in_force = latest is not None and (
            latest.pk == session.live_version_id or latest.state == SessionVersion.State.STORED
        )
        if in_force and latest.content_hash == content_hash:
            summary.update(outcome="unchanged", version=latest.number)
            stored.summaries.append(summary)
            continue
        version = _version_create(upload, session, result, content_hash, latest)
        stored.warnings += _pairs_create(version, result, upload.club)
        summary.update(
            outcome="correction" if in_force or live is not None else "new",
            version=version.number,
            version_id=version.pk,
        )
        stored.summaries.append(summary)
        stored.new_versions.append(version)
    return stored


def _session_for(club: Club, result: SessionResult) -> Session:
    # A file without an event name is shown by its event id (derived from the program's name
    # and the date when the file has none either, as the upload's warning says).
    name = (result.event_name or result.key.event_id)[:255]
    event, created = Event.objects.get_or_create(
        club=club, event_id=result.key.event_id[:200], defaults={"name": name}
    )
    if not created and result.event_name and event.name != result.event_name:
        event.name = result.event_name[:255]
        event.save(update_fields=["name"])
        _pages_of_event_invalidate(event)  # every session of it shows the name
    session, _ = Session.objects.select_for_update().get_or_create(
        event=event,
        number=result.key.session,
        date=result.date,
        defaults={"start": result.start},
    )
    if result.start and session.start != result.start:
        session.start = result.start
        session.save(update_fields=["start"])
        _pages_of_event_invalidate(event)  # the histories' order of that day
    return session


def _pages_of_event_invalidate(event: Event) -> None:
    member_pages_invalidate(
        member_ids=SessionGrade.objects.filter(version__session__event=event).values_list(
            "member_id", flat=True
        )
    )


def _version_create(
    upload: Upload,
    session: Session,
    result: SessionResult,
    content_hash: str,
    latest: SessionVersion | None,
) -> SessionVersion:
    version = SessionVersion.objects.create(
        session=session,
        number=(latest.number + 1) if latest else 1,
        upload=upload,
        scoring=result.scoring.value,
        movement=result.movement.value,
        weighting=result.weighting,
        boards=result.boards,
        content_hash=content_hash,
        payload=codec.dump(result),
        not_graded_reason=result.not_graded_reason[:255],
    )
    Match.objects.bulk_create(
        Match(
            version=version,
            pair_id=m.pair_id,
            round=m.round,
            opponents=list(m.opponents),
            boards=m.boards,
            score=m.score,
        )
        for m in result.matches
    )
    TravellerLine.objects.bulk_create(
        TravellerLine(
            version=version,
            board=t.board,
            ns_pair=t.ns_pair,
            ew_pair=t.ew_pair,
            contract=t.contract[:20],
            declarer=t.declarer[:2],
            lead=t.lead[:4],
            tricks=t.tricks,
            ns_score=t.ns_score,
            ew_score=t.ew_score,
            ns_adjusted=t.ns_adjusted or "",
            ew_adjusted=t.ew_adjusted or "",
        )
        for t in result.travellers
    )
    return version


def _pairs_create(version: SessionVersion, result: SessionResult, club: Club) -> list[dict]:
    """Pair rows, with members created or matched by number (S14.2); name mismatches warn."""
    warnings: list[dict] = []
    rows = []
    players: set[int] = set()
    session = f"{result.event_name or result.key.event_id} {result.date:%d %b %Y}" + (
        f", session {result.key.session}" if result.key.session != 1 else ""
    )
    for pair in result.pairs:
        where = f"{session}, pair {pair.pair_id}"
        members = [
            _member_for(player.number, player.name, warnings, where) for player in pair.players
        ]
        players |= {member.pk for member in members if member is not None}
        rows.append(_pair_row(version, pair, members))
    PairResult.objects.bulk_create(rows)
    _club_memberships_add(club, players)
    return warnings


def _member_for(number, name, warnings, where: str) -> Member | None:
    if number is None:
        return None
    member, name_warnings = member_get_or_create(number=number, name=name)
    warnings += [{"location": where, "message": text, "line": None} for text in name_warnings]
    return member


def _club_memberships_add(club: Club, member_ids: set[int]) -> None:
    """Someone who plays in a club's session is listed among its members (docs/decisions.md):
    one query and one insert for the whole session, never touching an existing role."""
    known = set(
        ClubRole.objects.filter(club=club, member_id__in=member_ids).values_list(
            "member_id", flat=True
        )
    )
    ClubRole.objects.bulk_create(
        [ClubRole(club=club, member_id=pk) for pk in sorted(member_ids - known)],
        ignore_conflicts=True,
    )


def _pair_row(version: SessionVersion, pair: PairEntry, members: list) -> PairResult:
    first, second = pair.players
    return PairResult(
        version=version,
        pair_id=pair.pair_id[:20],
        direction=pair.direction.value if pair.direction else "",
        section=pair.section[:20],
        team=pair.team[:100],
        player1=members[0],
        player1_name=first.name[:200],
        player2=members[1],
        player2_name=second.name[:200],
        score=pair.score,
        boards=pair.boards,
        direction_mean=pair.direction_mean,
        host=not pair.rateable,
        known=pair.known,
    )


def upload_refuse_oversize(*, club: Club, user=None, filename: str, size: int) -> Upload:
    """A file over the limit, refused from its declared size without reading it (S12)."""
    upload = Upload(club=club, uploaded_by=user, filename=filename[:255], size=size, sha256="")
    _refuse(upload, [_too_large(size)])
    _audit_upload(upload, user)
    return upload


def session_withdraw(*, version: SessionVersion, user=None) -> SessionVersion:
    """Withdraw a session's live graded version through the ledger (S5.3, S5.4): its session
    grades leave every history and nothing replaces it."""
    from grading.ledger.fold import version_withdraw
    from grading.ledger.lock import ledger_head_lock

    with transaction.atomic():
        head = ledger_head_lock()
        version = SessionVersion.objects.select_for_update().get(pk=version.pk)
        if version.state != SessionVersion.State.GRADED:
            raise ValueError(f"{version} is {version.get_state_display().lower()}, not graded")
        version_withdraw(head=head, version=version)
        Session.objects.filter(pk=version.session_id).update(live_version=None)
        audit_record(
            action=AuditEvent.Action.WITHDRAWAL,
            subject=str(version),
            actor=user,
            club=version.session.event.club,
            version=version.pk,
        )
    return version


def upload_import(*, filename: str, data: bytes, club: Club | None = None, user=None) -> Upload:
    """An operator's import (the ``import_results`` command). With ``club`` the file must
    belong to it, as on the upload page; without, the club is the file's national club number
    or name, created if new (S12)."""
    if club is not None:
        return upload_create(club=club, user=user, filename=filename, data=data)
    meta = parse_file(filename, data, club="-").meta
    club = _club_of_file(meta.national_club_id, meta.club_name, filename)
    return upload_create(club=club, user=user, filename=filename, data=data, check_club=False)


def _club_of_file(number: str | None, name: str, filename: str) -> Club:
    from clubs.services import club_get_or_create

    if number:
        found = Club.objects.filter(national_number=number).first()
        if found:
            return found
    if name:
        found = Club.objects.filter(name__iexact=name.strip()).first()
        if found:
            return found
    label = name.strip() or (f"Club {number}" if number else f"Imported from {filename}")
    return club_get_or_create(name=label, national_number=number or "")
