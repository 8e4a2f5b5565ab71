"""The director's tools (S2): public pages over the engine."""

from django.shortcuts import render

from grading.tools.figures import continuous_rows, discrete_bands, traveller_score
from grading.tools.forms import TravellerForm, VpScaleForm


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
        scored, problems = traveller_score(
            form.cleaned_data["traveller"], form.cleaned_data["expected"]
        )
        if problems:
            context["problems"] = problems
        else:
            context["scored"] = scored
    return render(request, "grading/score_tool.html", context)
