"""WSGI entry point: serves all HTTP (gunicorn, gthread workers; see README)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pam.settings")
application = get_wsgi_application()
