"""The public tools (mounted under /tools/)."""

from django.urls import path

from grading.tools import views

urlpatterns = [
    path("vp-scale/", views.vp_scale, name="vp-scale"),
    path("score/", views.score_tool, name="score-tool"),
]
