"""Member pages (/me/...) and the public grade pages. Thin: selectors read, services write."""

import csv
import functools

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.utils import timezone

from clubs.models import Club
from clubs.services import ExemptionRefused
from grading.common.spreadsheet import cell_text
from grading.privacy import privacy_limits
from grading.schemes.selectors import member_schemes
from members import charts, pagecache, pageshell
from members.forms import ForecastForm, HistoryFilterForm, HostExemptionForm, PrivacyForm
from members.selectors import base, exemptions
from members.selectors import card as cards
from members.selectors import explain as explanations
from members.selectors import forecast as forecasts
from members.selectors import history as histories
from members.selectors import partners as partner_reads
from members.selectors import public as public_lists
from members.services import (
    exemption_request_cancel,
    exemption_request_make,
    member_privacy_set,
)

HISTORY_PAGE_SIZE = 25


def member_required(view):
    """A logged-in user linked to a membership number; others get a page saying so."""

    @login_required
    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        member = base.member_for_user(user=request.user)
        if member is None:
            return render(request, "members/no_member.html")
        return view(request, member, *args, **kwargs)

    return wrapper


@member_required
def grade_card(request, member):
    content = pagecache.member_page_content(
        member=member, page="card", build=lambda: _grade_card_content(request, member)
    )
    return pageshell.kept_shell_render(
        request, "members/grade_card.html", {"content": content, "nav": "card"}
    )


def _grade_card_content(request, member) -> str:
    card = cards.grade_card(member=member)
    # PPI (S10) and Brambledown (S11) beside the NGS grade, with the same privacy (S7).
    context = {
        "card": card,
        "nav": "card",
        "schemes": member_schemes(member=member, viewer=request.user),
    }
    if card.points:
        context["chart"] = charts.grade_chart(card.points)
        context["figure_rows"] = charts.figure_rows(card.points)
    return render_to_string("members/_grade_card_content.html", context)


def _history(request, member):
    choices = histories.history_choices(member=member)
    form = HistoryFilterForm(request.GET or None, choices=choices)
    data = form.cleaned_data if form.is_valid() else {}
    filters = histories.HistoryFilters(data.get("club"), data.get("partner"), data.get("year"))
    return form, filters, histories.history_filtered(member=member, filters=filters)


@member_required
def session_history(request, member):
    content = pagecache.member_page_content(
        member=member,
        page="sessions",
        build=lambda: _session_history_content(request, member),
        variant=pagecache.cacheable_query(request.META.get("QUERY_STRING", "")),
    )
    return pageshell.kept_shell_render(
        request, "members/history.html", {"content": content, "nav": "sessions"}
    )


def _session_history_content(request, member) -> str:
    form, filters, rows = _history(request, member)
    counted = histories.history_counted(member=member, filters=filters, rows=rows)
    page = Paginator(counted, HISTORY_PAGE_SIZE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render_to_string(
        "members/_history_content.html",
        {
            "form": form,
            "page": page,
            "rows": histories.history_decorate(member=member, rows=page),
            "query": query.urlencode(),
            "nav": "sessions",
        },
    )


CSV_COLUMNS = [
    ("date", "date"),
    ("club", "club"),
    ("event", "event"),
    ("scoring", "scoring_label"),
    ("partner", "partner"),
    ("partner_number", "partner_number"),
    ("boards", "boards"),
    ("score", "score"),
    ("score_unit", "score_unit"),
    ("sopp", "sopp"),
    ("par", "par"),
    ("excess", "excess"),
    ("session_grade", "session_grade"),
    ("grade_after", "grade_after"),
    ("weight_percent", "weight_percent"),
    ("version", "version"),
    ("flags", "flags"),
]


@member_required
def session_history_csv(request, member):
    """The member's own history as CSV, with the page's filters (S7: one's own data only)."""
    *_, rows = _history(request, member)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="sessions-{member.national_number}.csv"'
    )
    writer = csv.writer(response)
    writer.writerow([name for name, _ in CSV_COLUMNS])
    for row in histories.history_decorate(member=member, rows=rows):
        writer.writerow([cell_text(getattr(row, attr), decimals=4) for _, attr in CSV_COLUMNS])
    return response


@member_required
def session_explain(request, member, session_id: int):
    grade_id = explanations.session_grade_id(member=member, session_id=session_id)
    explanation = (
        None if grade_id is None else explanations.session_explain(member=member, grade_id=grade_id)
    )
    if explanation is None:
        raise Http404("No such session in your history.")
    return render(request, "members/explain.html", {"x": explanation, "nav": "sessions"})


