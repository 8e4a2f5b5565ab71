"""The club administration pages (S13): only the club's administrators and staff.

Views are thin: they check who asks (``club_page``), read through ``clubs.selectors``
and ``clubs.handicaps``, write through ``clubs.services``, and render or export.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from clubs import charts
from clubs.forms import (
    GRADE_LIST_QUERIES,
    ExemptionDecisionForm,
    GradeListForm,
    PlannedSessionForm,
)
from clubs.handicaps import exports
from clubs.handicaps.figures import handicap_figures
from clubs.handicaps.forms import (
    HandicapForm,
    estimates_as_typed,
    handicap_entries,
    handicap_form_rows,
)
from clubs.handicaps.players import club_players
from clubs.handicaps.table import SLOTS, TEAMS, handicap_table_build
from clubs.models import Club, HostExemptionRequest, PlannedSession
from clubs.pages import club_kept_render, club_page, club_render
from clubs.selectors.access import club_members
from clubs.selectors.bands import band_distribution
from clubs.selectors.grades import (
    RECENT_MONTHS,
    club_grade_rows,
    club_grade_summary,
    club_top_grades,
    year_before,
)
from clubs.selectors.planning import club_exemption_rows, planned_sessions_upcoming
from clubs.selectors.sessions import (
    REGULAR_SESSIONS,
    ROLLING_WINDOW,
    club_recent_uploads,
    club_session_detail,
    club_session_rows,
    sof_series,
    sof_series_split,
)
from clubs.services import (
    ExemptionRefused,
    PlannedSessionRefused,
    exemption_decision_record,
    planned_session_create,
    planned_session_delete,
)
from grading.schemes.selectors import club_schemes
from members import pagecache


@login_required
@require_GET
@club_page
def club_dashboard(request, club: Club):
    today = timezone.localdate()
    sessions = club_session_rows(club=club)
    return club_render(
        request,
        club,
        "clubs/dashboard.html",
        {
            "roles": club_members(club=club),
            "summary": club_grade_summary(club=club),
            "top_grades": club_top_grades(club=club),
            "sessions": sessions[:5],
            "session_count": len(sessions),
            "pending": club_exemption_rows(club=club, status=HostExemptionRequest.Status.WAITING),
            "planned": planned_sessions_upcoming(club=club, today=today)[:5],
            "uploads": club_recent_uploads(club=club),
            # PPI top list and Brambledown lists (S10, S11), private members left out (S7).
            "club_schemes": club_schemes(club=club, viewer=request.user),
        },
        tab="dashboard",
    )


def _grade_rows(request, club: Club):
    form = GradeListForm(request.GET or None)
    data = form.cleaned_data if form.is_bound and form.is_valid() else {}
    query, sort = data.get("q", ""), data.get("sort") or "name"
    since = year_before(timezone.localdate()) if data.get("recent") else None
    rows = club_grade_rows(
        club=club, query=query, sort=sort, status=data.get("status") or "", recent_since=since
    )
    return form, query, sort, rows


@login_required
@require_GET
@club_page
def club_grades(request, club: Club):
    content = pagecache.club_page_content(
        club=club,
        page="grades",
        build=lambda: _grades_content(request, club),
        variant=pagecache.choice_query(request.META.get("QUERY_STRING", ""), GRADE_LIST_QUERIES),
    )
    return club_kept_render(request, club, "clubs/grades.html", content, tab="grades")


def _grades_content(request, club: Club) -> str:
    """The list under the club's tabs, rendered without the request (members/pagecache.py)."""
    form, query, sort, rows = _grade_rows(request, club)
    return render_to_string(
        "clubs/_grades_content.html",
        {
            "club": club,
            "form": form,
            "rows": rows,
            "query": query,
            "sort": sort,
            "querystring": request.GET.urlencode(),
            "sort_querystring": _without(request.GET, "sort"),
            "recent_months": RECENT_MONTHS,
        },
    )


