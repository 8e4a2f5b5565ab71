"""A URL configuration with another address for ``home`` (tests/members/test_sitelinks.py)."""

from django.http import HttpResponse
from django.urls import path

urlpatterns = [path("elsewhere/", lambda request: HttpResponse(), name="home")]
