"""Member pages (/me/...), public grade pages and their API. Included at the site root."""

from django.urls import path

from members import report_views, views
from members.api import views as api

app_name = "members"
urlpatterns = [
    path("me/", views.grade_card, name="card"),
    path("me/sessions/", views.session_history, name="sessions"),
    path("me/sessions.csv", views.session_history_csv, name="sessions-csv"),
    # A session is addressed by the session's id, which no refold, parameter change or
    # correction renumbers (issue 30 item 3); the older address by a session grade's id
    # redirects while that row exists.
    path("me/sessions/session/<int:session_id>/", views.session_explain, name="explain"),
    path("me/sessions/<int:grade_id>/", views.session_explain_by_grade, name="explain-grade"),
    path("me/sessions/clubs/", report_views.sessions_by_club, name="sessions-clubs"),
    path(
        "me/sessions/report/<int:version_id>/",
        report_views.session_report,
        name="session-report",
    ),
    path("me/partners/", views.partners, name="partners"),
    path("me/forecast/", views.forecast, name="forecast"),
    path("me/privacy/", views.privacy, name="privacy"),
    path("me/host-exemption/", views.host_exemption, name="host-exemption"),
    path("grades/top/", views.top_grades, name="top"),
    path("grades/bands/", views.band_distribution, name="bands"),
    path("members/", views.member_search, name="search"),
    path("members/<str:number>/", views.member_public, name="public"),
    path("api/v1/me/", api.GradeCardAPI.as_view(), name="api-card"),
    path("api/v1/me/sessions/", api.HistoryAPI.as_view(), name="api-sessions"),
    path(
        "api/v1/me/sessions/session/<int:session_id>/",
        api.ExplainAPI.as_view(),
        name="api-explain",
    ),
    path(
        "api/v1/me/sessions/<int:grade_id>/",
        api.ExplainByGradeAPI.as_view(),
        name="api-explain-grade",
    ),
    path("api/v1/me/partners/", api.PartnersAPI.as_view(), name="api-partners"),
    path("api/v1/me/forecast/", api.ForecastAPI.as_view(), name="api-forecast"),
    path("api/v1/me/privacy/", api.PrivacyAPI.as_view(), name="api-privacy"),
    path("api/v1/me/host-exemptions/", api.HostExemptionAPI.as_view(), name="api-host-exemptions"),
    path("api/v1/grades/top/", api.TopGradesAPI.as_view(), name="api-top"),
    path("api/v1/grades/bands/", api.BandsAPI.as_view(), name="api-bands"),
    path("api/v1/members/", api.MemberSearchAPI.as_view(), name="api-search"),
    path("api/v1/members/<str:number>/", api.PublicMemberAPI.as_view(), name="api-public"),
]
