"""Staff pages (mounted under /staff/)."""

from django.urls import path

from grading.staff import pages, views

urlpatterns = [
    path("", pages.home, name="staff-home"),
    path("clubs/", pages.clubs, name="staff-clubs"),
    path("clubs/new/", pages.club_new, name="staff-club-new"),
    path("clubs/<slug:slug>/", pages.club, name="staff-club"),
    path("clubs/<slug:slug>/administrators/", pages.club_admin_appoint, name="staff-club-admin"),
    path(
        "clubs/<slug:slug>/administrators/<str:number>/remove/",
        pages.club_admin_remove_view,
        name="staff-club-admin-remove",
    ),
    path("register/", pages.register, name="staff-register"),
    path("merge/", pages.merge, name="staff-merge"),
    path("reports/<int:pk>/close/", pages.report_close, name="staff-report-close"),
    path("sign-ups/<int:pk>/decide/", pages.sign_up_decide_view, name="staff-sign-up-decide"),
    path("quality/", views.quality, name="staff-quality"),
    path("parameters/", views.parameters, name="staff-parameters"),
    path("parameters/replay/", views.parameters_replay, name="staff-parameters-replay"),
]
