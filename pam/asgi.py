"""ASGI entry point for Channels: websockets (dashboard progress events) and HTTP.

`make run` serves everything from one uvicorn process on this application (the embedded
default: its in-memory channel layer needs a single process). In production HTTP goes through
WSGI (measured ~2x more requests/s on these 2-core machines) and this serves the websockets.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pam.settings")
# Under ASGI each request's sync view runs in a thread of its own: a persistent connection would
# outlive its thread, unclosed (Django advises CONN_MAX_AGE=0 under ASGI). Off unless set.
os.environ.setdefault("DB_CONN_MAX_AGE", "0")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from django.conf import settings  # noqa: E402

from developer_api.routing import websocket_urlpatterns as request_feeds  # noqa: E402
from memory.routing import websocket_urlpatterns as pipeline_feeds  # noqa: E402
from pam.concurrency import BoundedHttp  # noqa: E402

application = ProtocolTypeRouter(
    {
        # At most PAM_MAX_CONCURRENT_REQUESTS requests at once, so at most that many database
        # connections (each sync view runs in a thread with its own): the rest wait.
        "http": BoundedHttp(django_asgi_app, settings.PAM_MAX_CONCURRENT_REQUESTS),
        # The dashboard's live feeds, signed in by the admin session; a page of another origin
        # (cross-site websocket hijacking) is refused by its Origin header.
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(pipeline_feeds + request_feeds))),
    }
)
