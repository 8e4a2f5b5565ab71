from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST
from django.views.defaults import page_not_found

from clubs.selectors import clubs_of_user, clubs_with_admin_role
from clubs.views import administered_club
from grading.forms import TravellerForm, UploadForm, VpScaleForm
from grading.ingest.problems import Problem
from grading.ingest.traveller_paste import parse_traveller_text
from grading.models import SessionVersion, Upload
from grading.selectors import club_uploads, upload_progress
from grading.services import session_withdraw, upload_create, upload_refuse_oversize
from grading.tools import continuous_rows, discrete_bands, score_traveller
from members.selectors import grade_card, member_for_user


def home(request):
    return render(request, "grading/home.html")


@login_required
def dashboard(request):
    """Where a login lands: the member's summary, their clubs, and the staff entry points."""
    user = request.user
    member = member_for_user(user=user)
    return render(
        request,
        "grading/dashboard.html",
        {
            "member": member,
            "card": grade_card(member=member) if member else None,
            "clubs": clubs_of_user(user=user),
            "admin_clubs": clubs_with_admin_role(user=user),
        },
    )


def vp_scale(request):
    """The WBF VP scales for any number of boards (S2.7), continuous and discrete."""
    form = VpScaleForm(request.GET or None)
    boards = form.cleaned_data["boards"] if form.is_valid() else None
    context = {"form": form, "boards": boards}
    if boards:
        context.update(continuous=continuous_rows(boards), discrete=discrete_bands(boards))
    return render(request, "grading/vp_scale.html", context)


def score_tool(request):
    """One pasted traveller, scored at match points, Butler and cross-IMPs (S2.2-S2.5)."""
    form = TravellerForm(request.POST or None)
    context: dict = {"form": form}
    if form.is_valid():
        lines, problems = parse_traveller_text(form.cleaned_data["traveller"])
        expected = form.cleaned_data["expected"]
        if not problems and expected is not None and expected < len(lines):
            problems.append(
                Problem(
                    "expected",
                    f"The board cannot be expected {expected} times "
                    f"when {len(lines)} tables played it.",
                )
            )
        if problems:
            context["problems"] = problems
        else:
            context["scored"] = score_traveller(lines, expected)
    return render(request, "grading/score_tool.html", context)


@login_required
def uploads(request, slug: str):
    """The administrator's upload page (S12): upload files, watch them graded, see the past."""
    club = administered_club(request, slug)
    if request.method == "POST":
        form = UploadForm(request.POST, request.FILES)
        if form.is_valid():
            created = [_receive(club, request.user, f) for f in form.cleaned_data["files"]]
            ids = ",".join(str(u.pk) for u in created)
            return redirect(f"{reverse('uploads', args=[club.slug])}?show={ids}")
    else:
        form = UploadForm()
    shown = [int(x) for x in request.GET.get("show", "").split(",") if x.isdigit()]
    return render(
        request,
        "grading/uploads.html",
        {
            "club": club,
            "form": form,
            "fresh": [
                (upload, upload_progress(upload=upload))
                for upload in Upload.objects.filter(club=club, pk__in=shown).order_by("pk")
            ],
            "uploads": club_uploads(club=club),
            "max_mb": settings.UPLOAD_MAX_BYTES // (1024 * 1024),
        },
    )


def _receive(club, user, uploaded_file) -> Upload:
    if uploaded_file.size > settings.UPLOAD_MAX_BYTES:
        return upload_refuse_oversize(
            club=club, user=user, filename=uploaded_file.name, size=uploaded_file.size
        )
    return upload_create(
        club=club, user=user, filename=uploaded_file.name, data=uploaded_file.read()
    )


@login_required
def upload_status(request, slug: str, pk: int):
    """One upload's state, polled by htmx until grading has finished."""
    club = administered_club(request, slug)
    upload = get_object_or_404(Upload, club=club, pk=pk)
    progress = upload_progress(upload=upload)
    context = {"club": club, "upload": upload, "progress": progress}
    if progress["finished"] and request.headers.get("HX-Request"):
        # Refresh the list of past uploads too (an out-of-band swap) now that it changed.
        context.update(oob=True, uploads=club_uploads(club=club))
    return render(request, "grading/partials/upload_status.html", context)


@login_required
@require_POST
def version_withdraw(request, slug: str, pk: int):
    """Withdraw a graded session: its grades are removed through the ledger (S5.3)."""
    club = administered_club(request, slug)
    version = get_object_or_404(SessionVersion, pk=pk, session__event__club=club)
    try:
        session_withdraw(version=version, user=request.user)
    except ValueError as refused:
        messages.error(request, str(refused))
    else:
        messages.success(
            request, f"{version.session} was withdrawn; its grades are removed from every history."
        )
    return redirect("uploads", slug=club.slug)


def not_found(request, exception=None):
    """An address that matches nothing (``handler404``): JSON under /api/, the schema's 404
    body, else Django's page."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Not found."}, status=404)
    return page_not_found(request, exception)
