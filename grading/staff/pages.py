"""The union's staff pages (S15, S13: staff only): the staff page (what needs a person, the
worker's health), clubs (list, register, edit, administrators), the member register and the
merge of two numbers of one person. Thin: forms check the input, services write."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST

from clubs.models import Club
from clubs.pages import staff_club_page
from clubs.services import ClubRefused, club_admin_remove, club_register, club_update
from grading.common.access import staff_required
from grading.ledger.replay.check import refold_progress
from grading.staff.forms import AdminAppointForm, ClubForm, MergeForm, RegisterForm
from grading.staff.merge import MergeRefused, members_merge
from grading.staff.register import register_load
from grading.staff.selectors import club_admin_rows, clubs_overview, staff_dashboard
from grading.staff.services import session_report_close
from members.accounts.services import AccountRefused, sign_up_decide
from members.accounts.union import admin_invitation_create, member_by_number
from members.models import SignUpRequest


@staff_required
def home(request):
    return render(request, "staff/home.html", {**staff_dashboard(), "now": timezone.now()})


@staff_required
def clubs(request):
    query = request.GET.get("q", "")
    rows, total = clubs_overview(query=query)
    return render(request, "staff/clubs.html", {"rows": rows, "total": total, "q": query[:100]})


@staff_required
@require_http_methods(["GET", "POST"])
def club_new(request):
    form = ClubForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            club = club_register(**form.cleaned_data, user=request.user)
        except ClubRefused as refused:
            form.add_error(None, str(refused))
        else:
            messages.success(
                request,
                f"{club.name} is registered. Appoint its administrator below: they get an "
                "email to accept.",
            )
            return redirect("staff-club", club.slug)
    return render(request, "staff/club_new.html", {"form": form})


def _club_page(request, club: Club, *, form=None, appoint=None, status=200):
    return render(
        request,
        "staff/club.html",
        {
            "club": club,
            "form": form
            or ClubForm(
                initial={
                    "name": club.name,
                    "national_number": club.national_number,
                    "county": club.county,
                    "keeps_brambledown": club.keeps_brambledown,
                }
            ),
            "appoint": appoint or AdminAppointForm(),
            "admins": club_admin_rows(club=club),
        },
        status=status,
    )


@staff_required
@require_http_methods(["GET", "POST"])
@staff_club_page
def club(request, found: Club):
    if request.method == "GET":
        return _club_page(request, found)
    form = ClubForm(request.POST)
    if form.is_valid():
        try:
            club_update(club=found, **form.cleaned_data, user=request.user)
        except ClubRefused as refused:
            form.add_error(None, str(refused))
        else:
            messages.success(request, "Saved.")
            return redirect("staff-club", found.slug)
    return _club_page(request, found, form=form)


@staff_required
@require_POST
@staff_club_page
def club_admin_appoint(request, found: Club):
    form = AdminAppointForm(request.POST)
    if form.is_valid():
        try:
            invitation = admin_invitation_create(
                club=found,
                number=form.cleaned_data["number"],
                email=form.cleaned_data["email"],
                name=form.cleaned_data["name"],
                site_url=request.build_absolute_uri("/"),
                invited_by=request.user,
            )
        except AccountRefused as refused:
            form.add_error(None, str(refused))
        else:
            messages.success(
                request,
                f"Invitation to administer {found.name} sent to {invitation.email} for "
                f"{invitation.member.name}.",
            )
            return redirect("staff-club", found.slug)
    return _club_page(request, found, appoint=form)


@staff_required
@require_POST
@staff_club_page
def club_admin_remove_view(request, found: Club, number: str):
    member = member_by_number(number)
    if member is None:
        messages.error(request, f"No member has the number {number[:20]}.")
    else:
        try:
            club_admin_remove(club=found, member=member, user=request.user)
        except ClubRefused as refused:
            messages.error(request, str(refused))
        else:
            messages.success(request, f"{member.name} is no longer an administrator.")
    return redirect("staff-club", found.slug)


@staff_required
@require_http_methods(["GET", "POST"])
def register(request):
    form = RegisterForm(request.POST or None, request.FILES or None)
    summary = None
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        if upload.size > settings.UPLOAD_MAX_BYTES * 2:
            form.add_error("file", "The list is too large: split it, or load it with the command.")
        else:
            summary = register_load(data=upload.read(), user=request.user, filename=upload.name)
            if summary.ok:
                messages.success(request, summary.text())
    return render(request, "staff/register.html", {"form": form, "summary": summary})


@staff_required
@require_http_methods(["GET", "POST"])
def merge(request):
    form = MergeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            result = members_merge(
                merged=form.cleaned_data["merged"],
                survivor=form.cleaned_data["survivor"],
                user=request.user,
                reason=form.cleaned_data["reason"],
            )
        except MergeRefused as refused:
            form.add_error(None, str(refused))
        else:
            messages.success(request, result.text())
            return redirect("staff-merge")
    return render(request, "staff/merge.html", {"form": form, "refold_progress": refold_progress()})


@staff_required
@require_POST
def report_close(request, pk: int):
    session_report_close(report_id=pk, user=request.user)
    messages.success(request, "Report closed.")
    return redirect("staff-home")


@staff_required
@require_POST
def sign_up_decide_view(request, pk: int):
    """Staff answer a sign-up no club can (no home club, or no administrator there, S15)."""
    sign_up = SignUpRequest.objects.select_related("member", "club").filter(pk=pk).first()
    decision = request.POST.get("decision")
    if sign_up is None or decision not in ("approve", "decline"):
        messages.error(request, "Choose Approve or Decline for a request that exists.")
        return redirect("staff-home")
    try:
        sign_up_decide(
            sign_up=sign_up,
            approve=decision == "approve",
            decided_by=request.user,
            club=sign_up.club,
            site_url=request.build_absolute_uri("/"),
        )
    except AccountRefused as refused:
        messages.error(request, str(refused))
    else:
        messages.success(
            request,
            f"Approved: a link goes to {sign_up.email}."
            if decision == "approve"
            else f"Declined the request from {sign_up.email}.",
        )
    return redirect("staff-home")
