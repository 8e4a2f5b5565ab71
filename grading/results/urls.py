"""Results for the players (S16): the session's results page, the email switches, the club's
results settings. Included at the site root."""

from django.urls import path
from django.views.generic import RedirectView

from grading.results import api, views

app_name = "results"
urlpatterns = [
    path("results/<int:session_id>/", views.session_results, name="session"),
    path("results/<int:session_id>/v<int:number>/", views.session_results, name="session-version"),
    # The "explain this session" link of the first emails (and of the figures kept with the
    # rows still waiting for a weekly summary or a retry): sent on to the member's page of the
    # session, which finds their row (S16).
    path(
        "results/<int:session_id>/explain/",
        RedirectView.as_view(pattern_name="members:explain"),
        name="explain",
    ),
    path("emails/off/<str:token>/", views.emails_off, name="emails-off"),
    path("me/emails/", views.member_emails, name="member-emails"),
    path("clubs/<slug:slug>/results/", views.club_results_settings, name="club-settings"),
    path(
        "clubs/<slug:slug>/results/estimates/<int:pk>/delete/",
        views.club_estimate_delete,
        name="estimate-delete",
    ),
    path("api/v1/me/emails/", api.EmailChoiceAPI.as_view(), name="api-emails"),
]
