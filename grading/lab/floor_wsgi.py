"""WSGI for the page benchmark: the product's application with the floor's routes
(grading/lab/floor.py). Lab only: ``gunicorn grading.lab.floor_wsgi``."""

from __future__ import annotations

import os

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "grading.settings")
application = get_wsgi_application()
settings.ROOT_URLCONF = "grading.lab.floor"  # read by the handler at each request
