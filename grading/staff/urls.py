"""Staff pages (mounted under /staff/)."""

from django.urls import path

from grading.staff import views

urlpatterns = [
    path("quality/", views.quality, name="staff-quality"),
    path("parameters/", views.parameters, name="staff-parameters"),
    path("parameters/replay/", views.parameters_replay, name="staff-parameters-replay"),
]
