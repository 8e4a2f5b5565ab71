"""The page benchmark's floor (issue 17): the product's WSGI application with one more route,
``/bench-floor/``, a Django view that does nothing, served by the same gunicorn configuration
and middleware as the pages it is compared with. Lab only: ``gunicorn grading.lab.floor``."""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "grading.settings")
application = get_wsgi_application()  # sets Django up: the product's routes can be included

from django.conf import settings  # noqa: E402
from django.http import HttpResponse  # noqa: E402
from django.urls import include, path  # noqa: E402


def noop(request):
    return HttpResponse("grade floor", content_type="text/plain")


urlpatterns = [path("bench-floor/", noop), path("", include(settings.ROOT_URLCONF))]
settings.ROOT_URLCONF = __name__  # read by the handler at each request
