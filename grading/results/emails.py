"""What the email after a graded session says to each player (S16), and who gets one.

One email per player with a login and an email address, per graded session version: their
place and score, their session grade and their grade after it, with links to the results page
and to "explain this session". Only the recipient's own figures: their partner is named, never
graded (S7, S14.14). A correction (a new version of a session whose earlier version was graded)
goes only to the players whose figures changed since the email they were sent, and says it is a
correction; a player who was sent nothing about the session yet (their email still waiting for
the weekly summary, refused by the mail server, or never made because the correction came first)
gets the correction's figures as their result. A member who chose no emails, or a club that
switched them off, gets none; a member who chose the weekly summary has the session kept for it.

The messages: ``templates/emails/results_session.{txt,html}`` and
``results_weekly.{txt,html}`` (the subject is the text's first line)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse

from grading.models import PairResult, SessionGrade, SessionVersion
from grading.results.rules import group_title, places, ranking_groups
from members.models import Member, ResultsEmail
from members.selectors.base import score_text


@dataclass(frozen=True)
class Figures:
    """One member's own figures for one session version, as the email prints them."""

    event: str
    club: str
    date: str
    place: str
    of: int
    group: str
    score: str
    partner: str
    session_grade: str
    grade_after: str
    reason: str
    results_path: str
    explain_path: str

    def same_result(self, sent: dict) -> bool:
        """Whether a correction left this player's figures as they were sent (S16): place,
        score, session grade and the reason it has none (``sent``: the figures stored with the
        email, ``ResultsEmail.figures``). The grade after is not compared: it moves with every
        session the member played between the two versions, whatever the correction changed."""
        keys = ("place", "score", "session_grade", "reason")
        return all(getattr(self, k) == sent.get(k) for k in keys)


def _grade(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def version_figures(*, version: SessionVersion) -> dict[int, Figures]:
    """Every member's own figures in the version, by member id: two queries when the version
    comes with its session, event and club (``select_related``, as ``session_emails_send``
    reads it), three more when it does not."""
    pairs = list(PairResult.objects.filter(version=version).order_by("pk"))
    place_of: dict[str, tuple[str, int, str]] = {}
    for key, members in ranking_groups(pairs, version.movement).items():
        for r in places([(p.pair_id, p.score) for p in members]):
            place_of[r.key] = (r.place, len(members), group_title(*key))
    score_of = {p.pair_id: p.score for p in pairs}
    session = version.session
    figures = {}
    for grade in SessionGrade.objects.filter(version=version).select_related("partner"):
        place, of, group = place_of.get(grade.pair_id, ("", 0, ""))
        figures[grade.member_id] = Figures(
            event=session.event.name,
            club=session.event.club.name,
            date=session.date.isoformat(),
            place=place,
            of=of,
            group=group,
            score=score_text(score_of.get(grade.pair_id), version.scoring),
            partner=grade.partner.name if grade.partner else "",
            session_grade=_grade(grade.session_grade),
            grade_after=_grade(grade.grade_after),
            reason=grade.reason,
            results_path=reverse("results:session-version", args=[session.pk, version.number]),
            explain_path=reverse("members:explain", args=[session.pk]),
        )
    return figures


def figures_sent(*, version: SessionVersion) -> dict[int, dict]:
    """The figures each member was actually sent about the session before ``version``, by
    member id: their latest email about an earlier version that went (the session's own or
    a weekly summary's). A member without one was told nothing about the session yet."""
    rows = (
        ResultsEmail.objects.filter(
            version__session_id=version.session_id,
            version__number__lt=version.number,
            status=ResultsEmail.Status.SENT,
        )
        .order_by("member_id", "-version__number")
        .values_list("member_id", "figures")
    )
    sent: dict[int, dict] = {}
    for member_id, figures in rows:
        sent.setdefault(member_id, figures)
    return sent


@dataclass(frozen=True)
class Recipient:
    member_id: int
    weekly: bool
    figures: Figures
    correction: bool  # they were sent other figures for the session before


def recipients(*, version: SessionVersion) -> list[Recipient]:
    """Who is written to about ``version``. Nobody when the club switched the emails off;
    members without a login or an email, or who chose none, are left out; so are those who
    were sent figures for an earlier version of the session that this one leaves as they
    were (S16: a correction goes only to those whose figures changed). Anyone not yet sent
    anything about the session is written to, whatever the earlier versions said: the email
    of an earlier version is never sent once it is corrected (``sending``)."""
    if not version.session.event.club.results_emails:
        return []
    figures = version_figures(version=version)
    sent = figures_sent(version=version)
    members = Member.objects.filter(
        pk__in=figures, user__isnull=False, user__is_active=True
    ).exclude(user__email="")
    found = []
    for member_id, choice in members.values_list("pk", "results_emails"):
        if choice == Member.ResultsEmails.NONE:
            continue
        mine = figures[member_id]
        before = sent.get(member_id)
        if before is not None and mine.same_result(before):
            continue
        weekly = choice == Member.ResultsEmails.WEEKLY
        found.append(Recipient(member_id, weekly, mine, correction=before is not None))
    return found


def figures_json(figures: Figures) -> dict:
    return asdict(figures)


def _site(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path


def off_url(token: str) -> str:
    return _site(reverse("results:emails-off", args=[token]))


def _message(*, to: str, template: str, context: dict, token: str) -> EmailMultiAlternatives:
    context = {**context, "off_url": off_url(token), "site_url": _site("/")}
    text = render_to_string(f"emails/{template}.txt", context)
    subject, _, body = text.partition("\n")
    message = EmailMultiAlternatives(
        subject=subject.strip(),
        body=body.lstrip("\n"),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[to],
        headers={
            # RFC 8058: mail programs offer the same one-click switch-off.
            "List-Unsubscribe": f"<{context['off_url']}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )
    message.attach_alternative(render_to_string(f"emails/{template}.html", context), "text/html")
    return message


def session_message(
    *, member: Member, figures: dict, correction: bool, token: str
) -> EmailMultiAlternatives:
    figures = {
        **figures,
        "results_url": _site(figures["results_path"]),
        "explain_url": _site(figures["explain_path"]),
    }
    return _message(
        to=member.user.email,
        template="results_session",
        context={"member": member, "f": figures, "correction": correction},
        token=token,
    )


def weekly_message(*, member: Member, sessions: list[dict], token: str) -> EmailMultiAlternatives:
    rows = [
        {**f, "results_url": _site(f["results_path"]), "explain_url": _site(f["explain_path"])}
        for f in sessions
    ]
    return _message(
        to=member.user.email,
        template="results_weekly",
        context={"member": member, "sessions": rows},
        token=token,
    )
