from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from grading import api, schemes_api, staff_views, views
from grading.auth import ThrottledLoginView

urlpatterns = [
    path("", views.home, name="home"),
    path("dashboard/", views.dashboard, name="dashboard"),
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
    path("tools/vp-scale/", views.vp_scale, name="vp-scale"),
    path("tools/score/", views.score_tool, name="score-tool"),
    path("staff/quality/", staff_views.quality, name="staff-quality"),
    path("staff/parameters/", staff_views.parameters, name="staff-parameters"),
    path("staff/parameters/replay/", staff_views.parameters_replay, name="staff-parameters-replay"),
    path("clubs/<slug:slug>/uploads/", views.uploads, name="uploads"),
    path("clubs/<slug:slug>/uploads/<int:pk>/status/", views.upload_status, name="upload-status"),
    path(
        "clubs/<slug:slug>/versions/<int:pk>/withdraw/",
        views.version_withdraw,
        name="version-withdraw",
    ),
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
    path("", include("members.urls")),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
]


handler404 = "grading.views.not_found"
