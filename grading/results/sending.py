"""Sending the emails after grading (S16): called by the worker's tasks
(``grading/results/tasks.py``) after the grading transaction has committed, never inside it.

At most once per member and version: each email is a ``ResultsEmail`` row, unique on (member,
version), *claimed* before the message goes: a new row is inserted with this run's claim token
(a second delivery of the same task inserts nothing, so claims nothing), a refused one is taken
back by one UPDATE that only one run can win. A row left "being sent" by a worker that died
mid-send is never sent again (it may have gone). A mail server that refuses or cannot be
reached marks the rows failed, to be tried again later with a growing wait (``backoff``);
grading never waits for it and nothing it does can undo a grade. An email about a version
corrected since it was made is never sent (not tried again, not summarised): the correction's
emails go to every player not yet sent the earlier figures (``emails.recipients``).

Messages go in batches, one SMTP connection for each ``BATCH`` messages."""

from __future__ import annotations

import datetime as dt
import logging
import secrets
import smtplib
from collections import defaultdict

from django.core.mail import get_connection
from django.db import transaction
from django.utils import timezone

from grading.models import SessionVersion
from grading.results.emails import figures_json, recipients, session_message, weekly_message
from grading.results.services import emails_off_token
from members.models import Member, ResultsEmail

log = logging.getLogger(__name__)

BATCH = 50
MAX_ATTEMPTS = 8
FIRST_WAIT = dt.timedelta(seconds=60)
LONGEST_WAIT = dt.timedelta(hours=2)
Status = ResultsEmail.Status
MAIL_ERRORS = (smtplib.SMTPException, OSError)
# The server answered this message with a refusal (SMTPException is an OSError: the order of
# the ``except`` clauses below matters); anything else is the connection itself.
REFUSED = (smtplib.SMTPRecipientsRefused, smtplib.SMTPResponseException)


def backoff(attempts: int) -> dt.timedelta:
    """The wait before trying a refused email again: 1, 2, 4 ... minutes, at most 2 hours."""
    return min(FIRST_WAIT * (2 ** max(attempts - 1, 0)), LONGEST_WAIT)


def _claim() -> str:
    return secrets.token_hex(16)


def session_emails_send(*, version_id: int) -> int:
    """Write to the players of a graded version (S16). Idempotent: a second delivery finds
    every row already made and sends nothing. Returns the emails handed to the mail server."""
    version = (
        SessionVersion.objects.select_related("session__event__club").filter(pk=version_id).first()
    )
    if version is None or version.state != SessionVersion.State.GRADED:
        return 0
    if version.session.live_version_id != version.pk:
        return 0  # corrected since: the correction writes
    found = recipients(version=version)
    if not found:
        return 0
    claim = _claim()
    ResultsEmail.objects.bulk_create(
        [
            ResultsEmail(
                member_id=r.member_id,
                version=version,
                correction=r.correction,
                status=Status.WEEKLY if r.weekly else Status.SENDING,
                claim="" if r.weekly else claim,
                figures=figures_json(r.figures),
            )
            for r in found
        ],
        ignore_conflicts=True,
        batch_size=500,
    )
    return claimed_send(claim=claim)


def due_emails_send(*, now: dt.datetime | None = None) -> int:
    """Try again every refused email whose wait is over (the sweep, every minute)."""
    now = now or timezone.now()
    claim = _claim()
    taken = ResultsEmail.objects.filter(
        status=Status.FAILED, next_attempt__isnull=False, next_attempt__lte=now
    ).update(status=Status.SENDING, claim=claim)
    return claimed_send(claim=claim) if taken else 0


def claimed_send(*, claim: str) -> int:
    """Send the rows this run claimed, a batch per SMTP connection."""
    rows = list(
        ResultsEmail.objects.filter(claim=claim, status=Status.SENDING)
        .select_related("member__user", "version__session")
        .defer("version__payload")
        .order_by("pk")
    )
    off = [
        r.pk
        for r in rows
        if r.member.results_emails == Member.ResultsEmails.NONE
        # Corrected since the row was made: its figures are no longer the results, and the
        # correction writes to whoever was not sent them (S16).
        or r.version.session.live_version_id != r.version_id
    ]
    if off:  # switched off, or corrected, since the row was made
        ResultsEmail.objects.filter(pk__in=off).update(status=Status.SKIPPED)
        rows = [r for r in rows if r.pk not in off]
    sent = 0
    for start in range(0, len(rows), BATCH):
        done, reachable = _batch_send(rows[start : start + BATCH])
        sent += done
        if not reachable:  # the server is down or hangs: the rest wait too, at once
            _failed(rows[start + BATCH :])
            break
    return sent


