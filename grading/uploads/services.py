"""Writes of the uploads: a file received at once, checked and graded in the worker (S12, S5).

The web request only stores the file as received (``upload_receive``) and answers; the worker
(``grading.tasks.process_upload``) parses and validates it (``upload_process``) inside one
transaction: when anything is wrong nothing is stored but the refused upload's record with
every problem (all-or-nothing). Each session in the file becomes a new ``SessionVersion`` (a
correction when the session exists, S5.3), graded in order. A withdrawal is received the same
way and run by the same task (issue 21 item 3). ``upload_create`` does both steps in the
caller's process, for operators' imports, seed data and simulations.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging

from django.conf import settings
from django.db import InterfaceError, OperationalError, transaction
from django.utils import timezone

from clubs.models import Club
from clubs.services import club_get_or_create, club_number_normalise
from grading.common.audit import audit_record
from grading.common.queue import task_queue
from grading.common.stale import club_pages_invalidate
from grading.engine.ngs import years_before
from grading.ingest import parse_file
from grading.ingest.problems import ParseResult, Problem
from grading.ledger.lock import ledger_head_lock
from grading.ledger.step import version_withdraw
from grading.models import AuditEvent, Session, SessionVersion, Upload
from grading.params import active_params
from grading.uploads import wording
from grading.uploads.store import (
    StoredSessions,
    played_roles_prune,
    session_in_force_q,
    sessions_store,
)
from grading.uploads.wording import problem_json, readable_event_name

log = logging.getLogger(__name__)


# ------------------------------------------------------------------------ receiving


def upload_receive(*, club: Club, user=None, filename: str, data: bytes) -> Upload:
    """The web's and the API's upload: store the file as received and answer at once; the
    worker checks, stores and grades it (``process_upload``, dispatched on commit)."""
    upload = _upload_new(club=club, user=user, filename=filename, data=data)
    if len(data) > settings.UPLOAD_MAX_BYTES:
        return _refuse(upload, [wording.too_large(len(data))], audit_as=user)
    with transaction.atomic():
        upload.content = data
        upload.save()
        task_queue("grading.process_upload", upload.pk)
    return upload


def upload_create(
    *,
    club: Club,
    user=None,
    filename: str,
    data: bytes,
    check_club: bool = True,
    future_dates: bool = False,
) -> Upload:
    """Receive and check one results file in this process: refuse it, recognise a duplicate,
    or store it, grading dispatched on commit. A date of play after tomorrow is refused unless
    ``future_dates`` (the simulator's worlds run past today)."""
    upload = _upload_new(club=club, user=user, filename=filename, data=data)
    if len(data) > settings.UPLOAD_MAX_BYTES:
        return _refuse(upload, [wording.too_large(len(data))], audit_as=user)
    parsed = parse_file(
        upload.filename,
        data,
        club=club.slug,
        earliest=settings.EARLIEST_PLAY_DATE,
        max_bytes=settings.UPLOAD_MAX_BYTES,
    )
    with transaction.atomic():
        upload.content = data
        upload.save()
        upload, stored = _upload_check_and_store(upload, parsed, check_club, future_dates)
        if stored:
            task_queue("grading.grade_upload", upload.pk)
    return upload


def upload_refuse_oversize(*, club: Club, user=None, filename: str, size: int) -> Upload:
    """A file over the limit, refused from its declared size without reading it (S12)."""
    upload = Upload(club=club, uploaded_by=user, filename=_printable(filename)[:255], size=size)
    return _refuse(upload, [wording.too_large(size)], audit_as=user)


def _upload_new(*, club: Club | None, user, filename: str, data: bytes) -> Upload:
    return Upload(
        club=club,
        uploaded_by=user,
        filename=_printable(filename)[:255],
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        status=Upload.Status.RECEIVED,
    )


def _printable(name: str) -> str:
    """A file name as shown and stored: no control characters (PostgreSQL refuses NUL)."""
    return "".join(c for c in name if c.isprintable()) or "unnamed"


# ------------------------------------------------------------------------ checking (worker)


def upload_process(*, upload_id: int) -> Upload:
    """Check and store a received upload (a file) or run a received withdrawal. Idempotent:
    an upload already past ``received`` is left as it is."""
    upload = Upload.objects.filter(pk=upload_id).first()
    if upload is None or upload.status != Upload.Status.RECEIVED:
        return upload
    try:
        if upload.summary.get("withdraw"):
            return _withdrawal_run(upload)
        parsed = parse_file(
            upload.filename,
            bytes(upload.content),
            club=upload.club.slug,
            earliest=settings.EARLIEST_PLAY_DATE,
            max_bytes=settings.UPLOAD_MAX_BYTES,
        )
        with transaction.atomic():
            locked = Upload.objects.select_for_update().get(pk=upload_id)
            if locked.status != Upload.Status.RECEIVED:
                return locked
            locked, _ = _upload_check_and_store(locked, parsed, True, False)
        return locked
    except (OperationalError, InterfaceError):
        raise  # the database went away: the task's retry or the sweep takes it up again
    except Exception:
        # An error in the product, not in the file: set aside (failed) so that the sweep does
        # not retry it for ever; the file is kept for support.
        log.exception("Checking upload %s failed; it is set aside", upload_id)
        Upload.objects.filter(pk=upload_id, status=Upload.Status.RECEIVED).update(
            status=Upload.Status.FAILED, finished=timezone.now()
        )
        return Upload.objects.get(pk=upload_id)


def uploads_received_process() -> int:
    """The sweep's first half: every upload still waiting to be checked, oldest first (its
    task was lost to a broker outage or a worker that died)."""
    done = 0
    for pk in (
        Upload.objects.filter(status=Upload.Status.RECEIVED)
        .order_by("pk")
        .values_list("pk", flat=True)
    ):
        upload_process(upload_id=pk)
        done += 1
    return done


def _upload_check_and_store(
    upload: Upload, parsed: ParseResult, check_club: bool, future_dates: bool
) -> tuple[Upload, bool]:
    """All-or-nothing (S12): a duplicate, a refusal with every problem, or every session
    stored. Returns the upload and whether versions wait to be graded."""
    previous = _previous_in_force(upload)
    if previous is not None:
        when = f"{timezone.localtime(previous.created):%-d %b %Y at %H:%M}"
        upload.status = Upload.Status.DUPLICATE
        upload.duplicate_of = previous
        upload.content = b""
        upload.finished = timezone.now()
        upload.summary = {"message": wording.duplicate_message(when)}
        upload.save()
        _audit_upload(upload)
        return upload, False
    problems = _problems(upload, parsed, check_club=check_club, future_dates=future_dates)
    if problems:
        return _refuse(upload, problems, warnings=list(parsed.warnings)), False
    with transaction.atomic():
        # One lock order for every ledger write (issue 32 item 8): the ledger head first, then
        # the session rows, then the club's row (pages_version). A correction stored while a
        # withdrawal of the same session ran deadlocked on the club row.
        ledger_head_lock()
        upload.status = Upload.Status.STORED
        stored = sessions_store(upload, parsed.sessions, parsed.meta)
        upload.warnings = (
            [problem_json(w) for w in parsed.warnings]
            + stored.warnings
            + _old_date_warnings(parsed)
        )
        upload.summary = {
            "format": parsed.meta.format,
            "program": parsed.meta.program,
            "sessions": stored.summaries,
        }
        if not stored.new_versions:
            upload.status = Upload.Status.GRADED
            upload.finished = timezone.now()
        upload.save()
        _audit_upload(upload, stored)
    return upload, bool(stored.new_versions)


def _problems(
    upload: Upload, parsed: ParseResult, *, check_club: bool, future_dates: bool
) -> list[Problem]:
    problems = list(parsed.problems)
    if check_club:
        problems += _club_problems(parsed, upload)
    # What one file may hold (issue 32 item 9): each session is graded under the ledger lock
    # on its own, but a file's sessions queue up every other club's uploads behind them.
    if len(parsed.sessions) > settings.UPLOAD_MAX_SESSIONS_PER_FILE:
        problems.append(wording.too_many_sessions(len(parsed.sessions)))
    pairs = sum(len(result.pairs) for result in parsed.sessions)
    if pairs > settings.UPLOAD_MAX_PAIRS_PER_FILE:
        problems.append(wording.too_many_pairs_in_file(pairs))
    today = timezone.localdate()
    for result in parsed.sessions:
        name = readable_event_name(result, parsed.meta)
        if len(result.pairs) > settings.UPLOAD_MAX_PAIRS_PER_SESSION:
            problems.append(wording.too_many_pairs(result, name))
        if not future_dates and result.date > today + dt.timedelta(days=1):
            # A day's grace for time zones. A later date is a typing slip: graded, it would
            # start every player's window in the future (S5.2).
            problems.append(wording.future_date(result, name, today))
    return problems


def _old_date_warnings(parsed: ParseResult) -> list[dict]:
    """S14.16: a session dated before today's window (the active parameter set's years, S4,
    S14.6) is graded in its place, with a warning that names its date."""
    start = years_before(timezone.localdate(), active_params().window_years)
    return [
        wording.old_date(result, readable_event_name(result, parsed.meta), start)
        for result in parsed.sessions
        if result.date <= start
    ]


def _previous_in_force(upload: Upload) -> Upload | None:
    """S14.9 as amended: an identical file is a duplicate while any session it holds is in
    force; a file whose sessions were all withdrawn is stored again and restores them."""
    earlier = Upload.objects.filter(
        club=upload.club,
        sha256=upload.sha256,
        status__in=[Upload.Status.STORED, Upload.Status.GRADED],
    ).order_by("created")
    if upload.pk:
        earlier = earlier.exclude(pk=upload.pk)
    for previous in earlier:
        versions = previous.versions.all()
        if not versions.exists() or versions.filter(session_in_force_q()).exists():
            return previous
    return None


def _club_problems(parsed: ParseResult, upload: Upload) -> list[Problem]:
    """A file for another club is refused (S12); a file without a club number is accepted. A
    file naming a club number no registered club has is refused too, asking for the union's
    staff to register it, and marked for the staff page (S15)."""
    club = upload.club
    number = club_number_normalise(parsed.meta.national_club_id or "")
    ours = club_number_normalise(club.national_number)
    if number and ours and number != ours:
        named = f" ({parsed.meta.club_name})" if parsed.meta.club_name else ""
        if _club_of_file(number, "") is None:
            upload.summary = {
                "unknown_club": number,
                "unknown_club_name": (parsed.meta.club_name or "")[:200],
            }
            return [
                Problem(
                    "file",
                    f"This file is for club number {number}{named}, which is not registered "
                    "here. The union's staff must register that club first. If it is your "
                    f"club, ask them to give {club.name} the number {number}; otherwise check "
                    "the club number in your scoring program.",
                )
            ]
        return [
            Problem(
                "file",
                f"This file is for club number {number}{named}, not {club.name} (number {ours}). "
                "Upload it from that club's page, or check the club number in your scoring "
                "program.",
            )
        ]
    return []


def _refuse(
    upload: Upload, problems: list[Problem], warnings: list[Problem] = (), audit_as=None
) -> Upload:
    """Nothing is kept of a refused file but the record of its refusal and its audit entry:
    the first 200 problems and warnings, and how many there were (issue 32 item 10: a file
    of 4,000 problems made a 1.9 MB page)."""
    upload.status = Upload.Status.REFUSED
    upload.content = b""
    upload.problems = _first_kept(problems, "problem")
    upload.warnings = _first_kept(list(warnings), "warning")
    if len(problems) > PROBLEMS_KEPT:
        upload.summary = {**(upload.summary or {}), "problems_total": len(problems)}
    upload.finished = timezone.now()
    upload.save()
    _audit_upload(upload, actor=audit_as)
    return upload


PROBLEMS_KEPT = 200


def _first_kept(problems: list[Problem], what: str) -> list[dict]:
    """The first ``PROBLEMS_KEPT`` as stored, and a last line saying how many more there are."""
    kept = [problem_json(p) for p in problems[:PROBLEMS_KEPT]]
    if len(problems) > PROBLEMS_KEPT:
        more = len(problems) - PROBLEMS_KEPT
        kept.append(
            problem_json(
                Problem(
                    "file",
                    f"... and {more:,} more {what}s ({len(problems):,} in all). Correct those "
                    "listed (the rest are often the same mistake) and upload the file again.",
                    code=f"more-{what}s",
                )
            )
        )
    return kept


def _audit_upload(upload: Upload, stored: StoredSessions | None = None, actor=None) -> None:
    actor = actor or upload.uploaded_by
    audit_record(
        action=AuditEvent.Action.UPLOAD,
        subject=upload.filename,
        actor=actor,
        club=upload.club,
        upload=upload.pk,
        status=upload.status,
        sha256=upload.sha256,
        problems=(upload.summary or {}).get("problems_total", len(upload.problems)),
    )
    for session in stored.summaries if stored else ():
        if session.get("outcome") in ("correction", "restored"):
            audit_record(
                action=AuditEvent.Action.CORRECTION,
                subject=f"{session['event']} {session['date']} version {session['version']}",
                actor=actor,
                club=upload.club,
                upload=upload.pk,
                version=session.get("version_id"),
            )


# ------------------------------------------------------------------------ withdrawals


def withdrawal_request(*, version: SessionVersion, user=None) -> Upload:
    """A withdrawal asked for on the uploads page: recorded at once with the uploads (the
    same progress), run by the worker. Raises ValueError when the version is not graded."""
    _withdrawable(version)
    label = f"{version.session.event.name}, {version.session.date:%-d %b %Y}"
    with transaction.atomic():
        upload = Upload.objects.create(
            club=version.session.event.club,
            uploaded_by=user,
            filename=f"Withdrawal of {label}"[:255],
            status=Upload.Status.RECEIVED,
            summary={"withdraw": version.pk, "session": label},
        )
        task_queue("grading.process_upload", upload.pk)
    return upload


def _withdrawable(version: SessionVersion) -> None:
    if version.state != SessionVersion.State.GRADED:
        raise ValueError(
            f"{version.session.event.name} of {version.session.date:%-d %b %Y} is "
            f"{version.get_state_display().lower()}, not graded, so there is nothing to withdraw."
        )


def _withdrawal_run(upload: Upload) -> Upload:
    """Run a received withdrawal once: the upload row is locked and checked again, so the
    sweep and a redelivered task cannot run it twice."""
    with transaction.atomic():
        upload = Upload.objects.select_for_update().get(pk=upload.pk)
        if upload.status != Upload.Status.RECEIVED:
            return upload
        version = SessionVersion.objects.select_related("session__event").get(
            pk=upload.summary["withdraw"]
        )
        try:
            session_withdraw(version=version, user=upload.uploaded_by)
        except ValueError as refused:
            upload.status = Upload.Status.REFUSED
            upload.problems = [{"location": upload.summary["session"], "message": str(refused)}]
        else:
            upload.status = Upload.Status.GRADED
        upload.finished = timezone.now()
        upload.save(update_fields=["status", "problems", "finished"])
    return upload


def session_withdraw(*, version: SessionVersion, user=None) -> SessionVersion:
    """Withdraw a session's live graded version through the ledger (S5.3, S5.4): its session
    grades leave every history and nothing replaces it."""
    with transaction.atomic():
        head = ledger_head_lock()
        version = SessionVersion.objects.select_for_update().get(pk=version.pk)
        _withdrawable(version)
        version_withdraw(head=head, version=version)
        Session.objects.filter(pk=version.session_id).update(live_version=None)
        players = {
            pk
            for pair in version.pairs.values_list("player1_id", "player2_id")
            for pk in pair
            if pk is not None
        }
        if played_roles_prune(club_id=version.session.event.club_id, member_ids=players):
            club_pages_invalidate(club_ids=[version.session.event.club_id])
        audit_record(
            action=AuditEvent.Action.WITHDRAWAL,
            subject=str(version),
            actor=user,
            club=version.session.event.club,
            version=version.pk,
        )
    return version


# ------------------------------------------------------------------------ operators' imports


def upload_import(*, filename: str, data: bytes, club: Club | None = None, user=None) -> Upload:
    """An operator's import (the ``import_results`` command). With ``club`` the file must
    belong to it, as on the upload page. Without, the club is found by the file's national
    club number, else its name (a later file, a correction, finds the club of the first);
    a new club is created only for a file that is accepted (issue 20 items 4 and 5); a file
    naming no club is refused, asking for ``--club``."""
    if club is not None:
        return upload_create(club=club, user=user, filename=filename, data=data)
    parsed = parse_file(
        filename,
        data,
        club="-",
        earliest=settings.EARLIEST_PLAY_DATE,
        max_bytes=settings.UPLOAD_MAX_BYTES,
    )
    meta = parsed.meta
    number = (meta.national_club_id or "").strip().lstrip("0")
    name = (meta.club_name or "").strip()
    found = _club_of_file(number, name)
    if found is not None:
        return upload_create(club=found, user=user, filename=filename, data=data, check_club=False)
    if not number and not name:
        upload = _upload_new(club=None, user=user, filename=filename, data=data)
        # a file that cannot be read says what it is (issue 29), before it names no club
        problems = list(parsed.problems) or [wording.no_club_named(upload.filename)]
        return _refuse(upload, problems, audit_as=user)
    try:
        with transaction.atomic():
            club = club_get_or_create(name=name or f"Club {number}", national_number=number)
            upload = upload_create(
                club=club, user=user, filename=filename, data=data, check_club=False
            )
            if upload.status == Upload.Status.REFUSED:
                raise _RefusedImport(upload)  # no club, member or role of a refused file
            upload.warnings = [wording.club_registered(club), *upload.warnings]
            upload.save(update_fields=["warnings"])
            audit_record(
                action=AuditEvent.Action.CLUB,
                subject=f"{club.name} (club {number or 'without a number'}) registered",
                actor=user,
                club=club,
                number=number,
                how="registered by an operator's import",
                upload=upload.pk,
            )
            return upload
    except _RefusedImport as refused_import:
        refused = _upload_new(club=None, user=user, filename=filename, data=data)
        refused.status = Upload.Status.REFUSED
        refused.problems = refused_import.upload.problems
        refused.warnings = refused_import.upload.warnings
        refused.finished = timezone.now()
        refused.save()
        _audit_upload(refused, actor=user)
        return refused


class _RefusedImport(Exception):
    def __init__(self, upload: Upload):
        super().__init__(upload.filename)
        self.upload = upload


def _club_of_file(number: str, name: str) -> Club | None:
    if number:
        for club in Club.objects.exclude(national_number=""):
            if club_number_normalise(club.national_number) == number:
                return club
    if name:
        return Club.objects.filter(name__iexact=name).first()
    return None
