"""Writes for results (S16): a club's switches, strata and estimates; a member's choice of
emails, from their settings page, the API, or the signed link in every email (no login)."""

from __future__ import annotations

from django.core import signing
from django.db import transaction

from clubs.models import Club, ClubEstimate, ClubStrata
from grading.common.stale import club_pages_invalidate
from grading.engine.ngs.decay import shown
from grading.models import Event
from grading.results.rules import limits_clean
from members.models import Member

OFF_SALT = "results-emails-off"


class StrataRefused(ValueError):
    """Strata the club cannot set (an event of another club)."""


def club_results_set(*, club: Club, results_public: bool, results_emails: bool) -> Club:
    club.results_public = results_public
    club.results_emails = results_emails
    club.save(update_fields=["results_public", "results_emails"])
    return club


@transaction.atomic
def club_strata_set(*, club: Club, event_id: int | None, limits: list[float]) -> ClubStrata | None:
    """Set (or, with no limits, remove) the strata of one event or of all the club's events."""
    if event_id is not None and not Event.objects.filter(pk=event_id, club=club).exists():
        raise StrataRefused("That event is not one of the club's.")
    clean = limits_clean(limits)
    ClubStrata.objects.filter(club=club, event_id=event_id).delete()
    club_pages_invalidate(club_ids=[club.pk])  # its results pages are kept under it
    if not clean:
        return None
    return ClubStrata.objects.create(club=club, event_id=event_id, limits=clean)


@transaction.atomic
def club_estimate_set(*, club: Club, member: Member, grade: float) -> ClubEstimate:
    estimate, _ = ClubEstimate.objects.update_or_create(
        club=club, member=member, defaults={"grade": shown(grade)}
    )
    club_pages_invalidate(club_ids=[club.pk])  # strata on its kept results pages
    return estimate


@transaction.atomic
def club_estimate_remove(*, club: Club, estimate_id: int) -> int:
    removed = ClubEstimate.objects.filter(club=club, pk=estimate_id).delete()[0]
    club_pages_invalidate(club_ids=[club.pk])
    return removed


def member_results_emails_set(*, member: Member, choice: str) -> Member:
    if choice not in Member.ResultsEmails.values:
        raise ValueError(f"not a choice: {choice!r}")
    member.results_emails = choice
    member.save(update_fields=["results_emails"])
    return member


def emails_off_token(*, member: Member) -> str:
    """The signed token of the one-click link in every email (no login needed): it names the
    member and nothing else, and cannot be made without the site's secret key."""
    return signing.dumps({"m": member.pk}, salt=OFF_SALT, compress=True)


def emails_off_member(*, token: str) -> Member | None:
    """The member a link's token names, or None for a token that was not made here."""
    try:
        data = signing.loads(token, salt=OFF_SALT)
    except signing.BadSignature:
        return None
    return Member.objects.filter(pk=data.get("m") if isinstance(data, dict) else None).first()


def emails_by_link(*, token: str, choice: str) -> Member | None:
    """Switch the emails off (or back on) from an email's link. None: the link is not valid."""
    member = emails_off_member(token=token)
    if member is not None:
        member_results_emails_set(member=member, choice=choice)
    return member