def _batch_send(rows: list[ResultsEmail]) -> tuple[int, bool]:
    """Send one batch on one connection: (emails sent, whether the server stayed reachable).
    A refused recipient is that row's failure; a connection lost or timed out fails the rest
    of the batch without waiting on each message in turn."""
    messages = []
    for row in rows:
        token = emails_off_token(member=row.member)
        messages.append(
            session_message(
                member=row.member, figures=row.figures, correction=row.correction, token=token
            )
        )
    connection = get_connection(fail_silently=False)
    try:
        connection.open()
    except MAIL_ERRORS:
        log.warning("Mail server unreachable: %s results emails wait", len(rows), exc_info=True)
        _failed(rows)
        return 0, False
    sent = 0
    try:
        for i, (row, message) in enumerate(zip(rows, messages, strict=True)):
            message.connection = connection
            try:
                message.send()
            except REFUSED:
                log.warning("Mail server refused the results email %s", row.pk, exc_info=True)
                _failed([row])
                continue
            except MAIL_ERRORS as error:
                log.warning("Mail server lost: %s results emails wait (%s)", len(rows) - i, error)
                _failed(rows[i:])
                return sent, False
            ResultsEmail.objects.filter(pk=row.pk).update(status=Status.SENT, sent=timezone.now())
            sent += 1
    finally:
        try:
            connection.close()
        except MAIL_ERRORS:
            pass
    return sent, True


def _failed(rows: list[ResultsEmail]) -> None:
    """Mark the rows failed, one UPDATE per number of attempts (a server down fails a whole
    run's rows, which mostly share it)."""
    now = timezone.now()
    by_attempts: dict[int, list[int]] = defaultdict(list)
    for row in rows:
        by_attempts[row.attempts + 1].append(row.pk)
    for attempts, ids in by_attempts.items():
        ResultsEmail.objects.filter(pk__in=ids, status=Status.SENDING).update(
            status=Status.FAILED,
            attempts=attempts,
            next_attempt=now + backoff(attempts) if attempts < MAX_ATTEMPTS else None,
        )


def weekly_summaries_send() -> int:
    """One summary per member of the sessions kept for it since the last one (S16: the
    weekly choice). A version corrected since is left out: the correction's own row is kept
    for the member instead, unless the figures they were already sent (an earlier summary)
    are unchanged by it (``emails.recipients``). Returns the summaries sent."""
    claim = _claim()
    with transaction.atomic():
        ResultsEmail.objects.filter(status=Status.WEEKLY).update(status=Status.SENDING, claim=claim)
    rows = list(
        ResultsEmail.objects.filter(claim=claim, status=Status.SENDING)
        .select_related("member__user", "version__session")
        .defer("version__payload")
        .order_by("version__session__date", "pk")
    )
    by_member: dict[int, list[ResultsEmail]] = defaultdict(list)
    for row in rows:
        if row.version.session.live_version_id != row.version_id:
            ResultsEmail.objects.filter(pk=row.pk).update(status=Status.SKIPPED)
            continue
        by_member[row.member_id].append(row)
    sent = 0
    for member_rows in by_member.values():
        member: Member = member_rows[0].member
        ids = [r.pk for r in member_rows]
        if (
            member.user is None
            or not member.user.email
            or member.results_emails != Member.ResultsEmails.WEEKLY
        ):
            ResultsEmail.objects.filter(pk__in=ids).update(status=Status.SKIPPED)
            continue
        message = weekly_message(
            member=member,
            sessions=[r.figures for r in member_rows],
            token=emails_off_token(member=member),
        )
        try:
            message.send()
        except MAIL_ERRORS:
            log.warning("Mail server refused a weekly summary", exc_info=True)
            ResultsEmail.objects.filter(pk__in=ids).update(status=Status.WEEKLY, claim="")
            continue
        ResultsEmail.objects.filter(pk__in=ids).update(status=Status.SENT, sent=timezone.now())
        sent += 1
    return sent
