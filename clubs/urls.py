from django.urls import path

from clubs import views

app_name = "clubs"
urlpatterns = [
    path("<slug:slug>/", views.club_dashboard, name="dashboard"),
    path("<slug:slug>/grades/", views.club_grades, name="grades"),
    path("<slug:slug>/grades/export/<str:fmt>/", views.club_grades_export, name="grades-export"),
    path("<slug:slug>/sessions/", views.club_sessions, name="sessions"),
    path("<slug:slug>/sessions/<int:pk>/", views.club_session, name="session"),
    path("<slug:slug>/bands/", views.club_bands, name="bands"),
    path("<slug:slug>/planned/", views.club_planned, name="planned"),
    path("<slug:slug>/planned/<int:pk>/delete/", views.club_planned_delete, name="planned-delete"),
    path("<slug:slug>/exemptions/", views.club_exemptions, name="exemptions"),
    path(
        "<slug:slug>/exemptions/<int:pk>/decide/",
        views.club_exemption_decide,
        name="exemption-decide",
    ),
    path("<slug:slug>/handicaps/", views.club_handicaps, name="handicaps"),
    path("<slug:slug>/handicaps/print/", views.club_handicaps_print, name="handicaps-print"),
    path(
        "<slug:slug>/handicaps/export/<str:fmt>/",
        views.club_handicaps_export,
        name="handicaps-export",
    ),
]
