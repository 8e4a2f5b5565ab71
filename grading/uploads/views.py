"""The administrator's upload pages (S12): upload, progress, withdraw."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from clubs.pages import administered_club, uploads_path
from grading.common.uploadhandlers import too_many_files
from grading.models import SessionVersion, Upload
from grading.uploads.forms import UploadForm
from grading.uploads.selectors import club_upload_rows, upload_progress
from grading.uploads.services import upload_receive, upload_refuse_oversize, withdrawal_request


@login_required
def uploads(request, slug: str):
    """The administrator's upload page (S12): upload files, watch them checked and graded (in
    the worker: the request only stores them), see the past and reopen any upload's result."""
    club = administered_club(request, slug)
    if request.method == "POST":
        # more files than one request may carry: refused whole, before any is read or stored
        # (issue 32 item 9)
        form = UploadForm(request.POST, request.FILES, too_many_files=too_many_files(request))
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
            "tab": "uploads",
            "uploads_path": uploads_path(club),
            "form": form,
            "fresh": [
                (upload, upload_progress(upload=upload))
                for upload in Upload.objects.filter(club=club, pk__in=shown).order_by("pk")
            ],
            "uploads": club_upload_rows(club=club),
            "max_mb": settings.UPLOAD_MAX_BYTES // (1024 * 1024),
        },
    )


def _receive(club, user, uploaded_file) -> Upload:
    if uploaded_file.size > settings.UPLOAD_MAX_BYTES:
        return upload_refuse_oversize(
            club=club, user=user, filename=uploaded_file.name, size=uploaded_file.size
        )
    return upload_receive(
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
        context.update(oob=True, uploads=club_upload_rows(club=club))
    return render(request, "grading/partials/upload_status.html", context)


@login_required
@require_POST
def version_withdraw(request, slug: str, pk: int):
    """Withdraw a graded session: its grades are removed through the ledger (S5.3), in the
    worker, with the same progress as an upload."""
    club = administered_club(request, slug)
    version = get_object_or_404(SessionVersion, pk=pk, session__event__club=club)
    try:
        withdrawal = withdrawal_request(version=version, user=request.user)
    except ValueError as refused:
        messages.error(request, str(refused))
        return redirect("uploads", slug=club.slug)
    return redirect(f"{reverse('uploads', args=[club.slug])}?show={withdrawal.pk}")
