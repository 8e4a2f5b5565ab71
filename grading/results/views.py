"""The session's results page (S16) and the club's results settings (strata, estimates,
switches). Thin: selectors read, services write, the access rule is S13's
(``results_visible``, ``club_page``)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from clubs.models import Club
from clubs.pages import club_page, club_render
from grading.results import selectors, settings_reads
from grading.results.forms import ClubResultsForm, EmailChoiceForm, EstimateForm, StrataForm
from grading.results.services import (
    club_estimate_remove,
    club_estimate_set,
    club_results_set,
    club_strata_set,
    emails_by_link,
    member_results_emails_set,
)
from members import pagecache, pageshell
from members.models import Member
from members.views import member_required

EMAIL_CHOICE_SAVED = {
    "each": "You will get an email with your result after each session.",
    "weekly": "You will get a weekly summary of your results.",
    "none": "You will get no more result emails.",
}


def session_results(request, session_id: int, number: int | None = None):
    session = selectors.session_for_results(session_id=session_id)
    if session is None:
        raise Http404("These results are not published: the session is not graded.")
    seats = selectors.version_seats(version=session.live_version)
    if not selectors.results_visible(user=request.user, session=session, seats=seats):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        raise PermissionDenied(
            "These results are for the club's members and the players of the session."
        )
    pair = request.GET.get("pair") or None
    # Kept rendered under the club's pages version and what else the content depends on
    # (selectors.results_variant): the evening's emails send every player here at once.
    content = pagecache.club_page_content(
        club=session.event.club,
        page="results",
        build=lambda: _session_results_content(request.user, session, number, pair),
        variant=selectors.results_variant(
            version=session.live_version,
            seats=seats,
            user=request.user,
            version_number=number,
            pair=pair,
        ),
    )
    # the page around the content kept too, under what its title shows (members/pageshell.py)
    return pageshell.kept_shell_render(
        request,
        "results/session.html",
        {"session": session, "content": content},
        key=(session.pk, session.event.name, session.date),
    )


def _session_results_content(user, session, number: int | None, pair: str | None) -> str:
    results = selectors.session_results(
        session=session, user=user, version_number=number, pair=pair
    )
    # The travellers are the same for every viewer and a version never changes: kept rendered.
    travellers_html = cache.get_or_set(
        f"results:travellers-html:1:{results.version.pk}",
        lambda: render_to_string(
            "results/_travellers.html", {"travellers": results.travellers, "unit": results.unit}
        ),
        timeout=selectors.TRAVELLERS_KEPT,
    )
    return render_to_string(
        "results/_session_content.html",
        {"r": results, "travellers_html": mark_safe(travellers_html)},  # noqa: S308 (ours)
    )


@login_required
@club_page
def club_results_settings(request, club: Club):
    data = request.POST if request.method == "POST" else None
    which = request.POST.get("form") if data else None
    events = settings_reads.club_events(club=club)
    club_form = ClubResultsForm(data if which == "club" else None, club=club)
    strata_form = StrataForm(data if which == "strata" else None, events=events)
    estimate_form = EstimateForm(data if which == "estimate" else None, club=club)
    if which == "club" and club_form.is_valid():
        club_results_set(club=club, **club_form.cleaned_data)
        messages.success(request, "Saved.")
        return redirect("results:club-settings", slug=club.slug)
    if which == "strata" and strata_form.is_valid():
        club_strata_set(club=club, **strata_form.cleaned_data)
        messages.success(request, "Strata saved: results pages rank each stratum.")
        return redirect("results:club-settings", slug=club.slug)
    if which == "estimate" and estimate_form.is_valid():
        club_estimate_set(club=club, **estimate_form.cleaned_data)
        messages.success(request, "Estimate saved.")
        return redirect("results:club-settings", slug=club.slug)
    return club_render(
        request,
        club,
        "results/club_settings.html",
        {
            "club_form": club_form,
            "strata_form": strata_form,
            "estimate_form": estimate_form,
            "strata": settings_reads.club_strata_rows(club=club),
            "estimates": settings_reads.club_estimate_rows(club=club),
            "withheld": settings_reads.members_needing_estimates(club=club),
        },
        tab="results",
    )


@login_required
@require_POST
@club_page
def club_estimate_delete(request, club: Club, pk: int):
    club_estimate_remove(club=club, estimate_id=pk)
    messages.success(request, "Estimate removed.")
    return redirect("results:club-settings", slug=club.slug)


@csrf_exempt  # the signed token is the authority; mail programs POST here (RFC 8058)
def emails_off(request, token: str):
    """The one-click link in every email: following it switches the emails off, no login
    needed; the page offers to switch them back on."""
    choice = Member.ResultsEmails.NONE
    if request.method == "POST" and request.POST.get("choice") in Member.ResultsEmails.values:
        choice = request.POST["choice"]
    member = emails_by_link(token=token, choice=choice)
    if member is None:
        return render(request, "results/emails_off.html", {"invalid": True}, status=404)
    return render(
        request,
        "results/emails_off.html",
        {"member": member, "token": token, "choice": member.results_emails},
    )


@require_POST
@member_required
def member_emails(request, member):
    """The member's choice, from their privacy and settings page."""
    form = EmailChoiceForm(request.POST)
    if form.is_valid():
        member_results_emails_set(member=member, choice=form.cleaned_data["choice"])
        messages.success(request, EMAIL_CHOICE_SAVED[form.cleaned_data["choice"]])
    else:
        messages.error(request, "Choose one of the three.")
    return redirect("members:privacy")
