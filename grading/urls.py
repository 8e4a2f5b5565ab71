from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from grading.common.auth import (
    ThrottledAdminLoginView,
    ThrottledLoginView,
    ThrottledPasswordResetView,
)
from grading.schemes import api as schemes_api
from grading.site import pages
from grading.uploads import api

urlpatterns = [
    path("", pages.home, name="home"),
    path("dashboard/", pages.dashboard, name="dashboard"),
    path("accounts/login/", ThrottledLoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "accounts/password/",
        auth_views.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "accounts/password/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("accounts/password/reset/", ThrottledPasswordResetView.as_view(), name="password_reset"),
    path(
        "accounts/password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "accounts/password/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/password/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path("accounts/", include("members.accounts.urls")),
    path("tools/", include("grading.tools.urls")),
    path("staff/", include("grading.staff.urls")),
    path("clubs/<slug:slug>/", include("grading.uploads.urls")),
    path("clubs/", include("clubs.members_urls")),
    path("clubs/", include("clubs.urls")),
    path("api/v1/clubs/<slug:slug>/uploads/", api.UploadListCreate.as_view(), name="api-uploads"),
    path(
        "api/v1/clubs/<slug:slug>/uploads/<int:pk>/",
        api.UploadDetail.as_view(),
        name="api-upload",
    ),
    path("api/v1/me/schemes/", schemes_api.MySchemes.as_view(), name="api-my-schemes"),
    path(
        "api/v1/clubs/<slug:slug>/schemes/",
        schemes_api.ClubSchemesView.as_view(),
        name="api-club-schemes",
    ),
    path("api/v1/clubs/", include("clubs.api_urls")),
    path("", include("grading.results.urls")),
    path("", include("members.urls")),
    # Before the admin's own: its login goes through the same throttle as the site's.
    path("admin/login/", ThrottledAdminLoginView.as_view(), name="admin-login"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
]


handler403 = "grading.site.pages.permission_denied"
handler404 = "grading.site.pages.not_found"
handler500 = "grading.site.pages.server_error"
