"""WSGI entry point for gunicorn and other WSGI servers."""

import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = get_wsgi_application()

# Import the URL configuration, and with it every view, API and serializer module, when a
# server process starts rather than in its first request (Django does it lazily): on these
# 2-core machines that first request, an 11,490-output upload say, waited 0.4-0.5 s for it.
get_resolver().url_patterns  # noqa: B018 - the attribute's evaluation is the point