@login_required
@require_GET
@club_page
def club_grades_export(request, club: Club, fmt: str):
    _, _, _, rows = _grade_rows(request, club)
    lines = exports.grade_list_rows(rows)
    stamp = f"{timezone.localdate():%Y-%m-%d}"
    if fmt == "csv":
        return exports.attachment(
            exports.csv_bytes(exports.GRADE_HEADER, lines),
            filename=exports.export_name(club.slug, "grades", stamp, ext="csv"),
            content_type=exports.CSV_TYPE,
        )
    if fmt == "xlsx":
        return exports.attachment(
            exports.xlsx_bytes([("Grades", exports.GRADE_HEADER, lines)]),
            filename=exports.export_name(club.slug, "grades", stamp, ext="xlsx"),
            content_type=exports.XLSX_TYPE,
        )
    raise Http404("Exports are CSV or XLSX.")


@login_required
@require_GET
@club_page
def club_sessions(request, club: Club):
    rows = club_session_rows(club=club)
    split = sof_series_split(sof_series(rows))
    chosen = request.GET.get("series", "")
    figures = [
        {
            "name": name,
            "points": points,
            "html": charts.sof_chart(name, points, window=ROLLING_WINDOW, div_id=f"sof-chart-{i}"),
        }
        for i, (name, points) in enumerate(split.regular.items())
        if not chosen or name == chosen
    ]
    one_offs = [(name, p) for name, p in split.one_offs if not chosen or name == chosen]
    shown_rows = [r for r in rows if not chosen or r.series == chosen]
    return club_render(
        request,
        club,
        "clubs/sessions.html",
        {
            "rows": shown_rows,
            "figures": figures,
            "one_offs": one_offs,
            "regular_sessions": REGULAR_SESSIONS,
            "series_names": sorted({r.series for r in rows}),
            "chosen": chosen,
            "window": ROLLING_WINDOW,
        },
        tab="sessions",
    )


@login_required
@require_GET
@club_page
def club_session(request, club: Club, pk: int):
    detail = club_session_detail(club=club, session_id=pk)
    return club_render(request, club, "clubs/session.html", {"detail": detail}, tab="sessions")


@login_required
@require_GET
@club_page
def club_bands(request, club: Club):
    distribution = band_distribution(club=club)
    chart = charts.band_chart(distribution, club_name=club.name, div_id="band-chart")
    return club_render(
        request,
        club,
        "clubs/bands.html",
        {"distribution": distribution, "chart": chart, "rows": reversed(distribution.rows)},
        tab="bands",
    )


@login_required
@club_page
def club_planned(request, club: Club):
    today = timezone.localdate()
    form = PlannedSessionForm(request.POST or None, today=today)
    if request.method == "POST" and form.is_valid():
        try:
            planned = planned_session_create(club=club, user=request.user, **form.cleaned_data)
        except PlannedSessionRefused as refusal:
            form.add_error(None, str(refusal))
        else:
            messages.success(request, f"Published {planned}.")
            return redirect("clubs:planned", slug=club.slug)
    return club_render(
        request,
        club,
        "clubs/planned.html",
        {"form": form, "planned": planned_sessions_upcoming(club=club, today=today)},
        tab="planned",
    )


@login_required
@require_POST
@club_page
def club_planned_delete(request, club: Club, pk: int):
    planned = get_object_or_404(PlannedSession, pk=pk, club=club)
    try:
        planned_session_delete(planned=planned, today=timezone.localdate())
    except PlannedSessionRefused as refusal:
        messages.error(request, str(refusal))
    else:
        messages.success(request, f"Removed {planned}.")
    return redirect("clubs:planned", slug=club.slug)


@login_required
@require_GET
@club_page
def club_exemptions(request, club: Club):
    return club_render(
        request,
        club,
        "clubs/exemptions.html",
        {"rows": club_exemption_rows(club=club), "now": timezone.now()},
        tab="exemptions",
    )


@login_required
@require_POST
@club_page
def club_exemption_decide(request, club: Club, pk: int):
    exemption = get_object_or_404(
        HostExemptionRequest.objects.select_related("planned_session", "member", "partner"),
        pk=pk,
        planned_session__club=club,
    )
    form = ExemptionDecisionForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose approve or decline.")
        return redirect("clubs:exemptions", slug=club.slug)
    try:
        exemption_decision_record(
            request=exemption, approve=form.approve, user=request.user, now=timezone.now()
        )
    except ExemptionRefused as refusal:
        messages.error(request, str(refusal))
    else:
        messages.success(
            request,
            f"{exemption.get_status_display()}: {exemption.member.name} and "
            f"{exemption.partner.name} for {exemption.planned_session}.",
        )
    return redirect("clubs:exemptions", slug=club.slug)