@member_required
def session_explain_by_grade(request, member, grade_id: int):
    """An address from before sessions were addressed by their own id: sent on to the
    session's address while the row exists (issue 30 item 3)."""
    session_id = explanations.grade_session_id(member=member, grade_id=grade_id)
    if session_id is None:
        raise Http404("No such session in your history.")
    return redirect("members:explain", session_id=session_id, permanent=True)


@member_required
def partners(request, member):
    return render(
        request,
        "members/partners.html",
        {
            "rows": partner_reads.partnerships(member=member),
            "nav": "partners",
        },
    )


@member_required
def forecast(request, member):
    card = cards.grade_card(member=member)
    form = ForecastForm(
        request.GET or None,
        partners=forecasts.forecast_partners(member=member),
        series=forecasts.club_series(member=member),
    )
    result = None
    if card.has_grade and form.is_valid():
        result = forecasts.forecast_build(own_grade=card.grade, **form.resolved())
    return render(
        request,
        "members/forecast.html",
        {
            "form": form,
            "card": card,
            "result": result,
            "nav": "forecast",
        },
    )


@member_required
def privacy(request, member):
    initial = {"grade": "private" if member.grade_private else "public"}
    form = PrivacyForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        private = form.cleaned_data["grade"] == "private"
        member_privacy_set(member=member, private=private)
        messages.success(
            request,
            "Your grade is now private: it is shown to you only. A partner can still work it "
            "out from their own figures, as explained below."
            if private
            else "Your grade is now public.",
        )
        return redirect("members:privacy")
    return render(
        request,
        "members/privacy.html",
        {
            "form": form,
            "member": member,
            "nav": "privacy",
            "limits": privacy_limits(),
        },
    )


@member_required
def host_exemption(request, member):
    now = timezone.now()
    if request.method == "POST" and "cancel" in request.POST:
        try:
            exemption_request_cancel(
                member=member, request_id=_int(request.POST["cancel"]), now=now
            )
        except ExemptionRefused as refused:
            messages.error(request, str(refused))
        else:
            messages.success(request, "Your request has been cancelled.")
        return redirect("members:host-exemption")
    form = HostExemptionForm(
        request.POST or None,
        sessions=exemptions.planned_sessions_open(member=member, now=now),
        partners=[r.partner for r in partner_reads.partnerships(member=member)],
    )
    if request.method == "POST" and form.is_valid():
        try:
            exemption_request_make(
                member=member,
                partner=form.cleaned_data["partner_member"],
                planned_session=form.cleaned_data["planned_session"],
                now=now,
            )
        except ExemptionRefused as refused:
            form.add_error(None, str(refused))
        else:
            messages.success(request, "Your request has been sent to the club.")
            return redirect("members:host-exemption")
    return render(
        request,
        "members/host_exemption.html",
        {
            "form": form,
            "rows": exemptions.exemption_rows(member=member, now=now),
            "member": member,
            "nav": "host",
        },
    )


def _int(value: str) -> int:
    return int(value) if value.isdigit() else 0


# --------------------------------------------------------------------------- public pages


def top_grades(request):
    club = None
    if request.GET.get("club"):
        club = get_object_or_404(Club, slug=request.GET["club"])
    return render(
        request,
        "members/top.html",
        {
            "club": club,
            "clubs": Club.objects.order_by("name"),
            "rows": public_lists.top_grades(club=club),
        },
    )


def member_search(request):
    """Find a member by name among published grades (S7)."""
    query = (request.GET.get("q") or "").strip()[:100]
    return render(
        request,
        "members/search.html",
        {
            "query": query,
            "rows": public_lists.member_search(query=query) if query else [],
            "too_short": bool(query)
            and len(query.replace(" ", "")) < public_lists.SEARCH_MIN_LENGTH,
            "limit": public_lists.SEARCH_LIMIT,
        },
    )


def band_distribution(request):
    national, clubs = public_lists.band_distributions()
    selected = next((d for d in clubs if d.slug == request.GET.get("club")), None)
    return render(
        request,
        "members/bands.html",
        {
            "national": national,
            "clubs": clubs,
            "selected": selected,
            "national_chart": charts.band_chart(national),
            "club_chart": charts.band_chart(selected) if selected else None,
        },
    )


def member_public(request, number: str):
    view = public_lists.public_member(number=number, viewer=request.user)
    if view is None:
        raise Http404("No member has that number.")
    if number != view.member.national_number:
        # Another spelling of the number (S14.2: leading zeros, spaces): one address each.
        return redirect("members:public", number=view.member.national_number, permanent=True)
    return render(request, "members/public_member.html", {"p": view})
