"""The page benchmark's floor (issue 17): the product's routes plus ``/bench-floor/``, a Django
view that does nothing, served by the same gunicorn configuration and middleware as the pages
it is compared with (``gunicorn grading.lab.floor_wsgi``). Lab only."""

from __future__ import annotations

from django.http import HttpResponse
from django.urls import include, path

PRODUCT_URLCONF = "grading.urls"


def noop(request):
    return HttpResponse("grade floor", content_type="text/plain")


urlpatterns = [path("bench-floor/", noop), path("", include(PRODUCT_URLCONF))]