def _without(query, key: str) -> str:
    """The query string without ``key`` (the sort links keep the filters)."""
    copy = query.copy()
    copy.pop(key, None)
    return copy.urlencode()


def _handicap_table(request, club: Club):
    today = timezone.localdate()
    planned = PlannedSession.objects.filter(club=club, date__gte=today).order_by("date", "start")
    form = HandicapForm(request.GET or None, planned_sessions=planned)
    settings = form.settings()
    entries, errors = handicap_entries(request.GET, kind=settings["kind"], rows=settings["rows"])
    table = handicap_table_build(
        club=club,
        kind=settings["kind"],
        boards=settings["boards"],
        entries=entries,
        title=settings["title"],
    )
    table.problems[:0] = errors
    return form, settings, entries, table


@login_required
@require_GET
@club_page
def club_handicaps(request, club: Club):
    form, settings, entries, table = _handicap_table(request, club)
    more = request.GET.copy()
    more["rows"] = str(min(settings["rows"] + 4, 60))
    figures = handicap_figures(table)
    form_rows = estimates_as_typed(handicap_form_rows(entries, table), request.GET)
    return club_render(
        request,
        club,
        "clubs/handicaps.html",
        {
            "form": form,
            "table": table,
            "form_rows": form_rows,
            "lines": figures.lines,
            "match_lines": figures.matches,
            "team_factor": figures.team_factor,
            "slots": range(1, SLOTS[table.kind] + 1),
            "querystring": request.GET.urlencode(),
            "more_rows": more.urlencode(),
            "teams": table.kind == TEAMS,
            "players": club_players(club=club),
            "conventions": exports.CONVENTIONS.values(),
        },
        tab="handicaps",
    )


@login_required
@require_GET
@club_page
def club_handicaps_print(request, club: Club):
    _, _, _, table = _handicap_table(request, club)
    figures = handicap_figures(table)
    return render(
        request,
        "clubs/handicaps_print.html",
        {
            "club": club,
            "table": table,
            "lines": figures.lines,
            "match_lines": figures.matches,
            "team_factor": figures.team_factor,
            "teams": table.kind == TEAMS,
            "now": timezone.localtime(),
            "querystring": request.GET.urlencode(),
        },
    )


@login_required
@require_GET
@club_page
def club_handicaps_export(request, club: Club, fmt: str):
    today = timezone.localdate()
    if fmt in exports.CONVENTIONS:
        convention = exports.CONVENTIONS[fmt]
        rows = exports.player_rows(club_players(club=club), convention)
        return exports.attachment(
            exports.csv_bytes(exports.PLAYER_HEADER, rows),
            filename=exports.export_name(
                club.slug, "handicaps", fmt, f"{today:%Y-%m-%d}", ext="csv"
            ),
            content_type=exports.CSV_TYPE,
        )
    form, settings, _, table = _handicap_table(request, club)
    figures = handicap_figures(table)
    base = (club.slug, "handicaps", table.title)
    header, rows = exports.handicap_rows(table, figures)
    if fmt == "csv":
        return exports.attachment(
            exports.csv_bytes(header, rows),
            filename=exports.export_name(*base, ext="csv"),
            content_type=exports.CSV_TYPE,
        )
    if fmt == "xlsx":
        sheets = [("Teams" if table.kind == TEAMS else "Pairs", header, rows)]
        if table.kind == TEAMS:
            sheets.append(("Matches", *exports.match_rows(table, figures)))
        date = settings["date"]
        preamble = [
            ["Event", settings["event"]],
            ["Date", date] if date else ["Made on", today],
        ]
        if settings["start"]:
            preamble.append(["Start", settings["start"]])
        return exports.attachment(
            exports.xlsx_bytes(sheets, preamble=preamble),
            filename=exports.export_name(*base, ext="xlsx"),
            content_type=exports.XLSX_TYPE,
        )
    raise Http404("Handicap exports are CSV, XLSX or a scoring program's per-player file.")
