"""A club's uploads (mounted under /clubs/<slug>/)."""

from django.urls import path

from grading.uploads import views

urlpatterns = [
    path("uploads/", views.uploads, name="uploads"),
    path("uploads/<int:pk>/status/", views.upload_status, name="upload-status"),
    path("versions/<int:pk>/withdraw/", views.version_withdraw, name="version-withdraw"),
]
