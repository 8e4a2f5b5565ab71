from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from clubs.selectors import clubs_of_user, clubs_with_admin_role
from grading.forms import TravellerForm, VpScaleForm
from grading.ingest.problems import Problem
from grading.ingest.traveller_paste import parse_traveller_text
from grading.tools import continuous_rows, discrete_bands, score_traveller
from members.selectors import member_for_user


def home(request):
    return render(request, "grading/home.html")


@login_required
def dashboard(request):
    """Where a login lands: the member's summary, their clubs, and the staff entry points."""
    user = request.user
    return render(
        request,
        "grading/dashboard.html",
        {
            "member": member_for_user(user=user),
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
                Problem("expected", f"The board cannot be expected {expected} times "
                        f"when {len(lines)} tables played it.")
            )
        if problems:
            context["problems"] = problems
        else:
            context["scored"] = score_traveller(lines, expected)
    return render(request, "grading/score_tool.html", context)
